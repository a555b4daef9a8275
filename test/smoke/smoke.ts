/**
 * Smoke check of a running deployment (a `cdk deploy`ed stack or the local host):
 *
 *   npm run smoke -- <BASE_URL> <API_KEY>
 *
 * Runs a query and pages its result, refreshes a materialized view, runs a two-node pipeline,
 * uploads a table and reads it back, and calls three MCP tools, printing each step; exits non-zero on the first failure. It cleans up what
 * it created (the view is deleted, its queries archived). Every request is one a user would make.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export interface SmokeOptions {
  baseUrl: string;
  apiKey: string;
  /** How long one execution or pipeline may take before the check gives up. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

// biome-ignore lint/suspicious/noExplicitAny: the check reads JSON answers by their documented shapes
type Json = any;

class SmokeFailure extends Error {}

const TERMINAL_PIPELINE = ['completed', 'failed', 'cancelled'];

export async function runSmoke(options: SmokeOptions): Promise<void> {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 300_000;
  const log = options.log ?? ((line: string) => console.log(line));
  const suffix = Date.now().toString(36);

  const call = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-service-api-key': options.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok)
      throw new SmokeFailure(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };

  const poll = async (
    what: string,
    read: () => Promise<Json>,
    done: (value: Json) => boolean,
  ): Promise<Json> => {
    const deadline = Date.now() + timeoutMs;
    for (let wait = 200; ; wait = Math.min(wait * 1.5, 2000)) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline)
        throw new SmokeFailure(
          `${what} did not finish within ${timeoutMs / 1000} s: ${JSON.stringify(value)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };

  const waitForExecution = async (executionId: string): Promise<Json> => {
    const status = await poll(
      `execution ${executionId}`,
      () => call('GET', `/v1/execution/${executionId}/status`),
      (s) => s.is_execution_finished,
    );
    if (status.state !== 'QUERY_STATE_COMPLETED') {
      throw new SmokeFailure(
        `execution ${executionId} ended ${status.state}: ${JSON.stringify(status.error)}`,
      );
    }
    return status;
  };

  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      const value = await run();
      log(`ok    ${name} (${Math.round(performance.now() - started)} ms)`);
      return value;
    } catch (error) {
      log(`FAIL  ${name}: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
  };

  const createdQueries: number[] = [];
  let viewName: string | undefined;
  let uploadName: string | undefined;
  try {
    await step('catalog search finds dex.trades', async () => {
      const found = await call('POST', '/v1/datasets/search', { query: 'dex trades', limit: 5 });
      const names = (found.results as Json[]).map((r) => r.full_name);
      if (!names.includes('dex.trades')) throw new SmokeFailure(`search returned ${names.join(', ')}`);
    });

    const executionId = await step('run a query', async () => {
      const { execution_id } = await call('POST', '/v1/sql/execute', {
        sql: 'select blockchain, count(*) as trades from dex.trades group by 1 order by 1',
      });
      await waitForExecution(execution_id);
      return execution_id as string;
    });

    await step('page its result (2 pages of 1 row)', async () => {
      const first = await call('GET', `/v1/execution/${executionId}/results?limit=1`);
      if (first.result.rows.length !== 1 || first.next_offset !== 1) {
        throw new SmokeFailure(
          `first page: ${JSON.stringify(first.result)} next_offset ${first.next_offset}`,
        );
      }
      const second = await call('GET', `/v1/execution/${executionId}/results?limit=1&offset=1`);
      if (second.result.rows.length !== 1)
        throw new SmokeFailure(`second page: ${JSON.stringify(second.result)}`);
      if (JSON.stringify(second.result.rows[0]) === JSON.stringify(first.result.rows[0])) {
        throw new SmokeFailure('the second page repeats the first');
      }
    });

    await step('return arrays and rows as JSON', async () => {
      const { execution_id } = await call('POST', '/v1/sql/execute', {
        sql: 'select outputs, ARRAY[id] as ids from bitcoin.transactions where output_count > 0 limit 1',
      });
      await waitForExecution(execution_id);
      const page = await call('GET', `/v1/execution/${execution_id}/results`);
      const [row] = page.result.rows as Json[];
      const outputs = row?.outputs;
      const ids = row?.ids;
      if (!Array.isArray(outputs) || typeof outputs[0]?.address !== 'string' || !/^0x/.test(ids?.[0])) {
        throw new SmokeFailure(`nested values not returned as JSON: ${JSON.stringify(row)}`);
      }
    });

    await step('create and refresh a materialized view', async () => {
      const source = await call('POST', '/v1/query', {
        name: `smoke view source ${suffix}`,
        query_sql: 'select blockchain, count(*) as trades from dex.trades group by 1',
        is_private: true,
      });
      createdQueries.push(source.query_id);
      const created = await call('POST', '/v1/materialized-views', {
        name: `result_smoke_${suffix}`,
        query_id: source.query_id,
      });
      viewName = created.name as string;
      await waitForExecution(created.execution_id);
      const refreshed = await call('POST', `/v1/materialized-views/${viewName}/refresh`, {});
      await waitForExecution(refreshed.execution_id);
    });

    await step('run a two-node pipeline (view refresh → report)', async () => {
      const report = await call('POST', '/v1/query', {
        name: `smoke report ${suffix}`,
        query_sql: `select sum(trades) as total_trades from ${viewName}`,
        is_private: true,
      });
      createdQueries.push(report.query_id);
      const definition = await call('GET', `/v1/query/${report.query_id}/pipeline`);
      if (definition.pipeline.nodes.length !== 2) {
        throw new SmokeFailure(`expected 2 nodes, got ${JSON.stringify(definition.pipeline.nodes)}`);
      }
      const { pipeline_execution_id } = await call(
        'POST',
        `/v1/query/${report.query_id}/pipeline/execute`,
        {},
      );
      const status = await poll(
        `pipeline ${pipeline_execution_id}`,
        () => call('GET', `/v1/pipelines/executions/${pipeline_execution_id}/status`),
        (s) => TERMINAL_PIPELINE.includes(s.status),
      );
      if (status.status !== 'completed')
        throw new SmokeFailure(`pipeline ended ${status.status}: ${JSON.stringify(status)}`);
    });

    await step('upload a table (CSV, then NDJSON) and read it back by SQL', async () => {
      const uploaded = await call('POST', '/v1/uploads/csv', {
        table_name: `smoke_${suffix}`,
        data: 'address,label\n0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2,weth\n',
        is_private: true,
      });
      uploadName = uploaded.full_name as string;
      const [, namespace, table] = uploadName.split('.');
      const inserted = await fetch(`${base}/v1/uploads/${namespace}/${table}/insert`, {
        method: 'POST',
        headers: { 'x-service-api-key': options.apiKey, 'content-type': 'application/x-ndjson' },
        body: `${JSON.stringify({ address: '0x4200000000000000000000000000000000000006', label: 'weth on base' })}\n`,
      });
      if (!inserted.ok)
        throw new SmokeFailure(`insert answered ${inserted.status}: ${await inserted.text()}`);
      const { execution_id } = await call('POST', '/v1/sql/execute', {
        // A CSV's 0x strings stay varchar, as on Dune: from_hex makes them varbinary.
        sql: `select count(*) as n, count_if(from_hex(address) = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2) as weth from ${uploadName}`,
      });
      await waitForExecution(execution_id);
      const [row] = (await call('GET', `/v1/execution/${execution_id}/results`)).result.rows as Json[];
      if (row?.n !== 2 || row?.weth !== 1) throw new SmokeFailure(`read back ${JSON.stringify(row)}`);
    });

    await step('MCP: listBlockchains, searchTables, getUsage', async () => {
      const client = new Client({ name: 'smoke', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp/v1`), {
          requestInit: { headers: { 'x-service-api-key': options.apiKey } },
        }),
      );
      try {
        for (const [name, args] of [
          ['listBlockchains', {}],
          ['searchTables', { query: 'swap', limit: 3 }],
          ['getUsage', {}],
        ] as const) {
          const result = (await client.callTool({ name, arguments: args })) as Json;
          if (result.isError || typeof result.structuredContent !== 'object') {
            throw new SmokeFailure(`${name}: ${JSON.stringify(result.content).slice(0, 500)}`);
          }
        }
      } finally {
        await client.close();
      }
    });
  } finally {
    // Best effort: leave the account as it was, and never hide the failure that got us here.
    if (viewName) await call('DELETE', `/v1/materialized-views/${viewName}`).catch(() => undefined);
    if (uploadName) {
      const [, namespace, table] = uploadName.split('.');
      await call('DELETE', `/v1/uploads/${namespace}/${table}`).catch(() => undefined);
    }
    for (const id of createdQueries) await call('POST', `/v1/query/${id}/archive`).catch(() => undefined);
  }
}

async function main(argv: string[]): Promise<number> {
  const [baseUrl, apiKey] = argv;
  if (!baseUrl || !apiKey) {
    console.error(
      'usage: npm run smoke -- <BASE_URL> <API_KEY>   (e.g. the stack output ApiUrl and a key from npm run admin)',
    );
    return 2;
  }
  console.log(`Smoke check of ${baseUrl}`);
  try {
    await runSmoke({ baseUrl, apiKey });
    console.log('Smoke check passed.');
    return 0;
  } catch {
    return 1;
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
