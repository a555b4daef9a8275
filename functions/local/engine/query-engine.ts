import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type EngineRunRequest,
  type EngineRunResult,
  type PerformanceTier,
  type QueryEngine,
  QueryFailure,
} from '../../core/engine';
import { EnginePool, type EnginePoolOptions, type PoolRunHandle } from './engine-pool';
import { relationSetup } from './relations';
import { isValidExecutionId, partialResultFilePath, resultFilePath } from './result-files';
import type { SandboxLimits } from './sandbox';
import { type EngineJob, formatBytes, parseDuckDbSize } from './sandbox-run';

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
}

export const DEFAULT_TIERS: Record<PerformanceTier, Required<TierLimits>> = {
  medium: { threads: 1, memoryLimit: '1GB', maxResultRows: 10_000_000, maxResultBytes: 1024 ** 3 },
  large: { threads: 2, memoryLimit: '2GB', maxResultRows: 50_000_000, maxResultBytes: 4 * 1024 ** 3 },
};

/**
 * The local SQL engine. Each run gets its own sandboxed DuckDB instance (see sandbox.ts and
 * README.md) over the read-only warehouse, sized by the run's tier, inside one of a bounded pool
 * of engine processes (engine-pool.ts): DuckDB never runs on the host's event loop or thread
 * pool, all accounts share a fair queue, and a query that will not stop or outgrows its memory
 * ends with its process, never with the host.
 */
export class DuckDbQueryEngine implements QueryEngine {
  private readonly tiers: Record<PerformanceTier, Required<TierLimits>>;
  private readonly spillDir: string;
  readonly pool: EnginePool;
  private readonly runs = new Map<string, PoolRunHandle>();
  private closed = false;

  constructor(private readonly options: DuckDbQueryEngineOptions) {
    this.tiers = {
      medium: { ...DEFAULT_TIERS.medium, ...options.tiers?.medium },
      large: { ...DEFAULT_TIERS.large, ...options.tiers?.large },
    };
    this.spillDir = options.spillDir ?? join(options.resultsDir, '.spill');
    this.pool = new EnginePool(options.pool);
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    if (this.closed) {
      throw new QueryFailure('engine_unavailable', 'The query engine is shutting down; try again.');
    }
    if (!isValidExecutionId(request.executionId)) {
      throw new Error(`Invalid execution id ${JSON.stringify(request.executionId)}`);
    }
    if (request.signal?.aborted) {
      throw new QueryFailure('cancelled', 'The query was cancelled before it started.');
    }
    const tier = this.tiers[request.tier];
    await mkdir(this.options.resultsDir, { recursive: true });
    const quotaLeft = request.storageBytesLeft;
    const quotaBinds = quotaLeft !== undefined && quotaLeft < tier.maxResultBytes;
    if (quotaBinds && quotaLeft <= 0) {
      throw new QueryFailure(
        'resource_exhausted',
        'Your result storage quota is used up; nothing new can be stored until older results expire. ' +
          'Check bytes_used and bytes_allowed with POST /v1/usage.',
      );
    }
    const { threads, memoryLimit } = tier;
    const job: EngineJob = {
      executionId: request.executionId,
      sql: request.sql,
      tier: request.tier,
      timeoutMs: request.timeoutMs,
      warehousePath: this.options.warehousePath,
      partialPath: partialResultFilePath(this.options.resultsDir, request.executionId),
      resultPath: resultFilePath(this.options.resultsDir, request.executionId),
      spillDirectory: join(this.spillDir, request.executionId),
      maxSpillSize: this.options.maxSpillSize ?? '4GB',
      limits: { threads, memoryLimit },
      relations: await relationSetup(this.options.resultsDir, request.relations ?? []),
      maxResultRows: tier.maxResultRows,
      maxResultBytes: quotaBinds ? quotaLeft : tier.maxResultBytes,
      resultBytesLimitReason: quotaBinds
        ? `what is left of your ${formatBytes(request.storageBytesQuota ?? quotaLeft)} result storage quota`
        : `the result size limit of the ${request.tier} tier`,
    };
    const maxRssBytes = parseDuckDbSize(memoryLimit) + (this.options.memoryHeadroomBytes ?? 256 * 1024 ** 2);
    const handle = this.pool.submit(request.accountId, job, maxRssBytes);
    this.runs.set(request.executionId, handle);
    const onAbort = () => handle.stop('cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await handle.result;
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      this.runs.delete(request.executionId);
    }
  }

  async cancel(executionId: string): Promise<void> {
    this.runs.get(executionId)?.stop('cancelled');
  }

  /** Stops the runs in flight (they fail as engine_unavailable) and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    await this.pool.close();
  }
}
