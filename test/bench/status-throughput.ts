/**
 * (c) Throughput of GET /v1/execution/{id}/status for a completed execution (API key header),
 * 50 connections for 10 s with autocannon, against two baselines on the same server:
 *   - an unknown route: the local HTTP server answers 404 itself, no handler runs;
 *   - the status route without an API key: the middy handler runs and answers 401 before any
 *     DynamoDB read (header normalisation, logging context, error mapping only).
 * The difference to the real status call is auth (API key + account reads) and the execution read
 * in dynalite, plus JSON of the status body.
 *
 * autocannon runs in a child process (autocannon-client.ts) so it does not share the server's
 * event loop; on a 2-core machine both still compete for the CPUs.
 *
 *   npx tsx test/bench/status-throughput.ts [--scale N]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadRequest, LoadResult } from './autocannon-client';
import {
  type Figure,
  median,
  ms,
  percentile,
  ratio,
  runBench,
  say,
  submitSql,
  waitFinished,
} from './support';

const CONNECTIONS = 50;
const DURATION_SECONDS = 10;
const WARMUP_SECONDS = 2;
/** Sequential in-process calls per store operation, to split the status cost. */
const STORE_CALLS = 300;
const CLIENT = fileURLToPath(new URL('./autocannon-client.ts', import.meta.url));

function load(request: LoadRequest): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // The child inherits this process's execArgv, which carries tsx's loader.
    const child = fork(CLIENT, [JSON.stringify(request)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: LoadResult | undefined;
    const killer = setTimeout(
      () => child.kill('SIGKILL'),
      (request.durationSeconds + request.warmupSeconds + 30) * 1000,
    );
    child.on('message', (message) => {
      result = message as LoadResult;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(killer);
      if (result) resolve(result);
      else reject(new Error(`autocannon client exited with code ${code} and no result`));
    });
  });
}

function describe(result: LoadResult): string {
  const codes = Object.entries(result.statusCodes)
    .map(([code, n]) => `${code}×${n}`)
    .join(' ');
  return (
    `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${ms(result.latencyP50)}, p99 ${ms(result.latencyP99)}, ` +
    `max ${ms(result.latencyMax)}, errors ${result.errors}, timeouts ${result.timeouts}, ` +
    `non-2xx ${result.non2xx} [${codes}]`
  );
}

await runBench('status-throughput', async (bench) => {
  const executionId = await submitSql(bench, 'select symbol, count(*) from prices.usd group by 1 order by 1');
  await waitFinished(bench, executionId, { everyMs: 20 });
  const { baseUrl, apiKey } = bench.host;
  const common = {
    connections: CONNECTIONS,
    durationSeconds: DURATION_SECONDS,
    warmupSeconds: WARMUP_SECONDS,
  };
  const targets: { label: string; request: { url: string; headers: Record<string, string> } }[] = [
    {
      label: 'status (auth + DynamoDB)',
      request: {
        url: `${baseUrl}/v1/execution/${executionId}/status`,
        headers: { 'x-service-api-key': apiKey },
      },
    },
    {
      label: 'unknown route (404, no handler)',
      request: { url: `${baseUrl}/v1/no-such-route`, headers: { 'x-service-api-key': apiKey } },
    },
    {
      label: 'status without key (401, handler, no DynamoDB)',
      request: { url: `${baseUrl}/v1/execution/${executionId}/status`, headers: {} },
    },
  ];
  // Where a status request's time goes: the store calls it makes, one at a time, no HTTP in front.
  const timeCalls = async (call: () => Promise<unknown>) => {
    const samples: number[] = [];
    const deadline = Date.now() + 30_000;
    for (let i = 0; i < STORE_CALLS && Date.now() < deadline; i++) {
      const t0 = performance.now();
      await call();
      samples.push(performance.now() - t0);
    }
    return samples.slice(Math.min(20, samples.length - 1));
  };
  const { services } = bench.host;
  // Imported here, after startBenchHost quieted the service logs.
  const { authenticateApiKey } = await import('../../functions/accounts/use-cases');
  const executionGet = await timeCalls(() => services.executions.get(executionId));
  const auth = await timeCalls(() => authenticateApiKey(services.accounts, apiKey));
  say(
    `in-process, sequential: executions.get median ${ms(median(executionGet))} (p90 ${ms(percentile(executionGet, 90))}), ` +
      `authenticateApiKey (2 reads) median ${ms(median(auth))} (p90 ${ms(percentile(auth, 90))})`,
  );
  const results: LoadResult[] = [];
  for (const target of targets) {
    say(
      `\n[${target.label}] ${CONNECTIONS} connections, ${DURATION_SECONDS} s (+${WARMUP_SECONDS} s warm-up)`,
    );
    const result = await load({ ...common, ...target.request });
    say(`  ${describe(result)}`);
    results.push(result);
  }
  const [status, notFound, unauthorized] = results as [LoadResult, LoadResult, LoadResult];
  const rps = (r: LoadResult) => `${r.requestsPerSecond.toFixed(0)} req/s`;
  const figures: Figure[] = [];
  for (const [label, baseline] of [
    ['404 no handler', notFound],
    ['401 handler only', unauthorized],
  ] as const) {
    figures.push(
      {
        bench: '(c) status',
        measure: `throughput vs ${label} (baseline/status = cost factor)`,
        value: rps(status),
        baseline: rps(baseline),
        ratio: ratio(baseline.requestsPerSecond, status.requestsPerSecond),
      },
      {
        bench: '(c) status',
        measure: `latency p50 vs ${label}`,
        value: ms(status.latencyP50),
        baseline: ms(baseline.latencyP50),
        ratio: ratio(status.latencyP50, baseline.latencyP50),
      },
      {
        bench: '(c) status',
        measure: `latency p99 vs ${label}`,
        value: ms(status.latencyP99),
        baseline: ms(baseline.latencyP99),
        ratio: ratio(status.latencyP99, baseline.latencyP99),
      },
    );
  }
  figures.push({
    bench: '(c) status',
    measure: 'store calls of one status request (in-process, sequential, median)',
    value: `auth ${ms(median(auth))} + executions.get ${ms(median(executionGet))}`,
    baseline: `${ms(1000 / status.requestsPerSecond)} per request at load`,
  });
  figures.push({
    bench: '(c) status',
    measure: 'errors / non-2xx (status run)',
    value: `${status.errors} errors, ${status.timeouts} timeouts, ${status.non2xx} non-2xx of ${status.total}`,
  });
  return figures;
});
