/**
 * The load generator of status-throughput.ts, run as a child process (forked with IPC) so that
 * autocannon does not share the server's event loop. Not a benchmark on its own.
 * Input: one JSON argument (LoadRequest); output: the LoadResult sent to the parent.
 */
import autocannon from 'autocannon';

export interface LoadRequest {
  url: string;
  headers: Record<string, string>;
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  total: number;
  latencyP50: number;
  latencyP99: number;
  latencyMax: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

async function main(): Promise<void> {
  const request = JSON.parse(process.argv[2] ?? '{}') as LoadRequest;
  if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(request.url)) {
    throw new Error(`only local targets are allowed, got ${request.url}`);
  }
  const options = { url: request.url, headers: request.headers, connections: request.connections };
  // Warm-up (handler modules load lazily, JIT), then the measured run.
  if (request.warmupSeconds > 0) await autocannon({ ...options, duration: request.warmupSeconds });
  const result = await autocannon({ ...options, duration: request.durationSeconds });
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
  const load: LoadResult = {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    latencyMax: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
  };
  process.send?.(load);
}

main().then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
