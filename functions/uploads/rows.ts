import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as csvParser } from 'csv-parse';
import { BadRequestError } from '../core/errors';
import {
  MAX_INTEGER_DIGITS,
  MAX_UPLOAD_COLUMNS,
  UPLOAD_NAME,
  type UploadColumn,
  type UploadColumnType,
} from '../core/uploads';

/**
 * Rows of an upload, checked against the table's columns and written as the stored text lines
 * (core/uploads.ts, UploadFileStore): every value in one canonical text form both engines cast
 * back exactly. A request is all or nothing: the first bad value fails it, naming row and column.
 * A body of megabytes is read a slice at a time, handing the event loop back between slices: the
 * local host serves every other request from the same thread.
 */

/** Text read per slice, and rows checked per slice (each a few milliseconds). */
const SLICE_CHARS = 64 * 1024;
const SLICE_ROWS = 2000;

type RawValue = string | number | boolean | null;

/** A CSV body read: its header and its records. */
export interface CsvTable {
  header: CsvCell[];
  records: CsvCell[][];
}

/** Reads a CSV body (RFC 4180, comma-separated, a header row first). */
export async function readCsv(text: string): Promise<CsvTable> {
  const parser = csvParser({
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
    cast: (value, context) => ({ value: value === '' && !context.quoting ? null : value }),
  });
  const records: CsvCell[][] = [];
  try {
    for await (const record of Readable.from(slices(text), { objectMode: false }).pipe(parser)) {
      records.push(record as CsvCell[]);
    }
  } catch (error) {
    throw new BadRequestError(`The CSV cannot be read: ${(error as Error).message}`);
  }
  const header = records.shift();
  return { header: header ?? [], records };
}

/**
 * How a CSV header cell names a column: `exact` (an insert: the columns were declared, so a cell
 * must be a column's name, ignoring case) or `normalized` (`POST /v1/uploads/csv`: the columns were
 * made from the header by columnNameOf, so `Token Address` is token_address).
 */
export type HeaderNaming = 'exact' | 'normalized';

/** The stored lines of a CSV whose header names the table's columns (in any order). */
export async function csvLines(
  csv: string | CsvTable,
  columns: readonly UploadColumn[],
  naming: HeaderNaming = 'exact',
): Promise<string[]> {
  const { header, records } = typeof csv === 'string' ? await readCsv(csv) : csv;
  if (header.length === 0) return [];
  const positions = headerPositions(
    header.map((cell) => cell.value ?? ''),
    columns,
    naming,
  );
  return sliced(records, (record, i) => {
    if (record.length !== header.length) {
      throw new BadRequestError(
        `CSV row ${i + 1} has ${record.length} fields; the header has ${header.length}.`,
      );
    }
    return storedLine(columns, positions, (position) => record[position]!.value, `CSV row ${i + 1}`);
  });
}

/** The stored lines of an NDJSON body: one JSON object per line, keyed by column name. */
export async function ndjsonLines(text: string, columns: readonly UploadColumn[]): Promise<string[]> {
  const byName = new Map(columns.map((column, i) => [column.name, i]));
  const positions = columns.map((_, position) => position);
  const lines = await sliced(text.split('\n'), (line, i) => {
    if (line.trim() === '') return undefined;
    let object: unknown;
    try {
      object = JSON.parse(line);
    } catch (error) {
      throw new BadRequestError(`NDJSON line ${i + 1} is not JSON: ${(error as Error).message}`);
    }
    if (typeof object !== 'object' || object === null || Array.isArray(object)) {
      throw new BadRequestError(`NDJSON line ${i + 1} is not a JSON object of column values.`);
    }
    const values = new Map<number, RawValue>();
    for (const [key, value] of Object.entries(object)) {
      const position = byName.get(key.toLowerCase());
      if (position === undefined) {
        throw new BadRequestError(
          `NDJSON line ${i + 1} has the key "${key}", which is not a column of the table (${columnList(columns)}).`,
        );
      }
      if (value !== null && typeof value === 'object') {
        throw new BadRequestError(
          `NDJSON line ${i + 1}, column ${key}: nested values are not supported; send a string, number, boolean or null.`,
        );
      }
      values.set(position, value as RawValue);
    }
    return storedLine(columns, positions, (position) => values.get(position) ?? null, `NDJSON line ${i + 1}`);
  });
  return lines.filter((line): line is string => line !== undefined);
}

/**
 * A CSV upload's columns, inferred from its header and values: bigint, double, boolean, date or
 * timestamp when every non-empty value reads as one, varchar otherwise.
 */
export function inferCsvColumns({ header, records }: CsvTable): UploadColumn[] {
  if (header.length === 0) throw new BadRequestError('The CSV is empty: give a header row and data rows.');
  const names = headerNames(
    header.map((cell) => cell.value ?? ''),
    'normalized',
  );
  if (names.length > MAX_UPLOAD_COLUMNS) {
    throw new BadRequestError(
      `The CSV has ${names.length} columns; at most ${MAX_UPLOAD_COLUMNS} are allowed.`,
    );
  }
  return names.map((name, position) => {
    const values = records
      .map((record) => record[position]?.value)
      .filter((value): value is string => value !== null && value !== undefined && value !== '');
    return { name, type: inferType(values), nullable: true };
  });
}

const INFERRED_ORDER: readonly UploadColumnType[] = ['bigint', 'double', 'boolean', 'date', 'timestamp'];

function inferType(values: readonly string[]): UploadColumnType {
  if (values.length === 0) return 'varchar';
  for (const type of INFERRED_ORDER) {
    if (values.every((value) => canonicalOrUndefined(value, type) !== undefined)) return type;
  }
  return 'varchar';
}

/** A CSV header cell as a column name: lower case, runs of other characters as `_`. */
function normalizedName(cell: string): string {
  return cell
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function columnNameOf(cell: string, position: number): string {
  const name = normalizedName(cell);
  if (!UPLOAD_NAME.test(name)) {
    throw new BadRequestError(
      `CSV header column ${position + 1} ("${cell}") cannot be a column name: start it with a letter, then letters, digits or underscores.`,
    );
  }
  return name;
}

export interface CsvCell {
  /** null: an empty field that was not quoted (NULL); "" when quoted. */
  value: string | null;
}

/**
 * The column each header cell names; two cells naming one column are refused, naming both cells
 * (`Token Address` and `token-address` both normalize to token_address).
 */
function headerNames(header: readonly string[], naming: HeaderNaming): string[] {
  const firstAt = new Map<string, number>();
  return header.map((cell, i) => {
    const name = naming === 'exact' ? cell.trim().toLowerCase() : columnNameOf(cell, i);
    const first = firstAt.get(name);
    if (first === undefined) {
      firstAt.set(name, i);
      return name;
    }
    const cells = `columns ${first + 1} ("${header[first]}") and ${i + 1} ("${cell}")`;
    throw new BadRequestError(
      header[first] === cell
        ? `The CSV header names ${name} twice (${cells}): give each column once.`
        : `The CSV header ${cells} both become the column name ${name}: rename one of them.`,
    );
  });
}

/** For each column, where its value is in a record (undefined: absent, so NULL). */
function headerPositions(
  header: readonly string[],
  columns: readonly UploadColumn[],
  naming: HeaderNaming,
): (number | undefined)[] {
  const names = headerNames(header, naming);
  names.forEach((name, i) => {
    if (columns.some((column) => column.name === name)) return;
    // An insert matches names as written: say which column a spreadsheet's "Token Address" meant.
    const meant = normalizedName(header[i]!);
    const hint = columns.some((column) => column.name === meant)
      ? `; name it ${meant} in the header (an insert matches header names as written, ignoring case)`
      : '';
    throw new BadRequestError(
      `CSV header names "${header[i]}", which is not a column of the table (${columnList(columns)})${hint}.`,
    );
  });
  return columns.map((column) => {
    const position = names.indexOf(column.name);
    return position === -1 ? undefined : position;
  });
}

function storedLine(
  columns: readonly UploadColumn[],
  positions: readonly (number | undefined)[],
  valueAt: (position: number) => RawValue,
  where: string,
): string {
  const line: Record<string, string | null> = {};
  columns.forEach((column, i) => {
    const position = positions[i];
    const raw = position === undefined ? null : valueAt(position);
    if (raw === null) {
      if (!column.nullable)
        throw new BadRequestError(`${where}: column ${column.name} is not nullable and has no value.`);
      line[`c${i}`] = null;
      return;
    }
    line[`c${i}`] = canonicalValue(raw, column, where);
  });
  return JSON.stringify(line);
}

function canonicalValue(raw: string | number | boolean, column: UploadColumn, where: string): string {
  if (column.type === 'varchar') return String(raw);
  if (
    typeof raw === 'number' &&
    !Number.isSafeInteger(raw) &&
    isIntegerType(column.type) &&
    Number.isInteger(raw)
  ) {
    throw new BadRequestError(
      `${where}, column ${column.name}: ${raw} is past JSON's exact integers; send it as a string.`,
    );
  }
  const value = canonicalOrUndefined(String(raw), column.type);
  if (value === undefined) {
    throw new BadRequestError(
      `${where}, column ${column.name}: ${JSON.stringify(raw)} is not ${HINTS[column.type]}.`,
    );
  }
  return value;
}

const isIntegerType = (type: UploadColumnType) =>
  type === 'integer' || type === 'bigint' || type === 'uint256' || type === 'int256';

const HINTS: Record<UploadColumnType, string> = {
  varchar: 'text',
  varbinary: 'a 0x-prefixed hex string of whole bytes (varbinary)',
  uint256: `a non-negative integer of at most ${MAX_INTEGER_DIGITS} digits (uint256)`,
  int256: `an integer of at most ${MAX_INTEGER_DIGITS} digits (int256)`,
  bigint: 'an integer between -2^63 and 2^63-1 (bigint)',
  integer: 'an integer between -2^31 and 2^31-1 (integer)',
  double: 'a finite number (double)',
  boolean: 'true or false (boolean)',
  timestamp: 'an ISO 8601 timestamp such as 2024-01-31T12:00:00Z (timestamp)',
  date: 'a date such as 2024-01-31 (date)',
};

const INTEGER_RANGES: Partial<Record<UploadColumnType, [bigint, bigint]>> = {
  integer: [-(2n ** 31n), 2n ** 31n - 1n],
  bigint: [-(2n ** 63n), 2n ** 63n - 1n],
  uint256: [0n, 10n ** BigInt(MAX_INTEGER_DIGITS) - 1n],
  int256: [-(10n ** BigInt(MAX_INTEGER_DIGITS) - 1n), 10n ** BigInt(MAX_INTEGER_DIGITS) - 1n],
};

/** The canonical text of a value of the type, or undefined when it is not one. */
function canonicalOrUndefined(text: string, type: UploadColumnType): string | undefined {
  const value = text.trim();
  switch (type) {
    case 'varchar':
      return text;
    case 'varbinary':
      return /^0x(?:[0-9a-f]{2})*$/i.test(value) ? value.toLowerCase() : undefined;
    case 'integer':
    case 'bigint':
    case 'uint256':
    case 'int256': {
      if (!/^[+-]?\d{1,80}$/.test(value)) return undefined;
      const number = BigInt(value);
      const [min, max] = INTEGER_RANGES[type]!;
      return number >= min && number <= max ? number.toString() : undefined;
    }
    case 'double': {
      if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(value)) return undefined;
      const number = Number(value);
      return Number.isFinite(number) ? String(number) : undefined;
    }
    case 'boolean':
      return /^(?:true|false)$/i.test(value) ? value.toLowerCase() : undefined;
    case 'date':
      return canonicalDate(value);
    case 'timestamp':
      return canonicalTimestamp(value);
  }
}

function canonicalDate(value: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return undefined;
  const [year, month, day] = match.slice(1).map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    ? value
    : undefined;
}

/**
 * ISO 8601 (a date, or a date and time with `T` or a space, optional seconds and fraction, and `Z`
 * or an offset) as UTC `YYYY-MM-DD HH:MM:SS.mmm`: the text both engines cast to a timestamp.
 */
function canonicalTimestamp(value: string): string | undefined {
  const match =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?))?)?$/i.exec(
      value,
    );
  if (!match || !canonicalDate(match[1]!)) return undefined;
  const [, day, hours = '00', minutes = '00', seconds = '00', fraction = '', zone = 'Z'] = match;
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  const millis = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offset = /^(?:Z|UTC)$/i.test(zone)
    ? '+00:00'
    : zone.length === 3
      ? `${zone}:00`
      : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const time = Date.parse(
    `${day}T${hours}:${minutes}:${seconds}.${String(millis).padStart(3, '0')}${offset}`,
  );
  if (!Number.isFinite(time)) return undefined;
  return new Date(time).toISOString().replace('T', ' ').replace('Z', '');
}

function columnList(columns: readonly UploadColumn[]): string {
  return columns.map((column) => column.name).join(', ');
}

/**
 * The text in slices, the event loop handed back before each. A slice never ends between the two
 * halves of a surrogate pair (an emoji): each is encoded to UTF-8 on its own.
 */
async function* slices(text: string): AsyncGenerator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + SLICE_CHARS);
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff && end < text.length) end++;
    await nextTurn();
    yield text.slice(start, end);
    start = end;
  }
}

/** Maps the items a slice at a time, handing the event loop back between slices. */
async function sliced<T, R>(items: readonly T[], map: (item: T, index: number) => R): Promise<R[]> {
  const out: R[] = [];
  for (let start = 0; start < items.length; start += SLICE_ROWS) {
    if (start > 0) await nextTurn();
    const end = Math.min(items.length, start + SLICE_ROWS);
    for (let i = start; i < end; i++) out.push(map(items[i]!, i));
  }
  return out;
}
