/**
 * The engine process: a child process of the local host that runs user queries, one at a time,
 * each in its own sandbox (runJob). It keeps DuckDB's work off the host's event loop and off the
 * libuv thread pool that the host's HTTP server, dynalite (LevelDB) and file reads share, and it
 * can be killed outright when a query will not stop or outgrows its memory. See engine-pool.ts.
 */
import type { DuckDBInstance } from '@duckdb/node-api';
import { QueryFailure } from '../../core/engine';
import { warmUpTranslator } from '../../dunesql';
import { createSandboxInstance, type ReusableSandbox } from './sandbox';
import {
  type EngineJob,
  type FailureData,
  failureData,
  runJob,
  type StopReason,
  stoppedFailure,
} from './sandbox-run';

export type ToEngineProcess =
  | { type: 'run'; job: EngineJob; maxRssBytes: number }
  | { type: 'stop'; reason: StopReason };

export type FromEngineProcess =
  | { type: 'ready' }
  | { type: 'done'; executionId: string; result: import('../../core/engine').EngineRunResult; rss: number }
  | { type: 'failed'; executionId: string; failure: FailureData; rss: number; fatal?: boolean };

/** How often the process measures its own memory while a query runs. */
const MEMORY_CHECK_MS = 20;

let stopCurrent: ((reason: StopReason) => void) | undefined;
/** A stop that came for the next run while it waited for the last one's cleanup (`settling`). */
let stopPending: StopReason | undefined;
/**
 * The last run's cleanup (its views detached, its sandbox closed or kept), done after its outcome
 * was sent so the host records it meanwhile; the next run starts once it is over.
 */
let settling: Promise<void> | undefined;

/**
 * The next run's DuckDB instance, created while this process is idle, so a run does not wait for
 * DuckDB to start (~12 ms of a cheap query). It serves one run, or becomes that run's reusable
 * sandbox (`warm` below), which serves only later runs of the same account and tier.
 */
let spare: { warehousePath: string; instance: Promise<DuckDBInstance> } | undefined;

function prepareSpare(warehousePath: string | undefined): void {
  if (!warehousePath || spare) return;
  const instance = createSandboxInstance(warehousePath);
  instance.catch(() => undefined); // the run that takes it opens its own instead
  spare = { warehousePath, instance };
}

/**
 * The reusable sandbox the last clean run left, for the next run of the same account and tier
 * (sandbox.ts, ReusableSandbox). One per process; closed when a run of another key comes, or
 * after a minute unused (it holds its buffer cache, up to the tier's memory limit).
 */
let warm: { key: string; sandbox: ReusableSandbox; idle: NodeJS.Timeout } | undefined;
const WARM_IDLE_MS = 60_000;

/** The warm sandbox if it is the job's; any other is closed (its memory is the next run's). */
function takeWarm(job: EngineJob): ReusableSandbox | undefined {
  const taken = warm;
  warm = undefined;
  if (!taken) return undefined;
  clearTimeout(taken.idle);
  if (job.reuse && taken.key === job.reuse.key) return taken.sandbox;
  taken.sandbox.close();
  return undefined;
}

function keepWarm(key: string, sandbox: ReusableSandbox): void {
  const idle = setTimeout(() => {
    if (warm?.sandbox === sandbox) warm = undefined;
    sandbox.close();
  }, WARM_IDLE_MS);
  idle.unref();
  warm = { key, sandbox, idle };
}

function takeSpare(warehousePath: string): Promise<DuckDBInstance> | undefined {
  if (spare?.warehousePath !== warehousePath) return undefined;
  const { instance } = spare;
  spare = undefined;
  return instance;
}

function send(message: FromEngineProcess, then?: () => void): void {
  process.send?.(message, undefined, {}, () => then?.());
}

async function run(job: EngineJob, maxRssBytes: number): Promise<void> {
  if (settling) await settling;
  if (stopPending) {
    const failure = stoppedFailure(stopPending, job, 0);
    stopPending = undefined;
    send({
      type: 'failed',
      executionId: job.executionId,
      failure: failureData(failure),
      rss: process.memoryUsage.rss(),
    });
    return;
  }
  const started = performance.now();
  let peak = 0;
  // Memory DuckDB's memory_limit does not see (a 2 GB string from repeat(), huge lists) still
  // counts: past the bound the process reports the failure and kills itself at once, since such
  // an allocation cannot be interrupted.
  const memoryWatch = setInterval(() => {
    const rss = process.memoryUsage.rss();
    peak = Math.max(peak, rss);
    if (rss <= maxRssBytes) return;
    clearInterval(memoryWatch);
    const failure = stoppedFailure(
      'memory',
      job,
      Math.round(performance.now() - started),
      `the engine process reached ${Math.round(rss / 1024 / 1024)} MiB`,
    );
    send(
      { type: 'failed', executionId: job.executionId, failure: failureData(failure), rss, fatal: true },
      () => process.kill(process.pid, 'SIGKILL'),
    );
  }, MEMORY_CHECK_MS);
  let cleanup: (() => Promise<void>) | undefined;
  try {
    const reusable = takeWarm(job);
    const result = await runJob(job, {
      onStop: (stop) => {
        stopCurrent = stop;
      },
      ...(reusable ? { reusable } : { freshInstance: takeSpare(job.warehousePath) }),
      deferCleanup: (work) => {
        cleanup = work;
      },
      keep: (sandbox) => {
        if (job.reuse) keepWarm(job.reuse.key, sandbox);
        else sandbox.close();
      },
    });
    send({ type: 'done', executionId: job.executionId, result, rss: process.memoryUsage.rss() });
  } catch (error) {
    const failure =
      error instanceof QueryFailure
        ? error
        : new QueryFailure('engine_unavailable', `The query engine failed: ${(error as Error).message}`);
    send({
      type: 'failed',
      executionId: job.executionId,
      failure: failureData(failure),
      rss: process.memoryUsage.rss(),
    });
  } finally {
    clearInterval(memoryWatch);
    stopCurrent = undefined;
    // After the outcome was sent: the run's sandbox closes and the next run's instance starts
    // while the host records this one.
    settling = (async () => {
      await cleanup?.().catch((error: unknown) =>
        console.error('engine process: cleanup after a run failed', error),
      );
      prepareSpare(job.warehousePath);
    })();
    await settling;
  }
}

process.on('message', (message: ToEngineProcess) => {
  if (message.type === 'run') {
    stopPending = undefined; // a stop meant for the previous run, come after it ended
    void run(message.job, message.maxRssBytes);
  } else if (message.type === 'stop') {
    if (stopCurrent) stopCurrent(message.reason);
    else stopPending = message.reason;
  }
});
// The host went away (even killed outright): nothing left to run for. Die at once: a normal exit
// runs DuckDB's destructors, which can wait forever on a query still running, and the process
// would outlive its host holding the query's files. The check also covers a disconnect that
// happened before this listener was attached (while the modules above were still loading).
const dieWithHost = () => process.kill(process.pid, 'SIGKILL');
process.on('disconnect', dieWithHost);
setInterval(() => {
  if (!process.connected) dieWithHost();
}, 1_000).unref();
// The DuneSQL translator is 24 MB of WASM (~240 ms to load idle, seconds under load, and as much
// again for the first translation's lazy compilation): warm it up once per process before taking
// runs, so no run (and no run's time limit) pays for it.
warmUpTranslator().then(
  () => {
    // The pool names the warehouse its runs read (argv): the first run's instance is ready too.
    prepareSpare(process.argv[2]);
    send({ type: 'ready' });
  },
  (error: unknown) => {
    console.error('engine process: the DuneSQL translator did not load', error);
    process.exit(1);
  },
);
