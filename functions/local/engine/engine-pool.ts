import { type ChildProcess, fork } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { availableParallelism, getPriority, setPriority, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EngineRunResult, QueryFailure } from '../../core/engine';
import { tsxLoader } from '../tsx-loader';
import type { FromEngineProcess, ToEngineProcess } from './engine-process';
import { type EngineJob, type StopReason, stoppedFailure, toFailure } from './sandbox-run';

export interface EnginePoolOptions {
  /** Engine processes, i.e. queries running at once across all accounts (default: sized to the machine). */
  size?: number;
  /**
   * Added to the engine processes' nice value, so the host's request path wins the CPU (the local
   * host uses 10; default 0).
   */
  niceness?: number;
  /** How long a stopped query may take to end before its process is killed (default 500 ms). */
  stopGraceMs?: number;
  /** An engine process whose RSS stays above this after a run is replaced (default 512 MiB). */
  recycleRssBytes?: number;
  /** The warehouse the runs read: each process opens the next run's DuckDB instance ahead. */
  warehousePath?: string;
}

const GIB = 1024 ** 3;

/**
 * Queries running at once on this machine: one per CPU (each medium run uses one DuckDB thread),
 * at most one per 2 GiB of memory (the large tier's limit), and at least two so one long query
 * does not hold up everyone else.
 */
export function defaultEngineConcurrency(): number {
  return Math.max(2, Math.min(availableParallelism(), Math.floor(totalmem() / (2 * GIB))));
}

export interface PoolRunHandle {
  result: Promise<EngineRunResult>;
  /** Stops the run: drops it from the queue, or interrupts it (and kills its process if it does not stop). */
  stop(reason: StopReason): void;
}

interface PoolRun {
  accountId: string;
  job: EngineJob;
  maxRssBytes: number;
  enqueuedAt: number;
  startedAt?: number;
  /**
   * When the run was asked to stop (a cancel, its time limit): engine time after this is the
   * engine's own stopping (an interrupt, or the grace before its process is killed), not charged.
   */
  stopRequestedAt?: number;
  /** The job went to its process: the query is running (before that it waits for a process). */
  running?: boolean;
  process?: EngineProcess;
  stopReason?: StopReason;
  timers: NodeJS.Timeout[];
  /** Settles when the run has its outcome. */
  done: Promise<void>;
  settle(outcome: { result: EngineRunResult } | { failure: QueryFailure }): void;
}

interface EngineProcess {
  child: ChildProcess;
  ready: Promise<void>;
  run?: PoolRun;
  /** The job it ran last, whose files are cleaned up if the process dies. */
  lastJob?: EngineJob;
  /** Why it killed itself (its run ends with this once the process is gone). */
  fatalFailure?: QueryFailure;
  exited: boolean;
  /** The reuse key of its last run that succeeded: it may hold that key's reusable sandbox. */
  warmKey?: string;
}

const PROCESS_SCRIPT = fileURLToPath(new URL('./engine-process.ts', import.meta.url));

/**
 * A pool of engine processes (engine-process.ts) with a global bound on queries running at once
 * and a fair queue across accounts: when a process frees up, the next run comes from the account
 * with the fewest runs in the engine (the longest-waiting one among equals), oldest first within
 * an account. Processes are started on demand, kept warm between runs (a run pays only its
 * sandbox open), run at a lower CPU priority, and are killed when a stopped query does not end
 * within the grace period or a query outgrows its memory.
 */
export class EnginePool {
  readonly size: number;
  private readonly processes = new Set<EngineProcess>();
  private readonly queues = new Map<string, PoolRun[]>();
  /** When each account last got a process: among accounts with as many runs, the one served longest ago goes next. */
  private readonly lastServed = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: EnginePoolOptions = {}) {
    this.size = Math.max(1, Math.floor(options.size ?? defaultEngineConcurrency()));
  }

  /** Starts engine processes ahead of the first runs (in the background), up to `count`. */
  warm(count = 1): void {
    while (!this.closed && this.processes.size < Math.min(count, this.size)) this.spawn();
  }

  submit(accountId: string, job: EngineJob, maxRssBytes: number): PoolRunHandle {
    let settle!: PoolRun['settle'];
    let markDone!: () => void;
    const done = new Promise<void>((resolve) => (markDone = resolve));
    const result = new Promise<EngineRunResult>((resolve, reject) => {
      settle = (outcome) => {
        markDone();
        if ('result' in outcome) resolve(outcome.result);
        else reject(outcome.failure);
      };
    });
    const run: PoolRun = {
      accountId,
      job,
      maxRssBytes,
      enqueuedAt: performance.now(),
      timers: [],
      done,
      settle,
    };
    if (this.closed) {
      settle({ failure: stoppedFailure('engine_unavailable', job, 0) });
    } else {
      const queue = this.queues.get(accountId) ?? [];
      // Oldest execution first (ids sort by creation time), whatever order the submits resolved
      // in: two runs submitted together may get here out of order.
      const later = queue.findIndex((queued) => queued.job.executionId > job.executionId);
      queue.splice(later === -1 ? queue.length : later, 0, run);
      this.queues.set(accountId, queue);
      this.pump();
    }
    return { result, stop: (reason) => this.stop(run, reason) };
  }

  /** Runs in the engine now and waiting for it. */
  get load(): { running: number; queued: number; processes: number } {
    let queued = 0;
    for (const queue of this.queues.values()) queued += queue.length;
    return { running: this.runningCount(), queued, processes: this.processes.size };
  }

  /** Process ids of the engine processes (to measure their memory). */
  get pids(): number[] {
    return [...this.processes].flatMap((p) => (p.child.pid === undefined ? [] : [p.child.pid]));
  }

  /** Whether the engine still holds this execution (queued or running). */
  holds(executionId: string): boolean {
    return this.stateOf(executionId) !== undefined;
  }

  /**
   * `running` once the query went to its engine process; `queued` while it waits for a process
   * (or for the process to start); undefined when the pool does not hold it.
   */
  stateOf(executionId: string): 'queued' | 'running' | undefined {
    for (const p of this.processes)
      if (p.run?.job.executionId === executionId) return p.run.running ? 'running' : 'queued';
    for (const queue of this.queues.values())
      if (queue.some((r) => r.job.executionId === executionId)) return 'queued';
    return undefined;
  }

  /** Fails queued runs, stops running ones (engine_unavailable) and ends every process. */
  async close(): Promise<void> {
    this.closed = true;
    for (const queue of this.queues.values()) {
      for (const run of [...queue]) this.stop(run, 'engine_unavailable');
    }
    const running = [...this.processes].flatMap((p) => (p.run ? [p.run] : []));
    for (const run of running) this.stop(run, 'engine_unavailable');
    await Promise.all(running.map((run) => run.done));
    await Promise.all(
      [...this.processes].map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.exited) return resolve();
            p.child.once('exit', () => resolve());
            // An idle process exits when the host disconnects; one that does not is killed.
            if (p.child.connected) p.child.disconnect();
            setTimeout(() => p.child.kill('SIGKILL'), 2000).unref();
          }),
      ),
    );
  }

  private runningCount(): number {
    let running = 0;
    for (const p of this.processes) if (p.run) running++;
    return running;
  }

  private stop(run: PoolRun, reason: StopReason): void {
    if (!run.process) {
      const queue = this.queues.get(run.accountId);
      const index = queue?.indexOf(run) ?? -1;
      if (index >= 0) {
        queue!.splice(index, 1);
        if (queue!.length === 0) this.queues.delete(run.accountId);
        run.settle({ failure: stoppedFailure(reason, run.job, 0) });
      }
      return;
    }
    if (run.stopReason || run.process.run !== run) return;
    run.stopReason = reason;
    run.stopRequestedAt = performance.now();
    const { process: engineProcess } = run;
    send(engineProcess, { type: 'stop', reason });
    // DuckDB's interrupt stops a query between chunks, usually within milliseconds; a query stuck
    // in one long call (a huge allocation, a slow function) ends with its process.
    run.timers.push(
      setTimeout(() => {
        if (engineProcess.run === run) engineProcess.child.kill('SIGKILL');
      }, this.options.stopGraceMs ?? 500),
    );
  }

  /** Starts queued runs while processes are free, fairly across accounts. */
  private pump(): void {
    while (!this.closed && this.runningCount() < this.size) {
      const run = this.nextRun();
      if (!run) return;
      // A process that may hold the run's reusable sandbox first: its cache is warm.
      const free = [...this.processes].filter((p) => !p.run && !p.exited);
      const key = run.job.reuse?.key;
      const engineProcess =
        free.find((p) => key !== undefined && p.warmKey === key) ?? free[0] ?? this.spawn();
      this.start(run, engineProcess);
    }
  }

  private nextRun(): PoolRun | undefined {
    const runningByAccount = new Map<string, number>();
    for (const p of this.processes) {
      if (p.run) runningByAccount.set(p.run.accountId, (runningByAccount.get(p.run.accountId) ?? 0) + 1);
    }
    let best: PoolRun[] | undefined;
    let bestKey: number[] | undefined;
    for (const [accountId, queue] of this.queues) {
      const key = [
        runningByAccount.get(accountId) ?? 0,
        this.lastServed.get(accountId) ?? Number.NEGATIVE_INFINITY,
        queue[0]!.enqueuedAt,
      ];
      if (!bestKey || isBefore(key, bestKey)) {
        best = queue;
        bestKey = key;
      }
    }
    const run = best?.shift();
    if (!run) return undefined;
    if (best!.length === 0) this.queues.delete(run.accountId);
    this.lastServed.set(run.accountId, performance.now());
    return run;
  }

  private start(run: PoolRun, engineProcess: EngineProcess): void {
    if (run.job.reuse) {
      // A reusable sandbox keeps the spill directory it was opened with: one per process and key.
      const spillDirectory = join(
        dirname(run.job.spillDirectory),
        `${run.job.reuse.key}-${engineProcess.child.pid}`,
      );
      run.job = { ...run.job, spillDirectory };
    }
    engineProcess.run = run;
    engineProcess.lastJob = run.job;
    run.process = engineProcess;
    run.startedAt = performance.now();
    engineProcess.ready.then(
      () => {
        if (engineProcess.run === run && !run.stopReason) {
          // The time limit counts from here: waiting for a process (or its start) is not the query's time.
          run.startedAt = performance.now();
          run.running = true;
          run.timers.push(setTimeout(() => this.stop(run, 'timeout'), run.job.timeoutMs));
          send(engineProcess, { type: 'run', job: run.job, maxRssBytes: run.maxRssBytes });
        } else if (engineProcess.run === run) {
          this.finish(engineProcess, { failure: stoppedFailure(run.stopReason!, run.job, 0) });
        }
      },
      () => undefined, // the exit handler fails the run
    );
  }

  private spawn(): EngineProcess {
    const child = fork(PROCESS_SCRIPT, this.options.warehousePath ? [this.options.warehousePath] : [], {
      execArgv: [
        // The DuneSQL translator's WASM with V8's baseline compiler only: optimizing it as it runs
        // grew an engine process by ~300 MB for no faster translations (test/bench/README.md).
        '--liftoff-only',
        ...(PROCESS_SCRIPT.endsWith('.ts') ? ['--import', tsxLoader()] : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    if (child.pid !== undefined) {
      try {
        setPriority(child.pid, Math.min(19, getPriority() + (this.options.niceness ?? 0)));
      } catch {
        // Not allowed here: the processes run at the host's priority.
      }
    }
    let markReady!: () => void;
    let markFailed!: (error: Error) => void;
    const engineProcess: EngineProcess = {
      child,
      exited: false,
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        markFailed = reject;
      }),
    };
    engineProcess.ready.catch(() => undefined);
    child.on('message', (message: FromEngineProcess) => {
      if (message.type === 'ready') return markReady();
      const { run } = engineProcess;
      if (!run || run.job.executionId !== message.executionId) return;
      if (message.type === 'failed' && message.fatal) {
        // The process kills itself: the run ends when it is gone and its files are removed.
        engineProcess.fatalFailure = toFailure(message.failure);
        child.kill('SIGKILL');
        return;
      }
      if (message.type === 'done') {
        engineProcess.warmKey = engineProcess.run?.job.reuse?.key;
        this.finish(engineProcess, { result: message.result });
      } else this.finish(engineProcess, { failure: toFailure(message.failure) });
      if (message.rss > (this.options.recycleRssBytes ?? 512 * 1024 ** 2)) child.kill('SIGKILL');
      else this.pump();
    });
    child.on('error', () => undefined); // reported through 'exit'
    child.on('exit', (code, signal) => {
      engineProcess.exited = true;
      markFailed(new Error(`engine process exited (${signal ?? code})`));
      this.processes.delete(engineProcess);
      const { run, lastJob } = engineProcess;
      const engineMillis = Math.round(performance.now() - (run?.startedAt ?? 0));
      void (lastJob ? cleanUp(lastJob) : Promise.resolve()).finally(() => {
        if (run) {
          this.finish(engineProcess, {
            failure:
              engineProcess.fatalFailure ??
              (run.stopReason
                ? stoppedFailure(run.stopReason, run.job, engineMillis)
                : new QueryFailure(
                    'engine_unavailable',
                    `The query engine process ended unexpectedly (${signal ?? `exit code ${code}`}); run the query again.`,
                    undefined,
                    engineMillis,
                  )),
          });
        }
        this.pump();
      });
    });
    this.processes.add(engineProcess);
    return engineProcess;
  }

  private finish(engineProcess: EngineProcess, outcome: Parameters<PoolRun['settle']>[0]): void {
    const { run } = engineProcess;
    if (!run) return;
    engineProcess.run = undefined;
    for (const timer of run.timers) clearTimeout(timer);
    // A run stopped from outside reports why it was stopped, even if the process said otherwise,
    // and the engine time up to the stop request: a query that does not heed the interrupt runs
    // on until its process is killed, and that grace is not the caller's to pay.
    if ('failure' in outcome && run.stopReason) {
      const failure =
        outcome.failure.type === 'engine_unavailable'
          ? stoppedFailure(run.stopReason, run.job, outcome.failure.engineMillis)
          : outcome.failure;
      run.settle({ failure: withEngineMillisUntil(failure, run) });
    } else {
      run.settle(outcome);
    }
  }
}

/** The failure with its engine time cut at the run's stop request (when it ran past it). */
function withEngineMillisUntil(failure: QueryFailure, run: PoolRun): QueryFailure {
  if (run.stopRequestedAt === undefined || run.startedAt === undefined) return failure;
  const untilStop = Math.max(0, Math.round(run.stopRequestedAt - run.startedAt));
  if (failure.engineMillis <= untilStop) return failure;
  return new QueryFailure(failure.type, failure.message, failure.position, untilStop, failure.scannedBytes);
}

/** Lexicographic order of sort keys. */
function isBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

function send(engineProcess: EngineProcess, message: ToEngineProcess): void {
  if (engineProcess.exited || !engineProcess.child.connected) return;
  engineProcess.child.send(message, (error) => {
    if (error) engineProcess.child.kill('SIGKILL');
  });
}

/** A killed process leaves its partial result and spill files behind. */
async function cleanUp(job: EngineJob): Promise<void> {
  await rm(job.partialPath, { force: true });
  await rm(job.spillDirectory, { recursive: true, force: true });
}
