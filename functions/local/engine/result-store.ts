import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIGINT,
  BLOB,
  blobValue,
  DOUBLE,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
  VARCHAR,
} from '@duckdb/node-api';
import type {
  FilterExpression,
  FilterValue,
  ResultColumn,
  ResultPage,
  ResultPageRequest,
  ResultStore,
  ResultValue,
  SortKey,
} from '../../core/engine';
import { BadRequestError, NotFoundError } from '../../core/errors';
import { checkFilterLiteral, timestampLiteral } from '../../core/filter-literals';
import { projectedColumns, resolveColumn as resolve, validatePaging } from '../../core/result-encoding';
import {
  duneSqlTypeName,
  isIntervalType,
  timestampZone,
  type ValueKind,
  valueKind,
} from '../../core/sql-types';
import { intervalFromText } from '../../dunesql/duckdb-target';
import { parseDuckDbError } from './duckdb-errors';
import { COLUMNS_METADATA_KEY, isValidExecutionId, resultFilePath, sqlIdentifier } from './result-files';
import { PREFETCH_MAX_VALUES, ResultRowsCache } from './result-rows-cache';
import { CSV_LINE_BREAK, csvField, encodeValue, storedBytes } from './result-values';
import { openSandbox, type Sandbox } from './sandbox';
import { isBigIntegerType } from './storage-types';

export interface DuckDbResultStoreOptions {
  resultsDir: string;
  /** Threads of the reader instance (default 1: pages are small and order must be stable). */
  threads?: number;
  /** Memory of the reader instance (default 256MB); big sorts spill to a private temp directory. */
  memoryLimit?: string;
  /** Seed of `sample_count` sampling, so the same request returns the same sample. */
  sampleSeed?: number;
}

interface StoredColumn extends ResultColumn {
  /**
   * Type in the Parquet file (differs for HUGEINT/UHUGEINT, stored as exact text). Undefined when
   * the shape came from the engine rather than from the file: a page needs only the names, and
   * filters and sorting, which need it, read it from the file first.
   */
  storedType?: string;
}

interface ResultInfo {
  columns: StoredColumn[];
  rowCount: number;
}

interface CompiledQuery {
  sql: string;
  values: DuckDBValue[];
  types: (DuckDBType | undefined)[];
}

const MAX_CACHED_RESULTS = 256;
/** Added to sorted reads as the final tiebreaker, so pages of a sorted result never overlap. */
const ROW_NUMBER = 'file_row_number';

/**
 * Reads stored results (Parquet files written by DuckDbQueryEngine) page by page with one shared
 * in-memory DuckDB instance that can only see `resultsDir`. Only the requested page is
 * materialised in JavaScript (a small result's rows are, once, at its run's end: `warm`); filters
 * and sorting run inside DuckDB over the file. User input
 * reaches SQL only as bound parameters or as identifiers checked against the file's real columns.
 */
export class DuckDbResultStore implements ResultStore {
  private sandbox?: Promise<{ sandbox: Sandbox; spillDirectory: string }>;
  /** Each result's shape, read once (or told by `warm`); concurrent reads share one read of the file. */
  private readonly info = new Map<string, Promise<ResultInfo>>();
  /** Small results' rows, read at their end for the pages asked for at once. */
  private readonly rows = new ResultRowsCache();

  constructor(private readonly options: DuckDbResultStoreOptions) {}

  async readPage(request: ResultPageRequest): Promise<ResultPage> {
    const { columns, rows, totalRowCount } = await this.read(request);
    const encoders = columns.map(columnEncoder);
    let pageBytes = 0;
    const encoded = rows.map((row) => {
      const record: Record<string, ResultValue> = {};
      columns.forEach((column, i) => {
        const value = row[i] ?? null;
        pageBytes += storedBytes(value);
        record[column.name] = encoders[i]!(value);
      });
      return record;
    });
    return { columns: publicColumns(columns), rows: encoded, totalRowCount, pageBytes };
  }

  async readCsv(
    request: ResultPageRequest,
  ): Promise<{ csv: string; rowCount: number; totalRowCount: number }> {
    const { columns, rows, totalRowCount } = await this.read(request);
    const encoders = columns.map(columnEncoder);
    const lines = [columns.map((column) => csvField(column.name)).join(',')];
    for (const row of rows) {
      lines.push(columns.map((_, i) => csvField(encoders[i]!(row[i] ?? null))).join(','));
    }
    return { csv: lines.join(CSV_LINE_BREAK) + CSV_LINE_BREAK, rowCount: rows.length, totalRowCount };
  }

  /** The engine's columns are the file's (result-files.ts writes them as its metadata). */
  async warm(executionId: string, shape: { columns: ResultColumn[]; rowCount: number }): Promise<void> {
    if (this.info.has(executionId) || !isValidExecutionId(executionId)) return;
    this.remember(executionId, Promise.resolve({ columns: shape.columns, rowCount: shape.rowCount }));
    if (shape.rowCount * Math.max(1, shape.columns.length) <= PREFETCH_MAX_VALUES) {
      const path = resultFilePath(this.options.resultsDir, executionId);
      this.rows.load(executionId, () => this.readAllRows(path));
    }
  }

  async delete(executionId: string): Promise<void> {
    this.info.delete(executionId);
    this.rows.delete(executionId);
    if (!isValidExecutionId(executionId)) return;
    await rm(resultFilePath(this.options.resultsDir, executionId), { force: true });
  }

  async close(): Promise<void> {
    const opened = this.sandbox;
    this.sandbox = undefined;
    this.info.clear();
    this.rows.clear();
    if (!opened) return;
    const { sandbox, spillDirectory } = await opened;
    sandbox.close();
    await rm(spillDirectory, { recursive: true, force: true });
  }

  private async read(
    request: ResultPageRequest,
  ): Promise<{ columns: StoredColumn[]; rows: DuckDBValue[][]; totalRowCount: number }> {
    validatePaging(request);
    const path = await this.existingFile(request.executionId);
    const cached = await this.cachedPage(request);
    if (cached) return cached;
    const connection = await this.connect();
    try {
      const needsStoredTypes = request.filters !== undefined || request.sortBy !== undefined;
      const info = await this.describe(connection, request.executionId, path, needsStoredTypes);
      const columns = request.columns ? projectedColumns(info.columns, request.columns) : info.columns;
      const compiled = compilePageQuery(path, info, columns, request, this.options.sampleSeed ?? 42);
      const rows = (await runQuery(connection, compiled)).getRows();
      const totalRowCount =
        request.filters === undefined || request.sampleCount !== undefined
          ? info.rowCount
          : await countMatching(connection, path, info.columns, request.filters);
      return { columns, rows, totalRowCount };
    } finally {
      connection.closeSync();
    }
  }

  /** A page without filter, sort or sample, sliced from the rows read at the run's end. */
  private async cachedPage(request: ResultPageRequest) {
    if (request.filters !== undefined || request.sortBy !== undefined || request.sampleCount !== undefined) {
      return undefined;
    }
    const rows = await this.rows.get(request.executionId);
    const info = rows && (await this.info.get(request.executionId)?.catch(() => undefined));
    if (!rows || !info) return undefined;
    const page = rows.slice(request.offset, request.offset + request.limit);
    if (!request.columns) return { columns: info.columns, rows: page, totalRowCount: info.rowCount };
    const columns = projectedColumns(info.columns, request.columns);
    const positions = columns.map((column) => info.columns.indexOf(column));
    return {
      columns,
      rows: page.map((row) => positions.map((i) => row[i] ?? null)),
      totalRowCount: info.rowCount,
    };
  }

  /** The whole file in stored order (one thread: the order the paged reads give). */
  private async readAllRows(path: string): Promise<DuckDBValue[][]> {
    const connection = await this.connect();
    try {
      return (await connection.runAndReadAll('SELECT * FROM read_parquet($path)', { path })).getRows();
    } finally {
      connection.closeSync();
    }
  }

  private async existingFile(executionId: string): Promise<string> {
    const path = resultFilePath(this.options.resultsDir, executionId);
    try {
      await stat(path);
    } catch {
      this.info.delete(executionId);
      throw new NotFoundError(`No stored result for execution ${executionId}`);
    }
    return path;
  }

  /** A connection per read: DuckDB connections run one statement at a time; the instance is shared. */
  private async connect(): Promise<DuckDBConnection> {
    if (!this.sandbox) {
      const opening = (async () => {
        const spillDirectory = await mkdtemp(join(tmpdir(), 'result-store-spill-'));
        const sandbox = await openSandbox({
          limits: { threads: this.options.threads ?? 1, memoryLimit: this.options.memoryLimit ?? '256MB' },
          allowedDirectories: [`${this.options.resultsDir.replace(/\/+$/, '')}/`],
          spillDirectory,
        });
        return { sandbox, spillDirectory };
      })();
      this.sandbox = opening;
      opening.catch(() => {
        if (this.sandbox === opening) this.sandbox = undefined;
      });
    }
    const { sandbox } = await this.sandbox;
    return sandbox.connect();
  }

  /**
   * Columns (engine names and types) and row count; cached, files never change. A shape the
   * engine reported lacks the stored types: when they are needed, the file is read once.
   */
  private async describe(
    connection: DuckDBConnection,
    executionId: string,
    path: string,
    needsStoredTypes: boolean,
  ): Promise<ResultInfo> {
    for (;;) {
      const entry = this.info.get(executionId);
      if (!entry) return this.remember(executionId, readResultInfo(connection, path));
      const known = await entry.catch(() => undefined);
      if (known && (!needsStoredTypes || known.columns.every((column) => column.storedType !== undefined))) {
        return known;
      }
      if (this.info.get(executionId) === entry) {
        return this.remember(executionId, readResultInfo(connection, path));
      }
      // Replaced meanwhile: another read is reading the file; wait for that one.
    }
  }

  private remember(executionId: string, described: Promise<ResultInfo>): Promise<ResultInfo> {
    this.info.delete(executionId);
    if (this.info.size >= MAX_CACHED_RESULTS) this.info.delete(this.info.keys().next().value!);
    this.info.set(executionId, described);
    described.catch(() => {
      if (this.info.get(executionId) === described) this.info.delete(executionId);
    });
    return described;
  }
}

async function readResultInfo(connection: DuckDBConnection, path: string): Promise<ResultInfo> {
  const schema = await connection.runAndReadAll('DESCRIBE SELECT * FROM read_parquet($path)', { path });
  const stored = schema
    .getRowObjects()
    .map((row) => ({ name: String(row.column_name), type: String(row.column_type) }));
  const metadata = await connection.runAndReadAll(
    'SELECT value FROM parquet_kv_metadata($path) WHERE decode(key) = $key',
    { path, key: COLUMNS_METADATA_KEY },
    { path: VARCHAR, key: VARCHAR },
  );
  const original = parseColumnsMetadata(metadata.getRows()[0]?.[0]);
  const columns = stored.map(
    (column, i): StoredColumn => ({
      name: column.name,
      type: original?.[i]?.name === column.name ? original[i]!.type : column.type,
      storedType: column.type,
    }),
  );
  const count = await connection.runAndReadAll('SELECT count(*) FROM read_parquet($path)', { path });
  return { columns, rowCount: Number(count.getRows()[0]![0]) };
}

/**
 * How a column's values are written: as encodeValue writes them, a zone's wall-clock timestamp
 * labelled with its zone instead of UTC (`2024-01-01 07:00:00.000 America/New_York`).
 */
function columnEncoder(column: StoredColumn): (value: DuckDBValue) => ResultValue {
  const exactText = isNumberWhenExact(column.type);
  const zone = timestampZone(column.type);
  if (zone === undefined) return (value) => encodeValue(value, exactText);
  return (value) => {
    const encoded = encodeValue(value, exactText);
    return typeof encoded === 'string' && encoded.endsWith(UTC_LABEL)
      ? `${encoded.slice(0, -UTC_LABEL.length)} ${zone}`
      : encoded;
  };
}

const UTC_LABEL = ' UTC';

/**
 * HUGEINT (int256; also DuckDB's type for sums of integers) is stored as exact text and shown as a
 * number while exact. UHUGEINT (uint256) stays the exact decimal string it is stored as, at any
 * magnitude, as Dune renders uint256 amounts.
 */
function isNumberWhenExact(type: string): boolean {
  return type === 'HUGEINT';
}

function publicColumns(columns: StoredColumn[]): ResultColumn[] {
  return columns.map(({ name, type }) => ({ name, type }));
}

function parseColumnsMetadata(value: DuckDBValue | undefined): ResultColumn[] | undefined {
  if (!value || typeof value !== 'object' || !('bytes' in value)) return undefined;
  try {
    return JSON.parse(Buffer.from(value.bytes as Uint8Array).toString('utf8')) as ResultColumn[];
  } catch {
    return undefined;
  }
}

class Parameters {
  readonly values: DuckDBValue[] = [];
  readonly types: (DuckDBType | undefined)[] = [];

  add(value: DuckDBValue, type?: DuckDBType): string {
    this.values.push(value);
    this.types.push(type);
    return `$${this.values.length}`;
  }
}

function compilePageQuery(
  path: string,
  { columns: all, rowCount }: ResultInfo,
  projected: StoredColumn[],
  request: ResultPageRequest,
  seed: number,
): CompiledQuery {
  const parameters = new Parameters();
  const sampling = request.sampleCount !== undefined;
  const source = `read_parquet(${parameters.add(path, VARCHAR)}${request.sortBy || sampling ? `, ${ROW_NUMBER} = true` : ''})`;
  const projection = projected.map((column) => sqlIdentifier(column.name)).join(', ');
  const order = request.sortBy ? orderBy(all, request.sortBy) : '';
  let sql: string;
  if (sampling) {
    // A uniform sample of exactly min(n, rows) rows: the n rows with the smallest seeded hash of
    // their row number (a top-n, so memory stays at n rows), shown in stored order unless sorted.
    // DuckDB's reservoir sampling was measured to favour the first row groups for small n.
    const seedParameter = parameters.add(BigInt(Math.trunc(seed)), BIGINT);
    const sample =
      `SELECT * FROM ${source} ORDER BY hash(${ROW_NUMBER}, ${seedParameter}) ` +
      `LIMIT ${parameters.add(request.sampleCount ?? 0)}`;
    sql = `SELECT ${projection} FROM (${sample})${order || ` ORDER BY ${ROW_NUMBER}`}`;
  } else {
    const where = request.filters ? ` WHERE ${compileFilter(request.filters, all, parameters)}` : '';
    if (!where && !order && request.offset === 0 && request.limit >= rowCount) {
      // The whole file in its stored order (the common first page of a small result): without
      // LIMIT, DuckDB scans it straight instead of planning a row-number ordering (half the time).
      sql = `SELECT ${projection} FROM ${source}`;
    } else {
      const limit = parameters.add(request.limit);
      const offset = parameters.add(request.offset);
      sql = `SELECT ${projection} FROM ${source}${where}${order} LIMIT ${limit} OFFSET ${offset}`;
    }
  }
  return { sql, values: parameters.values, types: parameters.types };
}

function orderBy(columns: StoredColumn[], keys: SortKey[]): string {
  const terms = keys.map((key) => {
    const column = resolve(columns, key.column, 'sort_by');
    return `${columnExpression(column)} ${key.direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`;
  });
  return ` ORDER BY ${[...terms, ROW_NUMBER].join(', ')}`;
}

/**
 * Columns stored as text compared and sorted by what they hold: HUGEINT/UHUGEINT as numbers,
 * intervals (stored as the text Trino writes) as intervals.
 */
function columnExpression(column: StoredColumn): string {
  const identifier = sqlIdentifier(column.name);
  if (column.storedType !== 'VARCHAR') return identifier;
  if (isBigIntegerType(column.type)) return `CAST(${identifier} AS ${column.type})`;
  if (isIntervalText(column)) return intervalFromText(identifier);
  return identifier;
}

const isIntervalText = (column: StoredColumn) =>
  isIntervalType(column.type) && column.storedType === 'VARCHAR';

const OPERATORS = { '=': '=', '!=': '<>', '<>': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' } as const;

function compileFilter(
  expression: FilterExpression,
  columns: StoredColumn[],
  parameters: Parameters,
): string {
  switch (expression.kind) {
    case 'and':
    case 'or':
      return `(${compileFilter(expression.left, columns, parameters)} ${expression.kind.toUpperCase()} ${compileFilter(expression.right, columns, parameters)})`;
    case 'compare': {
      const column = resolve(columns, expression.column, 'filters');
      return `${columnExpression(column)} ${OPERATORS[expression.operator]} ${bindLiteral(column, expression.value, parameters)}`;
    }
    case 'in': {
      const column = resolve(columns, expression.column, 'filters');
      const list = expression.values.map((value) => bindLiteral(column, value, parameters)).join(', ');
      return `${columnExpression(column)} IN (${list})`;
    }
    case 'like': {
      const column = resolve(columns, expression.column, 'filters');
      return `${textExpression(column)} LIKE ${parameters.add(expression.pattern, VARCHAR)}`;
    }
    case 'null': {
      const column = resolve(columns, expression.column, 'filters');
      return `${sqlIdentifier(column.name)} IS ${expression.negated ? 'NOT ' : ''}NULL`;
    }
  }
}

/** What LIKE matches against: the column as displayed (0x hex for binary). */
function textExpression(column: StoredColumn): string {
  const identifier = sqlIdentifier(column.name);
  if (column.storedType === 'BLOB') return `('0x' || lower(hex(${identifier})))`;
  if (column.storedType === 'VARCHAR') return identifier;
  return `CAST(${identifier} AS VARCHAR)`;
}

/**
 * Binds a literal so DuckDB treats it like a literal of the same kind: a string is cast to the
 * column's type (dates and timestamps compare as such), a `0x…` string compared with a binary
 * column is the bytes it spells, and a number compared with a text column is its text.
 */
function bindLiteral(column: StoredColumn, value: FilterValue, parameters: Parameters): string {
  // One the column cannot hold is refused as on the AWS host, before DuckDB would word it its way.
  const kind = filterKind(column);
  checkFilterLiteral(column, kind, value);
  if (typeof value === 'string') {
    if (column.storedType === 'BLOB' && /^0x([0-9a-f]{2})*$/i.test(value)) {
      return parameters.add(blobValue(Buffer.from(value.slice(2), 'hex')), BLOB);
    }
    // An interval as Trino writes it (`1 02:00:00.000`, `1-2`) or as DuckDB reads one (`2 hours`).
    if (isIntervalText(column)) return intervalFromText(parameters.add(trinoIntervalText(value), VARCHAR));
    if (kind === 'date' || kind === 'timestamp') return parameters.add(dateTimeText(column, kind, value));
    return parameters.add(value);
  }
  if (column.storedType === 'VARCHAR' && !isBigIntegerType(column.type))
    return parameters.add(String(value), VARCHAR);
  return Number.isSafeInteger(value) ? parameters.add(value) : parameters.add(value, DOUBLE);
}

/**
 * How a filter literal is checked against a column (core/filter-literals.ts): by its DuneSQL type,
 * except that a column stored as text other than uint256/int256 and intervals compares as text,
 * and binary is bytes only when stored as such.
 */
function filterKind(column: StoredColumn): ValueKind {
  if (isBigIntegerType(column.type)) return 'integer';
  if (isIntervalText(column)) return 'interval';
  if (column.storedType === 'VARCHAR') return 'text';
  const kind = valueKind(duneSqlTypeName(column.type));
  return kind === 'binary' && column.storedType !== 'BLOB' ? 'text' : kind;
}

/**
 * A checked date or timestamp literal in the form DuckDB reads (`2024-03-05 12:00:00`, seconds
 * added, `T` a space): a date column takes its date, as AWS compares it; a zone's wall-clock
 * timestamp may be written as shown, with its zone, which is the column's own; another zone or
 * offset stays for DuckDB to apply.
 */
function dateTimeText(column: StoredColumn, kind: 'date' | 'timestamp', value: string): string {
  const { date, time, zone } = timestampLiteral(value)!;
  if (kind === 'date') return date;
  if (zone === undefined || zone === timestampZone(column.type)) return `${date} ${time}`;
  return /^[A-Za-z]/.test(zone) && zone !== 'Z' ? `${date} ${time} ${zone}` : `${date} ${time}${zone}`;
}

/** Trino's day-to-second text with exactly the milliseconds intervalFromText reads (`1 02:00:00` → `….000`). */
function trinoIntervalText(value: string): string {
  const dayTime = /^(-?\d+ \d+:\d+:\d+)(?:\.(\d+))?$/.exec(value.trim());
  return dayTime ? `${dayTime[1]}.${(dayTime[2] ?? '').padEnd(3, '0').slice(0, 3)}` : value;
}

async function countMatching(
  connection: DuckDBConnection,
  path: string,
  columns: StoredColumn[],
  filters: FilterExpression,
): Promise<number> {
  const parameters = new Parameters();
  const source = parameters.add(path, VARCHAR);
  const where = compileFilter(filters, columns, parameters);
  const result = await runQuery(connection, {
    sql: `SELECT count(*) FROM read_parquet(${source}) WHERE ${where}`,
    values: parameters.values,
    types: parameters.types,
  });
  return Number(result.getRows()[0]![0]);
}

/** Runs a compiled read; errors caused by the request (a literal of the wrong type) become 400s. */
async function runQuery(connection: DuckDBConnection, query: CompiledQuery) {
  try {
    return await connection.runAndReadAll(query.sql, query.values, query.types as DuckDBType[]);
  } catch (error) {
    const info = parseDuckDbError(error);
    // Deleted between the existence check and the read.
    if (info.type === 'IO' && /No files found/.test(info.message)) {
      throw new NotFoundError('No stored result for this execution', { cause: error });
    }
    if (['Conversion', 'Binder', 'Out of Range', 'Invalid Input'].includes(info.type)) {
      throw new BadRequestError(`filters: ${info.type} Error: ${info.message}`, { cause: error });
    }
    throw error;
  }
}
