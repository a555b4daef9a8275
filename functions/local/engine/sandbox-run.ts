import { existsSync, readdirSync, statSync } from 'node:fs';
import { link as fsLink, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type DuckDBConnection, type DuckDBInstance, type DuckDBType, StatementType } from '@duckdb/node-api';
import { athenaTableSchemas } from '../../aws/catalog/glue-tables';
import {
  type EngineRunResult,
  type PerformanceTier,
  QueryFailure,
  type QueryFailureType,
  type ResultColumn,
} from '../../core/engine';
import { resultTooLarge } from '../../core/result-limits';
import { duneSqlTypeName, timestampZone, YEAR_MONTH_INTERVAL } from '../../core/sql-types';
import { BASE_TABLES } from '../../datasets/base-tables';
import {
  DUCKDB_GLOBAL_SETTINGS,
  DuneSqlError,
  listedTables,
  sessionMacrosFor,
  translate,
} from '../../dunesql';
import { yearMonthIntervalText } from '../../dunesql/duckdb-target';
import { dunesqlFailure, type RanStatement, toQueryFailure } from './duckdb-errors';
import { type RelationFile, relationSetup } from './relations';
import { COLUMNS_METADATA_KEY, sqlIdentifier, sqlString } from './result-files';
import {
  createSandboxInstance,
  openReusableSandbox,
  openSandbox,
  type ReusableSandbox,
  type Sandbox,
  type SandboxLimits,
} from './sandbox';
import { BoundedCache } from './statement-cache';
import { storageExpression } from './storage-types';

/**
 * One query run as the engine process executes it: everything it needs is in here (paths,
 * limits), so it crosses the process boundary as plain data.
 */
export interface EngineJob {
  executionId: string;
  /** The user's SQL: DuneSQL, translated to DuckDB in the engine process before it runs. */
  sql: string;
  /**
   * `duckdb` runs `sql` as written, untranslated. Only the engine's own tests set it (to prove the
   * sandbox on raw DuckDB SQL: the sandbox, not the translator, is the security boundary); no
   * user-facing path can (see DuckDbQueryEngineOptions.rawDuckDbForEngineTests).
   */
  dialect: 'dunesql' | 'duckdb';
  /** DuneSQL with DuckDB's function names allowed: engine tests only (DuckDbQueryEngineOptions). */
  duckDbFunctions?: boolean;
  tier: PerformanceTier;
  timeoutMs: number;
  warehousePath: string;
  /** Where the result is written, then renamed to `resultPath` on success. */
  partialPath: string;
  resultPath: string;
  /** This run's private spill directory (created before the run, removed after it). */
  spillDirectory: string;
  maxSpillSize: string;
  limits: SandboxLimits;
  /** Stored results the SQL may read by name (materialized views); views over those it reads are set up. */
  relations: RelationFile[];
  /**
   * Set when the run may use a reusable sandbox (sandbox.ts, ReusableSandbox): runs of one account
   * and tier share `key`; `partialPath` is then inside `stagingDirectory`, the only place such a
   * sandbox may write.
   */
  reuse?: { key: string; stagingDirectory: string };
  /** Rows and bytes the stored result may have; more fails the run `resource_exhausted`. */
  maxResultRows: number;
  maxResultBytes: number;
  /** Why the byte limit is what it is (the tier's limit, or what is left of the storage quota). */
  resultBytesLimitReason: string;
}

/** Why a run was stopped before it finished. */
export type StopReason =
  | Extract<QueryFailureType, 'timeout' | 'cancelled' | 'engine_unavailable'>
  | 'result_too_large'
  | 'spill_too_large'
  | 'memory';

/** A QueryFailure as plain data (what crosses the process boundary). */
export interface FailureData {
  type: QueryFailureType;
  message: string;
  position?: { line: number; column: number };
  engineMillis: number;
}

export function failureData(failure: QueryFailure): FailureData {
  return {
    type: failure.type,
    message: failure.message,
    ...(failure.position ? { position: failure.position } : {}),
    engineMillis: failure.engineMillis,
  };
}

export function toFailure(data: FailureData): QueryFailure {
  return new QueryFailure(data.type, data.message, data.position, data.engineMillis);
}

/** How often an interrupt is repeated until the statement actually stops (see runJob()). */
const INTERRUPT_REPEAT_MS = 50;

/** Translations by DuneSQL text, and result columns by DuckDB text (statement-cache.ts). */
const translations = new BoundedCache<RanStatement>(500);
const describedColumns = new BoundedCache<StatementColumn[]>(500);

/** How often the growing result file and spill directory are measured against their limits. */
const DISK_CHECK_MS = 100;

export interface RunControl {
  /** Called with a function that stops the run (the engine process's stop message, a watchdog). */
  onStop(stop: (reason: StopReason) => void): void;
  /** Extra detail for the failure message of a stop (e.g. the memory the process had reached). */
  detail?: () => string | undefined;
  /** A new, unused DuckDB instance on the job's warehouse, created ahead (createSandboxInstance). */
  freshInstance?: Promise<DuckDBInstance>;
  /**
   * Takes the cleanup of a run that succeeded without spilling (closing its sandbox) to do once
   * the outcome is reported, off the query's path. Absent: cleaned up before returning. A failed
   * run, or one that spilled, is always cleaned up before it is reported.
   */
  deferCleanup?: (cleanup: () => Promise<void>) => void;
  /** The reusable sandbox the previous run of the job's reuse key left (engine-process.ts). */
  reusable?: ReusableSandbox;
  /** Takes back a reusable sandbox after a run that succeeded without spilling; else it is closed. */
  keep?: (sandbox: ReusableSandbox) => void;
}

/**
 * Runs one job in a sandbox, new or reusable (see sandbox.ts and README.md): the user's DuneSQL is translated
 * to DuckDB (functions/dunesql; the statement's session setup, settings and helper macros, runs on
 * the run's connection before the sandbox locks), the one SELECT is checked with DuckDB's own
 * parser, then executed as `COPY (SELECT ... FROM query(?) LIMIT n) TO '<result>.parquet'`, the SQL
 * passed as a bound parameter, so DuckDB streams the result to disk and no row passes through
 * JavaScript. Errors are positioned in the SQL the user wrote.
 */
export async function runJob(job: EngineJob, control: RunControl): Promise<EngineRunResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let sandbox: Sandbox | undefined;
  let reusable: ReusableSandbox | undefined;
  let connection: DuckDBConnection | undefined;
  /** Catalogs of views attached to a reusable sandbox by this run. */
  let attached: string[] = [];
  let stopReason: StopReason | undefined;
  let repeat: NodeJS.Timeout | undefined;
  const stop = (reason: StopReason) => {
    if (stopReason) return;
    stopReason = reason;
    // interrupt() only reaches a statement that is running; one about to start would miss it,
    // so keep interrupting until the run settles.
    const interrupt = () => connection?.interrupt();
    interrupt();
    repeat = setInterval(interrupt, INTERRUPT_REPEAT_MS);
  };
  control.onStop(stop);
  // The result file grows while DuckDB writes it, and the spill directory while it sorts or
  // joins beyond memory (DuckDB's own max_temp_directory_size does not bound every operator):
  // stop as soon as either passes its limit. Synchronous stats: this process's thread pool may be
  // busy with the query.
  const maxSpillBytes = parseDuckDbSize(job.maxSpillSize);
  const diskWatch = setInterval(() => {
    if (fileSize(job.partialPath) > job.maxResultBytes) stop('result_too_large');
    if (directorySize(job.spillDirectory) > maxSpillBytes) stop('spill_too_large');
  }, DISK_CHECK_MS);
  const context = { tier: job.tier, memoryLimit: job.limits.memoryLimit, maxSpillSize: job.maxSpillSize };
  let statement: RanStatement = { sql: job.sql };
  let succeeded = false;
  // On a reusable sandbox, views read links to their files in the staging directory (the only
  // place it may read), made for this run and removed after it.
  const links = job.reuse ? join(job.reuse.stagingDirectory, `${job.executionId}.views`) : undefined;
  let linked = false;
  try {
    statement = await preparedStatement(job, elapsed);
    const relations = await relationSetup(
      job.sql,
      links
        ? job.relations.map((r) => ({ ...r, paths: r.paths.map((path) => join(links, basename(path))) }))
        : job.relations,
      job.dialect,
    );
    if (stopReason) throw new Error('stopped');
    // The files are made ready while the sandbox opens. DuckDB creates only the last level of its
    // temp directory (the run's own, created when it first spills).
    const filesReady = Promise.all([
      rm(job.partialPath, { force: true }),
      mkdir(dirname(job.partialPath), { recursive: true }),
      mkdir(dirname(job.spillDirectory), { recursive: true }),
    ]);
    // A pre-created instance that failed to open is no reason to fail the run: open one now.
    const fresh = () => control.freshInstance?.catch(() => createSandboxInstance(job.warehousePath));
    // A translated run may run on (and leave for the next run of its account and tier) a reusable
    // sandbox. Its views are attached instance-wide: they are detached again after the run.
    const reuse = job.reuse && statement.translation ? job.reuse : undefined;
    if (links && relations.files.length) {
      linked = true;
      await linkRelationFiles(links, job.relations, relations.files);
    }
    try {
      if (reuse) {
        reusable =
          control.reusable ??
          (await openReusableSandbox(
            {
              databasePath: job.warehousePath,
              limits: job.limits,
              stagingDirectory: reuse.stagingDirectory,
              spillDirectory: job.spillDirectory,
              maxSpillSize: job.maxSpillSize,
              errorsAsJson: true,
              duneFunctions: true,
              global: DUCKDB_GLOBAL_SETTINGS,
            },
            fresh(),
          ));
        connection = await reusable.connect();
        const setup = [sessionMacrosFor(statement.translation!.sql), ...relations.statements].filter(Boolean);
        if (setup.length) await connection.run(setup.join(';\n'));
        attached = relations.catalogs;
      } else {
        control.reusable?.close();
        sandbox = await openSandbox(
          {
            databasePath: job.warehousePath,
            limits: job.limits,
            allowedPaths: [job.partialPath, ...relations.files],
            prepare: [
              ...(statement.translation?.sessionSetup ? [statement.translation.sessionSetup] : []),
              ...relations.statements,
            ],
            spillDirectory: job.spillDirectory,
            maxSpillSize: job.maxSpillSize,
            errorsAsJson: true,
            duneFunctions: true,
          },
          fresh(),
        );
        connection = sandbox.connection;
      }
    } catch (error) {
      throw new QueryFailure(
        'engine_unavailable',
        `The query engine could not start: ${error instanceof Error ? error.message : String(error)}`,
        undefined,
        elapsed(),
      );
    }
    await filesReady;
    // A view's columns change with its versions: SQL that reads one is described every time.
    const columnsKey = relations.statements.length ? undefined : `${job.warehousePath}\n${statement.sql}`;
    let columns = columnsKey === undefined ? undefined : describedColumns.get(columnsKey);
    if (!columns) {
      columns = await describeStatement(connection, statement, elapsed, context);
      if (columnsKey !== undefined) describedColumns.set(columnsKey, columns);
    }
    if (stopReason) throw new Error('stopped');
    const copy = await connection.run(copyStatement(columns, job.partialPath, job.maxResultRows), [
      statement.sql,
    ]);
    const rowCount = Number(copy.rowsChanged);
    if (stopReason) throw new Error('stopped');
    if (rowCount > job.maxResultRows) throw resultTooLarge(job, 'rows', elapsed());
    const { size } = await stat(job.partialPath);
    if (size > job.maxResultBytes) throw resultTooLarge(job, 'bytes', elapsed());
    await rename(job.partialPath, job.resultPath);
    succeeded = true;
    return {
      columns: columns.map(({ name, type }) => ({ name, type })),
      rowCount,
      resultBytes: size,
      engineMillis: elapsed(),
    };
  } catch (error) {
    await rm(job.partialPath, { force: true });
    if (stopReason) throw stoppedFailure(stopReason, job, elapsed(), control.detail?.());
    if (error instanceof QueryFailure) throw error;
    // A statement that binds as a SELECT but is not one to query() (e.g. `PRAGMA version`).
    if (error instanceof Error && error.message.includes('Expected a single SELECT statement')) {
      throw notAQuery('PRAGMA and CALL', elapsed());
    }
    throw await toQueryFailure(error, statement, elapsed(), context);
  } finally {
    clearInterval(diskWatch);
    if (repeat) clearInterval(repeat);
    const spilled = existsSync(job.spillDirectory);
    const open = sandbox;
    const used = reusable;
    const cleanup = async () => {
      if (used) {
        // The run's views and their links go, then its connection; the sandbox stays for the next
        // run only after a clean run whose views are gone.
        const clean = succeeded && !spilled && (await removeViews(connection, attached, job));
        connection?.closeSync();
        if (clean && control.keep) control.keep(used);
        else used.close();
      }
      if (linked) await rm(links!, { recursive: true, force: true });
      open?.close();
      await rm(job.spillDirectory, { recursive: true, force: true });
    };
    // A run that spilled removes its spill files before it is reported, as a failed run does.
    // Detaching a view-reading run's views (1-5 ms) is deferred too: its reader waits for it.
    if (succeeded && control.deferCleanup && !spilled) control.deferCleanup(cleanup);
    else await cleanup();
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // not created yet
  }
}

function directorySize(path: string): number {
  try {
    return readdirSync(path).reduce((sum, name) => sum + fileSize(join(path, name)), 0);
  } catch {
    return 0;
  }
}

interface StatementColumn extends ResultColumn {
  engineType: DuckDBType;
}

/**
 * What no dialect accepts, said plainly before any parser sees it: empty SQL, and a NUL character
 * (DuckDB's C API ends the text at a NUL and reports whatever that cut leaves, often an
 * "unterminated quoted string").
 */
function checkText(sql: string, elapsed: () => number): void {
  if (sql.trim().length === 0)
    throw new QueryFailure('syntax_error', 'The query is empty.', undefined, elapsed());
  const nul = sql.indexOf('\0');
  if (nul >= 0) {
    const position = positionOf(sql, nul);
    throw new QueryFailure(
      'syntax_error',
      `The query contains a NUL character (\\0) at line ${position.line}, column ${position.column}; remove it.`,
      position,
      elapsed(),
    );
  }
}

/** The base tables with their Trino types (as Athena has them), for the translation's typing. */
const TYPED_BASE_TABLES = athenaTableSchemas(BASE_TABLES);

/** What decides how a job's SQL is prepared to run. */
export type StatementJob = Pick<EngineJob, 'sql' | 'dialect' | 'duckDbFunctions' | 'relations'>;

/**
 * The job's SQL as DuckDB runs it, or the QueryFailure a run would end with before it starts (the
 * text, then the DuneSQL translation): a run and a check of SQL that is not run (the engine's
 * `check`) refuse alike.
 */
export async function preparedStatement(job: StatementJob, elapsed: () => number): Promise<RanStatement> {
  checkText(job.sql, elapsed);
  return toDuckDb(job, elapsed);
}

/** The job's SQL as DuckDB runs it: DuneSQL translated, or (engine tests only) as written. */
async function toDuckDb(job: StatementJob, elapsed: () => number): Promise<RanStatement> {
  if (job.dialect === 'duckdb') return { sql: job.sql };
  // Uploaded tables' declared types take part (a text column compared with varbinary is refused),
  // and views' column types (a date plus a view's interval column stays a date).
  const uploads = job.relations
    .filter((relation) => relation.format === 'upload')
    .map(({ schema, name, columns }) => ({ schema, name, columns }));
  const stored = job.relations
    .filter((relation) => relation.format === 'result')
    .map(({ schema, name, columns }) => ({ schema, name, columns }));
  const views = stored.map(({ schema, name, columns }) => ({
    schema,
    name,
    columns: columns.map((column) => ({ name: column.name, type: duneSqlTypeName(column.type) })),
  }));
  const key =
    (job.duckDbFunctions ? 'duckdb functions\n' : '') +
    (uploads.length || stored.length
      ? `${job.sql}\n${JSON.stringify(uploads)}\n${JSON.stringify(stored)}`
      : job.sql);
  const known = translations.get(key);
  if (known) return known;
  try {
    const tables = views.length ? [...TYPED_BASE_TABLES, ...views] : TYPED_BASE_TABLES;
    const translation = await translate(job.sql, 'duckdb', {
      tables,
      uploads,
      storedTypes: stored,
      catalog: listedTables(BASE_TABLES, job.relations),
      duckDbFunctionsForEngineTests: job.duckDbFunctions,
    });
    const statement = { sql: translation.sql, translation };
    translations.set(key, statement);
    return statement;
  } catch (error) {
    if (error instanceof DuneSqlError) throw dunesqlFailure(error, elapsed());
    throw error;
  }
}

/**
 * Parses and binds the statement with DuckDB itself: exactly one statement, and a query. The
 * translator already refuses anything else in DuneSQL; this check holds for raw DuckDB SQL too
 * (SELECT, WITH, VALUES, FROM-first, DESCRIBE, SHOW, SUMMARIZE, PIVOT all bind as one). Returns
 * the result columns, with duplicate names made unique the way the Parquet writer would.
 */
async function describeStatement(
  connection: DuckDBConnection,
  statement: RanStatement,
  elapsed: () => number,
  context: { tier: string; memoryLimit: string; maxSpillSize?: string },
): Promise<StatementColumn[]> {
  const { sql } = statement;
  let extracted: Awaited<ReturnType<DuckDBConnection['extractStatements']>>;
  try {
    extracted = await connection.extractStatements(sql);
  } catch (error) {
    // DuckDB reports SQL made only of comments or semicolons as a bare native error.
    if (error instanceof Error && !error.message.includes('{')) {
      throw new QueryFailure('syntax_error', 'The query contains no SQL statement.', undefined, elapsed());
    }
    throw await toQueryFailure(error, statement, elapsed(), context);
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
    throw await toQueryFailure(error, statement, elapsed(), context);
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
    const hints = statement.translation?.outputTypes ?? [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      columns.push({
        name: uniqueName(prepared.columnName(i), seen),
        type: hintedType(engineTypeName(type), hints[i]),
        engineType: type,
      });
    }
    return columns;
  } finally {
    prepared.destroySync();
  }
}

/**
 * A column's engine type name: JSON (json_parse, json_extract, a cast to json) is DuckDB's VARCHAR
 * under the alias JSON, which its name leaves out (the results called such a column varchar while
 * typeof() said json).
 */
function engineTypeName(type: DuckDBType): string {
  return type.alias === 'JSON' ? 'JSON' : type.toString();
}

/**
 * The column's type as the translation tells it where DuckDB's cannot (a zone's wall-clock
 * timestamp, a year-to-month interval), if DuckDB's type is the one that holds it.
 */
function hintedType(engineType: string, hint: string | undefined): string {
  if (hint === undefined) return engineType;
  if (timestampZone(hint) !== undefined) return engineType === 'TIMESTAMP' ? hint : engineType;
  return hint === YEAR_MONTH_INTERVAL && engineType === 'INTERVAL' ? hint : engineType;
}

function positionOf(sql: string, index: number): { line: number; column: number } {
  const lines = sql.slice(0, index).split(/\r\n|\r|\n/);
  return { line: lines.length, column: [...(lines[lines.length - 1] ?? '')].length + 1 };
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
 * `LIMIT maxRows + 1` bounds what is written while still telling an oversized result apart.
 */
function copyStatement(columns: StatementColumn[], path: string, maxRows: number): string {
  const aliases = columns.map((_, i) => sqlIdentifier(`c${i}`));
  const projection = columns
    .map((column, i) => {
      const source = aliases[i]!;
      const stored =
        column.type === YEAR_MONTH_INTERVAL
          ? yearMonthIntervalText(source)
          : (storageExpression(column.engineType, source) ?? source);
      return `${stored} AS ${sqlIdentifier(column.name)}`;
    })
    .join(', ');
  const metadata = JSON.stringify(columns.map(({ name, type }) => ({ name, type })));
  return (
    `COPY (SELECT ${projection} FROM query(?) AS _result(${aliases.join(', ')}) LIMIT ${maxRows + 1}) ` +
    `TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd, USE_TMP_FILE false, ` +
    `KV_METADATA {${COLUMNS_METADATA_KEY}: ${sqlString(metadata)}})`
  );
}

type JobLimits = Pick<
  EngineJob,
  | 'tier'
  | 'timeoutMs'
  | 'limits'
  | 'maxSpillSize'
  | 'maxResultBytes'
  | 'maxResultRows'
  | 'resultBytesLimitReason'
>;

/** The failure of a run stopped from outside (also used when the engine process had to be killed). */
export function stoppedFailure(
  reason: StopReason,
  job: JobLimits,
  engineMillis: number,
  detail?: string,
): QueryFailure {
  switch (reason) {
    case 'timeout':
      return new QueryFailure(
        'timeout',
        `Query exceeded the ${formatDuration(job.timeoutMs)} limit of the ${job.tier} tier and was stopped; ` +
          'filter on a narrower block_time range, aggregate, or select fewer columns' +
          (job.tier === 'large' ? '.' : ', or run it on the large tier.'),
        undefined,
        engineMillis,
      );
    case 'cancelled':
      return new QueryFailure('cancelled', 'The query was cancelled.', undefined, engineMillis);
    case 'result_too_large':
      return resultTooLarge(job, 'bytes', engineMillis);
    case 'spill_too_large':
      return new QueryFailure(
        'resource_exhausted',
        `The query needed more than ${job.maxSpillSize} of disk to spill to, beyond the ${job.limits.memoryLimit} ` +
          `memory of the ${job.tier} tier, and was stopped; filter or aggregate earlier, select fewer columns` +
          (job.tier === 'large' ? '.' : ', or run it on the large tier.'),
        undefined,
        engineMillis,
      );
    case 'memory':
      return new QueryFailure(
        'resource_exhausted',
        `The query used more memory than the ${job.limits.memoryLimit} of the ${job.tier} tier` +
          `${detail ? ` (${detail})` : ''} and was stopped; very large values (e.g. huge strings or lists) ` +
          'count too. Filter or aggregate earlier, build smaller values' +
          (job.tier === 'large' ? '.' : ', or run it on the large tier.'),
        undefined,
        engineMillis,
      );
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

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
};

/** DuckDB's size strings (`1GB` = 10^9 bytes, `1GiB` = 2^30) in bytes. */
export function parseDuckDbSize(size: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(size);
  const unit = SIZE_UNITS[(match?.[2] || 'b').toLowerCase()];
  if (!match || unit === undefined) throw new Error(`Unreadable size ${JSON.stringify(size)}`);
  return Number(match[1]) * unit;
}

/** Hard links (same file system) to the view files, in the run's own directory of the staging area. */
async function linkRelationFiles(directory: string, relations: EngineJob['relations'], links: string[]) {
  await mkdir(directory, { recursive: true });
  const sources = new Map(relations.flatMap((r) => r.paths).map((path) => [basename(path), path]));
  await Promise.all(
    links.map((link) =>
      // A view file gone meanwhile fails the run when DuckDB reads the view, as without links.
      fsLink(sources.get(basename(link))!, link).catch(() => undefined),
    ),
  );
}

/** Detaches the view catalogs a run attached to a reusable sandbox; false if that fails. */
async function removeViews(connection: DuckDBConnection | undefined, catalogs: string[], job: EngineJob) {
  try {
    for (const catalog of catalogs) await connection!.run(`DETACH ${sqlIdentifier(catalog)}`);
    return true;
  } catch (error) {
    console.error(`engine: detaching the views of ${job.executionId} failed; its sandbox is closed`, error);
    return false;
  }
}
