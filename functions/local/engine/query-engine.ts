import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type EngineCheckRequest,
  type EngineRun,
  type EngineRunResult,
  type EngineRunStatus,
  type EngineSubmitRequest,
  type PerformanceTier,
  type QueryEngine,
  QueryFailure,
} from '../../core/engine';
import { RESULT_LIMITS, resultLimitOf, storageQuotaUsedUp } from '../../core/result-limits';
import { EnginePool, type EnginePoolOptions, type PoolRunHandle } from './engine-pool';
import { relationFiles } from './relations';
import {
  isValidExecutionId,
  partialResultFilePath,
  resultFilePath,
  SPILL_DIRECTORY,
  STAGING_DIRECTORY,
} from './result-files';
import type { SandboxLimits } from './sandbox';
import { type EngineJob, parseDuckDbSize, preparedStatement } from './sandbox-run';

export interface TierLimits extends SandboxLimits {
  /** Rows a stored result may have (default 10M on medium, 50M on large). */
  maxResultRows?: number;
  /** Bytes a stored result may take (default 1 GiB on medium, 4 GiB on large). */
  maxResultBytes?: number;
}

export interface DuckDbQueryEngineOptions {
  /** The DuckDB warehouse file with the sample data; every run opens it read-only. */
  warehousePath: string;
  /** Where results are written, one `<executionId>.parquet` per run. */
  resultsDir: string;
  /** Threads, memory and result size per performance tier; large gets about twice medium. */
  tiers?: Partial<Record<PerformanceTier, TierLimits>>;
  /** Parent of the per-run spill directories (default `<resultsDir>/.spill`). */
  spillDir?: string;
  /** Upper bound on what one run may spill to disk (default `4GB`). */
  maxSpillSize?: string;
  /** The engine processes: how many queries run at once, their priority, stop grace. */
  pool?: EnginePoolOptions;
  /**
   * Memory an engine process may use beyond the tier's memory limit before its query is stopped
   * (the process itself, and allocations DuckDB's limit does not track). Default 256 MiB.
   */
  memoryHeadroomBytes?: number;
  /**
   * Runs requests' SQL as raw DuckDB instead of translating it from DuneSQL. Only the engine's own
   * tests set it, to prove the sandbox on raw DuckDB SQL (the sandbox, not the translator, is the
   * security boundary); the host never does, so no user can reach it.
   */
  rawDuckDbForEngineTests?: boolean;
  /**
   * Translates DuneSQL but lets DuckDB's own function names through (`txid_current()`), which
   * users' SQL may not call. Only the engine's own tests set it, to observe a sandbox from inside.
   */
  duckDbFunctionsForEngineTests?: boolean;
}

/** A run submitted and awaited in one call (tests, benchmarks); aborting the signal cancels it. */
export interface EngineRunRequest extends EngineSubmitRequest {
  signal?: AbortSignal;
}

/** How long the outcome of an ended run stays readable by `status` (a retried poll reads it again). */
const OUTCOME_RETENTION_MS = 10 * 60_000;

interface LocalRun {
  handle: PoolRunHandle;
  outcome?: EngineRunStatus;
  /** Settles when the run ends. */
  ended: Promise<void>;
}

export const DEFAULT_TIERS: Record<PerformanceTier, Required<TierLimits>> = {
  medium: { threads: 1, memoryLimit: '1GB', ...RESULT_LIMITS.medium },
  large: { threads: 2, memoryLimit: '2GB', ...RESULT_LIMITS.large },
};

/**
 * The local SQL engine. Each run gets a sandboxed DuckDB instance of its own, or the reusable one
 * the previous run of its account and tier left (see sandbox.ts and
 * README.md) over the read-only warehouse, sized by the run's tier, inside one of a bounded pool
 * of engine processes (engine-pool.ts): DuckDB never runs on the host's event loop or thread
 * pool, all accounts share a fair queue, and a query that will not stop or outgrows its memory
 * ends with its process, never with the host.
 */
export class DuckDbQueryEngine implements QueryEngine {
  private readonly tiers: Record<PerformanceTier, Required<TierLimits>>;
  private readonly spillDir: string;
  readonly pool: EnginePool;
  private readonly runs = new Map<string, LocalRun>();
  private closed = false;
  /** The results directory, made once (each submit made it again, a file system call per run). */
  private resultsDirMade?: Promise<unknown>;

  constructor(private readonly options: DuckDbQueryEngineOptions) {
    this.tiers = {
      medium: { ...DEFAULT_TIERS.medium, ...options.tiers?.medium },
      large: { ...DEFAULT_TIERS.large, ...options.tiers?.large },
    };
    this.spillDir = options.spillDir ?? join(options.resultsDir, SPILL_DIRECTORY);
    this.pool = new EnginePool({ warehousePath: options.warehousePath, ...options.pool });
  }

  /**
   * Runs of one account and tier may share a reusable sandbox (sandbox.ts): they share a key and
   * a staging directory, the only place such a sandbox may write. Runs of other accounts never do.
   */
  private reuseOf(request: EngineSubmitRequest): EngineJob['reuse'] {
    const account = createHash('sha256').update(request.accountId).digest('hex').slice(0, 16);
    const key = `${account}-${request.tier}`;
    return { key, stagingDirectory: join(this.options.resultsDir, STAGING_DIRECTORY, key) };
  }

  private resultsDirReady(): Promise<unknown> {
    if (!this.resultsDirMade) {
      const made = mkdir(this.options.resultsDir, { recursive: true });
      made.catch(() => {
        if (this.resultsDirMade === made) this.resultsDirMade = undefined;
      });
      this.resultsDirMade = made;
    }
    return this.resultsDirMade;
  }

  /** Translated here, in the host's process: the engine processes may all be busy running queries. */
  async check(request: EngineCheckRequest): Promise<QueryFailure | undefined> {
    try {
      await preparedStatement(
        {
          sql: request.sql,
          ...this.dialect(),
          relations: relationFiles(this.options.resultsDir, request.relations ?? []),
        },
        () => 0,
      );
      return undefined;
    } catch (error) {
      if (error instanceof QueryFailure) return error;
      throw error;
    }
  }

  /** How jobs' SQL is read: DuneSQL, unless the engine's own tests asked otherwise. */
  private dialect(): Pick<EngineJob, 'dialect' | 'duckDbFunctions'> {
    return {
      dialect: this.options.rawDuckDbForEngineTests ? 'duckdb' : 'dunesql',
      ...(this.options.duckDbFunctionsForEngineTests ? { duckDbFunctions: true } : {}),
    };
  }

  /**
   * Queues the run in the engine pool and returns at once; the pool starts it when a process is
   * free (fairly across accounts). The execution id is the run's id.
   */
  async submit(request: EngineSubmitRequest): Promise<EngineRun> {
    if (this.closed) {
      throw new QueryFailure('engine_unavailable', 'The query engine is shutting down; try again.');
    }
    if (!isValidExecutionId(request.executionId)) {
      throw new Error(`Invalid execution id ${JSON.stringify(request.executionId)}`);
    }
    const known = this.runs.get(request.executionId);
    if (known) return this.runOf(request);
    const tier = this.tiers[request.tier];
    await this.resultsDirReady();
    const limit = resultLimitOf(request.tier, request, tier);
    if (limit.maxResultBytes <= 0) throw storageQuotaUsedUp();
    const { threads, memoryLimit } = tier;
    const reuse = this.options.rawDuckDbForEngineTests ? undefined : this.reuseOf(request);
    const job: EngineJob = {
      executionId: request.executionId,
      sql: request.sql,
      ...this.dialect(),
      tier: request.tier,
      timeoutMs: request.timeoutMs,
      warehousePath: this.options.warehousePath,
      partialPath: reuse
        ? join(reuse.stagingDirectory, `${request.executionId}.parquet.partial`)
        : partialResultFilePath(this.options.resultsDir, request.executionId),
      resultPath: resultFilePath(this.options.resultsDir, request.executionId),
      spillDirectory: join(this.spillDir, request.executionId),
      maxSpillSize: this.options.maxSpillSize ?? '4GB',
      limits: { threads, memoryLimit },
      relations: relationFiles(this.options.resultsDir, request.relations ?? []),
      maxResultRows: limit.maxResultRows,
      maxResultBytes: limit.maxResultBytes,
      resultBytesLimitReason: limit.resultBytesLimitReason,
      ...(reuse ? { reuse } : {}),
    };
    const maxRssBytes = parseDuckDbSize(memoryLimit) + (this.options.memoryHeadroomBytes ?? 256 * 1024 ** 2);
    const handle = this.pool.submit(request.accountId, job, maxRssBytes);
    const run: LocalRun = {
      handle,
      ended: handle.result.then(
        (result) => {
          run.outcome = { state: 'succeeded', result };
        },
        (failure: unknown) => {
          run.outcome = { state: 'failed', failure: asQueryFailure(failure) };
        },
      ),
    };
    void run.ended.then(() => {
      setTimeout(() => {
        if (this.runs.get(request.executionId) === run) this.runs.delete(request.executionId);
      }, OUTCOME_RETENTION_MS).unref();
    });
    this.runs.set(request.executionId, run);
    return this.runOf(request);
  }

  async status(run: EngineRun): Promise<EngineRunStatus> {
    const local = this.runs.get(run.engineRunId);
    if (!local) {
      return {
        state: 'failed',
        failure: new QueryFailure(
          'engine_unavailable',
          'The query engine no longer holds this run (the local host restarted); run the query again.',
        ),
      };
    }
    return local.outcome ?? { state: this.pool.stateOf(run.engineRunId) ?? 'running' };
  }

  async cancel(run: EngineRun): Promise<void> {
    this.runs.get(run.engineRunId)?.handle.stop('cancelled');
  }

  /** Wakes a local poller when the run starts or ends (at most `maxMillis` later). */
  async waitForChange(run: EngineRun, maxMillis: number): Promise<void> {
    const local = this.runs.get(run.engineRunId);
    if (!local || local.outcome) return;
    const before = this.pool.stateOf(run.engineRunId);
    const deadline = performance.now() + maxMillis;
    let timer: NodeJS.Timeout | undefined;
    const step = (resolve: () => void) => {
      if (local.outcome || this.pool.stateOf(run.engineRunId) !== before || performance.now() >= deadline)
        return resolve();
      timer = setTimeout(() => step(resolve), 10);
    };
    await Promise.race([local.ended, new Promise<void>((resolve) => step(resolve))]);
    clearTimeout(timer);
  }

  /** Submits the run and waits for its end (tests and benchmarks); throws its QueryFailure. */
  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    if (request.signal?.aborted) {
      throw new QueryFailure('cancelled', 'The query was cancelled before it started.');
    }
    const run = await this.submit(request);
    const onAbort = () => void this.cancel(run);
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // An abort while the job was being prepared (above) fired before anyone listened.
    if (request.signal?.aborted) onAbort();
    try {
      await this.runs.get(run.engineRunId)?.ended;
      const status = await this.status(run);
      if (status.state === 'succeeded') return status.result;
      if (status.state === 'failed') throw status.failure;
      throw new Error(`run ${run.engineRunId} ended without an outcome`);
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
    }
  }

  private runOf(request: EngineSubmitRequest): EngineRun {
    return {
      executionId: request.executionId,
      engineRunId: request.executionId,
      tier: request.tier,
      timeoutMs: request.timeoutMs,
      sql: request.sql,
    };
  }

  /** Stops the runs in flight (they fail as engine_unavailable) and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }
}

function asQueryFailure(error: unknown): QueryFailure {
  return error instanceof QueryFailure
    ? error
    : new QueryFailure('engine_unavailable', `The query engine failed: ${(error as Error).message}`);
}
