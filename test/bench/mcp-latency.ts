/**
 * (f) MCP tool-call latency next to the REST twin of each tool, sequential calls on one local
 * host: what an agent pays per call for going through /mcp/v1 instead of the REST API.
 *
 *   listBlockchains                       vs GET /v1/datasets?limit=250, counted by chain in the client
 *   searchTables {query: 'swap'}          vs POST /v1/datasets/search {query: 'swap'}
 *   getExecutionResults (finished run)    vs GET /v1/execution/{id}/results?limit=25
 *
 * Each pair runs WARMUPS then RUNS iterations; an iteration makes one call of each side, in
 * alternating order, so load drift on a shared machine hits both alike. The MCP side is the SDK's
 * `Client` over `StreamableHTTPClientTransport` (one connection, reused): it lists
 * `text/event-stream` in Accept, and the server chooses: these calls answer at once, so since
 * 2026-11-24 they get one JSON response (before, SSE with every event persisted for replay); a
 * call that will wait or asks for progress is still streamed. A third column, "MCP JSON", is a
 * plain fetch of the same `tools/call` with `Accept: application/json` (a JSON body, no event ids,
 * nothing persisted): the MCP server's own cost (server, zod validation of input and output, the
 * text copy) without the SDK client.
 *
 *   npx tsx test/bench/mcp-latency.ts [--scale N]
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type BenchHost,
  type Figure,
  type Json,
  ms,
  percentile,
  ratio,
  runBench,
  say,
  submitSql,
  waitFinished,
} from './support';

const WARMUPS = 20;
const RUNS = 200;
/** Upper bound on the measuring loop of one pair, whatever happens. */
const PAIR_BUDGET_MS = 3 * 60_000;
const PROTOCOL_VERSION = '2025-06-18';

interface Pair {
  label: string;
  mcp: { name: string; arguments: Record<string, unknown> };
  /** The REST twin: returns something derived from the body so it is really read. */
  rest: () => Promise<unknown>;
  /** The REST twin's method, if not GET. */
  restMethod?: 'POST';
}

type Side = 'mcp' | 'mcpJson' | 'rest';

function timed<T>(fn: () => Promise<T>): Promise<number> {
  const t0 = performance.now();
  return fn().then(() => performance.now() - t0);
}

await runBench('mcp-latency', async (bench: BenchHost) => {
  const { baseUrl, apiKey } = bench.host;
  const url = `${baseUrl}/mcp/v1`;
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { 'x-service-api-key': apiKey } },
    }),
  );

  let nextId = 1;
  /** tools/call as one JSON-RPC POST asking for a JSON body. */
  async function mcpJson(name: string, args: Record<string, unknown>): Promise<Json> {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'x-service-api-key': apiKey,
        'content-type': 'application/json',
        accept: 'application/json',
        'mcp-protocol-version': PROTOCOL_VERSION,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`MCP JSON ${name} → ${response.status}: ${text}`);
    const body = JSON.parse(text) as Json;
    if (body.error || body.result?.isError) throw new Error(`MCP JSON ${name}: ${text.slice(0, 500)}`);
    return body.result;
  }
  async function mcpSdk(name: string, args: Record<string, unknown>): Promise<Json> {
    const result: Json = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`MCP ${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
    return result;
  }

  try {
    // A finished execution with more rows than one page: the daily aggregation of dex.trades.
    const executionId = await submitSql(
      bench,
      "select date_trunc('day', block_time) as day, blockchain, count(*) as trades, sum(amount_usd) as volume_usd " +
        'from dex.trades group by 1, 2 order by 1, 2',
    );
    await waitFinished(bench, executionId, { everyMs: 20 });

    const pairs: Pair[] = [
      {
        label: 'listBlockchains',
        mcp: { name: 'listBlockchains', arguments: {} },
        rest: async () => {
          const body = await bench.api('/v1/datasets?limit=250');
          const counts = new Map<string, number>();
          for (const dataset of body.datasets as Json[]) {
            for (const chain of (dataset.blockchains ?? []) as string[]) {
              counts.set(chain, (counts.get(chain) ?? 0) + 1);
            }
          }
          return counts;
        },
      },
      {
        label: "searchTables 'swap'",
        mcp: { name: 'searchTables', arguments: { query: 'swap' } },
        rest: async () => (await bench.api('/v1/datasets/search', { json: { query: 'swap' } })).results,
        restMethod: 'POST',
      },
      {
        label: 'getExecutionResults (finished, 25 rows)',
        mcp: { name: 'getExecutionResults', arguments: { executionId, limit: 25 } },
        rest: async () => (await bench.api(`/v1/execution/${executionId}/results?limit=25`)).result,
      },
    ];

    // Sanity: both sides answer and agree on what they return.
    const chains = (await mcpSdk('listBlockchains', {})).structuredContent.blockchains as Json[];
    const restCounts = (await pairs[0]!.rest()) as Map<string, number>;
    for (const chain of chains) {
      if (restCounts.get(chain.name) !== chain.tableCount) {
        say(
          `note: ${chain.name} has ${chain.tableCount} tables over MCP, ${restCounts.get(chain.name)} over REST`,
        );
      }
    }
    const page = (await mcpJson('getExecutionResults', { executionId, limit: 25 })).structuredContent;
    say(
      `execution ${executionId}: ${page.totalRowCount} rows, MCP page ${page.rowCount} rows; ` +
        `${chains.length} chains, the same table counts over MCP and REST`,
    );

    const figures: Figure[] = [];
    /** The GET twins' samples, for the figures less the transport floor (POST twins need none). */
    const samplesByLabel = new Map<string, { mcp: number[]; rest: number[] }>();
    for (const pair of pairs) {
      const samples: Record<Side, number[]> = { mcp: [], mcpJson: [], rest: [] };
      const sides: Record<Side, () => Promise<unknown>> = {
        mcp: () => mcpSdk(pair.mcp.name, pair.mcp.arguments),
        mcpJson: () => mcpJson(pair.mcp.name, pair.mcp.arguments),
        rest: pair.rest,
      };
      const order: Side[] = ['mcp', 'mcpJson', 'rest'];
      const deadline = Date.now() + PAIR_BUDGET_MS;
      for (let i = 0; i < WARMUPS + RUNS && Date.now() < deadline; i++) {
        // Rotate who goes first, so none always follows the same neighbour.
        const rotated = [...order.slice(i % 3), ...order.slice(0, i % 3)];
        for (const side of rotated) {
          const took = await timed(sides[side]);
          if (i >= WARMUPS) samples[side].push(took);
        }
      }
      if (pair.restMethod !== 'POST') samplesByLabel.set(pair.label, samples);
      const n = samples.rest.length;
      const p = (side: Side, q: number) => percentile(samples[side], q);
      say(
        `${pair.label} (${n} runs): MCP p50 ${ms(p('mcp', 50))} p95 ${ms(p('mcp', 95))}; ` +
          `MCP JSON p50 ${ms(p('mcpJson', 50))} p95 ${ms(p('mcpJson', 95))}; ` +
          `REST p50 ${ms(p('rest', 50))} p95 ${ms(p('rest', 95))}`,
      );
      for (const q of [50, 95]) {
        figures.push({
          bench: '(f) MCP',
          measure: `${pair.label}: p${q} MCP (SDK client) vs REST twin (${n} runs)`,
          value: ms(p('mcp', q)),
          baseline: `${ms(p('rest', q))} REST`,
          ratio: ratio(p('mcp', q), p('rest', q)),
        });
      }
      figures.push({
        bench: '(f) MCP',
        measure: `${pair.label}: p50 / p95 MCP as a plain JSON fetch (no SDK client)`,
        value: `${ms(p('mcpJson', 50))} / ${ms(p('mcpJson', 95))}`,
        baseline: 'vs REST p50',
        ratio: ratio(p('mcpJson', 50), p('rest', 50)),
      });
    }
    figures.push(...(await transportFloor(baseUrl, apiKey, samplesByLabel)));
    return figures;
  } finally {
    await client.close();
  }
});

/**
 * What the HTTP method alone costs a fetch client: a POST with a JSON body the size of a
 * tools/call against a GET, to a path the host answers 404 at once (no handler runs), alternating.
 * Every MCP call is a POST and its REST twins here are mostly GETs, so part of each MCP/REST ratio
 * is this floor, paid in the client (undici streams every request body) whatever the server does.
 */
async function transportFloor(
  baseUrl: string,
  apiKey: string,
  mcpSamples: ReadonlyMap<string, { mcp: number[]; rest: number[] }>,
): Promise<Figure[]> {
  const url = `${baseUrl}/v1/no-such-route`;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'getExecutionResults',
      arguments: { executionId: '01M8M1TYEFCXMQ5YZQT7PDM326', limit: 25 },
    },
  });
  const headers = { 'x-service-api-key': apiKey };
  const sides = {
    get: async () => (await fetch(url, { headers })).text(),
    post: async () =>
      (
        await fetch(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body,
        })
      ).text(),
  };
  const samples = { get: [] as number[], post: [] as number[] };
  for (let i = 0; i < WARMUPS + RUNS; i++) {
    for (const side of i % 2 ? (['post', 'get'] as const) : (['get', 'post'] as const)) {
      const took = await timed(sides[side]);
      if (i >= WARMUPS) samples[side].push(took);
    }
  }
  const [get, post] = [percentile(samples.get, 50), percentile(samples.post, 50)];
  say(`transport floor (${samples.get.length} runs): GET p50 ${ms(get)}, POST p50 ${ms(post)} (404 route)`);
  const figures: Figure[] = [
    {
      bench: '(f) MCP',
      measure: 'transport floor: p50 POST with a tools/call-sized body vs GET, 404 route',
      value: ms(post),
      baseline: `${ms(get)} GET`,
      ratio: ratio(post, get),
    },
  ];
  for (const [label, pair] of mcpSamples) {
    const mcp = percentile(pair.mcp, 50);
    const rest = percentile(pair.rest, 50);
    figures.push({
      bench: '(f) MCP',
      measure: `${label}: p50 MCP less the floor (POST − GET) vs REST twin`,
      value: ms(mcp - (post - get)),
      baseline: `${ms(rest)} REST`,
      ratio: ratio(mcp - (post - get), rest),
    });
  }
  return figures;
}
