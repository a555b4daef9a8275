import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, type DuckDBType, StatementType } from '@duckdb/node-api';
import {
  type EngineRunRequest,
  type EngineRunResult,
  type PerformanceTier,
  type QueryEngine,
  QueryFailure,
  type QueryFailureType,
  type ResultColumn,
} from '../../core/engine';
import { toQueryFailure } from './duckdb-errors';
import { relationSetup } from './relations';
import {
  COLUMNS_METADATA_KEY,
  isValidExecutionId,
  partialResultFilePath,
  resultFilePath,
  sqlIdentifier,
  sqlString,
} from './result-files';
import { openSandbox, type Sandbox, type SandboxLimits } from './sandbox';
import { storageExpression } from './storage-types';

export type TierLimits = SandboxLimits;

export interface DuckDbQueryEngineOptions {
  /** The DuckDB warehouse file with the sample data; every run opens it read-only. */
  warehousePath: string;
  /** Where results are written, one `<executionId>.parquet` per run. */
  resultsDir: string;
  /** Threads and memory per performance tier; large gets about twice medium. */
  tiers?: Partial<Record<PerformanceTier, TierLimits>>;
  /** Parent of the per-run spill directories (default `<resultsDir>/.spill`). */
  spillDir?: string;
  /** Upper bound on what one run may spill to disk (default `4GB`). */
  maxSpillSize?: string;
}

export const DEFAULT_TIERS: Record<PerformanceTier, TierLimits> = {
  medium: { threads: 1, memoryLimit: '1GB' },
  large: { threads: 2, memoryLimit: '2GB' },
};

type StopReason = Extract<QueryFailureType, 'timeout' | 'cancelled' | 'engine_unavailable'>;

interface ActiveRun {
  stop(reason: StopReason): void;
  done: Promise<unknown>;
}

/** How often an interrupt is repeated until the statement actually stops (see run()). */
const INTERRUPT_REPEAT_MS = 50;

/**
 * The local SQL engine: each run gets its own sandboxed DuckDB instance (see sandbox.ts and
 * README.md) over the read-only warehouse, sized by the run's tier. The user's one SELECT is
 * checked with DuckDB's own parser, then executed as
 * `COPY (SELECT ... FROM query(?)) TO '<result>.parquet'`, the user's SQL passed as a bound
 * parameter, so DuckDB streams the result to disk and no row passes through JavaScript.
 */
export class DuckDbQueryEngine implements QueryEngine {
  private readonly tiers: Record<PerformanceTier, TierLimits>;
  private readonly spillDir: string;
  private readonly active = new Set<ActiveRun>();
  private closed = false;

  constructor(private readonly options: DuckDbQueryEngineOptions) {
    this.tiers = {
      medium: options.tiers?.medium ?? DEFAULT_TIERS.medium,
      large: options.tiers?.large ?? DEFAULT_TIERS.large,
    };
    this.spillDir = options.spillDir ?? join(options.resultsDir, '.spill');
  }

  async run(request: EngineRunRequest): Promise<EngineRunResult> {
    if (this.closed) {
      throw new QueryFailure('engine_unavailable', 'The query engine is shutting down; try again.');
    }
    if (!isValidExecutionId(request.executionId)) {
      throw new Error(`Invalid execution id ${JSON.stringify(request.executionId)}`);
    }
    const limits = this.tiers[request.tier];
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (request.signal?.aborted) {
      throw new QueryFailure('cancelled', 'The query was cancelled before it started.');
    }

    const resultPath = resultFilePath(this.options.resultsDir, request.executionId);
    const relations = await relationSetup(this.options.resultsDir, request.relations ?? []);
    const partialPath = partialResultFilePath(this.options.resultsDir, request.executionId);
    const spillDirectory = join(this.spillDir, request.executionId);
    await mkdir(this.options.resultsDir, { recursive: true });
    await rm(partialPath, { force: true });

    let sandbox: Sandbox | undefined;
    let stopReason: StopReason | undefined;
    let repeat: NodeJS.Timeout | undefined;
    const stop = (reason: StopReason) => {
      if (stopReason) return;
      stopReason = reason;
      // interrupt() only reaches a statement that is running; one that is queued on the worker
      // pool and about to start would miss it, so keep interrupting until the run settles.
      const interrupt = () => sandbox?.connection.interrupt();
      interrupt();
      repeat = setInterval(interrupt, INTERRUPT_REPEAT_MS);
    };
    const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
    const onAbort = () => stop('cancelled');
    request.signal?.addEventListener('abort', onAbort, { once: true });

    let settle!: () => void;
    const activeRun: ActiveRun = { stop, done: new Promise<void>((resolve) => (settle = resolve)) };
    this.active.add(activeRun);
    const context = { tier: request.tier, memoryLimit: limits.memoryLimit };
    try {
      try {
        sandbox = await openSandbox({
          databasePath: this.options.warehousePath,
          limits,
          allowedPaths: [partialPath, ...relations.files],
          prepare: relations.statements,
          spillDirectory,
          maxSpillSize: this.options.maxSpillSize ?? '4GB',
          errorsAsJson: true,
        });
      } catch (error) {
        throw new QueryFailure(
          'engine_unavailable',
          `The query engine could not start: ${error instanceof Error ? error.message : String(error)}`,
          undefined,
          elapsed(),
        );
      }
      const { connection } = sandbox;
      const columns = await describeStatement(connection, request.sql, elapsed, context);
      if (stopReason) throw new Error('stopped');
      const copy = await connection.run(copyStatement(columns, partialPath), [request.sql]);
      const rowCount = Number(copy.rowsChanged);
      await rename(partialPath, resultPath);
      const { size } = await stat(resultPath);
      return {
        columns: columns.map(({ name, type }) => ({ name, type })),
        rowCount,
        resultBytes: size,
        engineMillis: elapsed(),
      };
    } catch (error) {
      await rm(partialPath, { force: true });
      if (stopReason) throw stoppedFailure(stopReason, request, elapsed());
      if (error instanceof QueryFailure) throw error;
      // A statement that binds as a SELECT but is not one to query() (e.g. `PRAGMA version`).
      if (error instanceof Error && error.message.includes('Expected a single SELECT statement')) {
        throw notAQuery('PRAGMA and CALL', elapsed());
      }
      throw toQueryFailure(error, request.sql, elapsed(), context);
    } finally {
      clearTimeout(timer);
      if (repeat) clearInterval(repeat);
      request.signal?.removeEventListener('abort', onAbort);
      sandbox?.close();
      await rm(spillDirectory, { recursive: true, force: true });
      this.active.delete(activeRun);
      settle();
    }
  }

  /** Stops the runs in flight (they fail as engine_unavailable) and refuses new ones. */
  async close(): Promise<void> {
    this.closed = true;
    const runs = [...this.active];
    for (const run of runs) run.stop('engine_unavailable');
    await Promise.all(runs.map((run) => run.done));
  }
}

interface StatementColumn extends ResultColumn {
  engineType: DuckDBType;
}

/**
 * Parses and binds the user's SQL with DuckDB itself: exactly one statement, and a query
 * (SELECT, WITH, VALUES, FROM-first, DESCRIBE, SHOW, SUMMARIZE, PIVOT all bind as one). Returns the
 * result columns, with duplicate names made unique the way the Parquet writer would.
 */
async function describeStatement(
  connection: DuckDBConnection,
  sql: string,
  elapsed: () => number,
  context: { tier: string; memoryLimit: string },
): Promise<StatementColumn[]> {
  if (sql.trim().length === 0)
    throw new QueryFailure('syntax_error', 'The query is empty.', undefined, elapsed());
  let extracted: Awaited<ReturnType<DuckDBConnection['extractStatements']>>;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    // DuckDB reports SQL made only of comments or semicolons as a bare native error.
    if (error instanceof Error && !error.message.includes('{')) {
      throw new QueryFailure('syntax_error', 'The query contains no SQL statement.', undefined, elapsed());
    }
    throw toQueryFailure(error, sql, elapsed(), context);
  }
  if (extracted.count === 0) {
    throw new QueryFailure('syntax_error', 'The query contains no SQL statement.', undefined, elapsed());
  }
  if (extracted.count > 1) {
    throw new QueryFailure(
      'syntax_error',
      `Only one statement can run per query, but this SQL has ${extracted.count} statements separated by ";". ` +
        'Run them as separate queries (a single trailing ";" is fine).',
      undefined,
      elapsed(),
    );
  }
  let prepared: Awaited<ReturnType<typeof extracted.prepare>>;
  try {
    prepared = await extracted.prepare(0);
  } catch (error) {
    throw toQueryFailure(error, sql, elapsed(), context);
  }
  try {
    if (prepared.statementType !== StatementType.SELECT) {
      throw notAQuery(statementKind(prepared.statementType), elapsed());
    }
    if (prepared.parameterCount > 0) {
      throw new QueryFailure(
        'syntax_error',
        'Query parameters (?, $1, $name) are not supported; write the values into the query.',
        undefined,
        elapsed(),
      );
    }
    const seen = new Set<string>();
    const columns: StatementColumn[] = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      columns.push({
        name: uniqueName(prepared.columnName(i), seen),
        type: type.toString(),
        engineType: type,
      });
    }
    return columns;
  } finally {
    prepared.destroySync();
  }
}

const STATEMENT_KINDS: Partial<Record<StatementType, string>> = {
  [StatementType.LOAD]: 'INSTALL/LOAD',
  [StatementType.SET]: 'SET/RESET',
  [StatementType.VARIABLE_SET]: 'SET VARIABLE',
  [StatementType.COPY_DATABASE]: 'COPY DATABASE',
  [StatementType.CREATE_FUNC]: 'CREATE MACRO/FUNCTION',
  [StatementType.MERGE_INTO]: 'MERGE INTO',
  [StatementType.UPDATE_EXTENSIONS]: 'UPDATE EXTENSIONS',
};

function statementKind(type: StatementType): string {
  return STATEMENT_KINDS[type] ?? StatementType[type] ?? 'this kind of';
}

function notAQuery(kind: string, engineMillis: number): QueryFailure {
  return new QueryFailure(
    'permission_denied',
    'Only read-only queries can run here (SELECT, WITH ... SELECT, VALUES, FROM ..., DESCRIBE, SHOW, SUMMARIZE); ' +
      `${kind} statements are not allowed.`,
    undefined,
    engineMillis,
  );
}

/** Case-insensitively unique, like DuckDB's Parquet writer: `a`, `a_1`, `a_2`. */
function uniqueName(name: string, seen: Set<string>): string {
  let candidate = name;
  for (let n = 1; seen.has(candidate.toLowerCase()); n++) candidate = `${name}_${n}`;
  seen.add(candidate.toLowerCase());
  return candidate;
}

/**
 * The statement that stores the result. The user's SQL is the bound parameter of `query(?)`, never
 * spliced into this text; `query()` itself accepts only a single SELECT. Columns are renamed
 * positionally so duplicate or odd names survive, and cast where Parquet would lose exactness.
 */
function copyStatement(columns: StatementColumn[], path: string): string {
  const aliases = columns.map((_, i) => sqlIdentifier(`c${i}`));
  const projection = columns
    .map((column, i) => {
      const source = aliases[i]!;
      return `${storageExpression(column.engineType, source) ?? source} AS ${sqlIdentifier(column.name)}`;
    })
    .join(', ');
  const metadata = JSON.stringify(columns.map(({ name, type }) => ({ name, type })));
  return (
    `COPY (SELECT ${projection} FROM query(?) AS _result(${aliases.join(', ')})) ` +
    `TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd, USE_TMP_FILE false, ` +
    `KV_METADATA {${COLUMNS_METADATA_KEY}: ${sqlString(metadata)}})`
  );
}

function stoppedFailure(reason: StopReason, request: EngineRunRequest, engineMillis: number): QueryFailure {
  switch (reason) {
    case 'timeout':
      return new QueryFailure(
        'timeout',
        `Query exceeded the ${formatDuration(request.timeoutMs)} limit of the ${request.tier} tier and was stopped; ` +
          'filter on a narrower block_time range, aggregate, or select fewer columns' +
          (request.tier === 'large' ? '.' : ', or run it on the large tier.'),
        undefined,
        engineMillis,
      );
    case 'cancelled':
      return new QueryFailure('cancelled', 'The query was cancelled.', undefined, engineMillis);
    default:
      return new QueryFailure(
        'engine_unavailable',
        'The query engine shut down while the query ran; run it again.',
        undefined,
        engineMillis,
      );
  }
}

function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 120) return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
  const minutes = seconds / 60;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)} min`;
}
