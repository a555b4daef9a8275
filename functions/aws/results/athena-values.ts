/**
 * Athena's CSV text of each column type, decoded to the results API's JSON values (the same rules
 * as the local store: exact integers, 0x hex for binary, `… UTC` timestamps), and compared the way
 * SQL compares them, for `filters` and `sort_by`.
 */
import type { FilterExpression, FilterValue, ResultColumn, ResultValue } from '../../core/engine';
import {
  booleanLiteral,
  checkFilterLiteral,
  intervalMillis,
  numberLiteral,
  timestampLiteral,
} from '../../core/filter-literals';
import { decimalValue, integerValue, resolveColumn } from '../../core/result-encoding';
import type { ValueKind } from '../../core/sql-types';

export interface AthenaColumn extends ResultColumn {
  kind: ValueKind;
}

const TIMESTAMP_TEXT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(?:\s+(\S+))?/;

/**
 * `2024-01-01 00:00:00.000 UTC`, the local store's timestamp form, from Athena's text. A
 * `timestamp with time zone` keeps the zone Trino writes after it (`… America/New_York`, from
 * `x AT TIME ZONE …`); a timestamp without one is UTC, as Dune's are.
 */
function timestampText(text: string): string {
  const match = TIMESTAMP_TEXT.exec(text);
  if (!match) return text;
  return `${wallClock(match)} ${match[4] ?? 'UTC'}`;
}

/** What timestamps compare by: the wall-clock time shown (as locally), whatever its zone label. */
function timestampKey(text: string): string {
  const match = TIMESTAMP_TEXT.exec(text);
  return match ? wallClock(match) : text;
}

const wallClock = (match: RegExpExecArray) =>
  `${match[1]} ${match[2]}.${(match[3] ?? '').padEnd(3, '0').slice(0, 3)}`;

/** Binary as Athena prints it (hex pairs, space-separated) or already as 0x hex → `0x…` lowercase. */
function binaryText(text: string): string {
  const hex = text.startsWith('0x') ? text.slice(2) : text.replaceAll(' ', '');
  return `0x${hex.toLowerCase()}`;
}

/**
 * JSON text of an array, map or row, parsed with the local store's number rules: integers exact
 * (strings past 2^53), decimals as numbers only while they print back the same.
 */
function nestedValue(text: string): ResultValue {
  try {
    return JSON.parse(text, (_key, value, context?: { source?: string }) => {
      if (typeof value !== 'number' || context?.source === undefined) return value;
      const source = context.source;
      if (/^-?\d+$/.test(source)) return integerValue(BigInt(source));
      return /[eE]/.test(source) ? value : decimalValue(source);
    });
  } catch {
    return text;
  }
}

export function decodeValue(text: string | null, kind: ValueKind): ResultValue {
  if (text === null) return null;
  switch (kind) {
    case 'nested':
      return nestedValue(text);
    case 'integer':
      return /^-?\d+$/.test(text) ? integerValue(BigInt(text)) : text;
    case 'number': {
      const number = Number(text);
      if (!Number.isFinite(number)) return text;
      return text.includes('e') || text.includes('E') ? number : decimalValue(text);
    }
    case 'boolean':
      return text === 'true';
    case 'binary':
      return binaryText(text);
    case 'timestamp':
      return timestampText(text);
    default:
      return text;
  }
}

/** Bytes a value occupies as stored (no JSON overhead); an estimate for page accounting. */
export function storedBytes(text: string | null, kind: ValueKind): number {
  if (text === null) return 0;
  switch (kind) {
    case 'integer':
      return text.length > 19 ? 16 : 8;
    case 'number':
    case 'timestamp':
      return 8;
    case 'boolean':
      return 1;
    case 'date':
      return 4;
    case 'binary':
      return Math.floor(binaryText(text).length / 2) - 1;
    default:
      return Buffer.byteLength(text, 'utf8');
  }
}

/**
 * Binary in Athena's form, lowercase hex pairs separated by spaces: comparing these strings orders
 * them as their bytes (hex digits sort as nibbles, spaces sit at the same places, a prefix sorts
 * first), without rebuilding a `0x` string per row.
 */
function binaryComparable(text: string): string {
  if (!text.startsWith('0x')) return text.toLowerCase();
  return (text.slice(2).toLowerCase().match(/../g) ?? []).join(' ');
}

/** A comparable form of a column's text: bigint, number, string; null stays null. */
type Comparable = bigint | number | string | boolean | null;

function comparable(text: string | null, kind: ValueKind): Comparable {
  if (text === null) return null;
  switch (kind) {
    case 'integer':
      return /^-?\d+$/.test(text) ? BigInt(text) : Number(text);
    case 'number':
      return Number(text);
    case 'boolean':
      return text === 'true';
    case 'binary':
      return binaryComparable(text);
    case 'timestamp':
      return timestampKey(text);
    case 'interval':
      return intervalMillis(text) ?? text;
    default:
      return text;
  }
}

/** Orders two non-null values of one column (an integer column may meet a float literal). */
function compareValues(a: NonNullable<Comparable>, b: NonNullable<Comparable>): number {
  if (typeof a === 'bigint' && typeof b === 'number') return compareMixed(a, b);
  if (typeof a === 'number' && typeof b === 'bigint') return -compareMixed(b, a);
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareMixed(a: bigint, b: number): number {
  if (Number.isNaN(b)) return -1;
  if (Number.isInteger(b) && Math.abs(b) <= Number.MAX_SAFE_INTEGER) {
    const other = BigInt(b);
    return a < other ? -1 : a > other ? 1 : 0;
  }
  const number = Number(a);
  return number < b ? -1 : number > b ? 1 : 0;
}

/**
 * A filter literal converted to the column's kind, as SQL would cast it; one that cannot be a
 * value of the column is refused first (core/filter-literals.ts, as on the local host).
 */
function literal(column: AthenaColumn, value: FilterValue): Comparable {
  checkFilterLiteral(column, column.kind, value);
  switch (column.kind) {
    case 'integer': {
      if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return BigInt(value.trim());
      const number = numberLiteral(value)!;
      return typeof value === 'number' && Number.isSafeInteger(number) ? BigInt(number) : number;
    }
    case 'number':
      return numberLiteral(value, true)!;
    case 'boolean':
      return booleanLiteral(value)!;
    case 'binary':
      return binaryComparable(String(value));
    case 'timestamp': {
      // A zone after it (`UTC`, or the one a zone-moved column shows) is the column's own.
      const { date, time } = timestampLiteral(value)!;
      return timestampKey(`${date} ${time}`);
    }
    case 'date':
      return timestampLiteral(value)!.date;
    case 'interval':
      return intervalMillis(String(value))!;
    default:
      return String(value);
  }
}

/** What LIKE matches against: the value as displayed (0x hex for binary, numbers as text). */
function displayText(text: string, kind: ValueKind): string {
  if (kind === 'nested') return text;
  const value = decodeValue(text, kind);
  return typeof value === 'string' ? value : String(value);
}

function likePattern(pattern: string): RegExp {
  let source = '';
  for (const char of pattern) {
    if (char === '%') source += '[\\s\\S]*';
    else if (char === '_') source += '[\\s\\S]';
    else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

export type RowPredicate = (record: (string | null)[]) => boolean;

const COMPARE: Record<string, (order: number) => boolean> = {
  '=': (order) => order === 0,
  '!=': (order) => order !== 0,
  '<>': (order) => order !== 0,
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
};

/** Compiles `filters` to a predicate over raw CSV records; a comparison with NULL is false, as in SQL. */
export function compileFilter(expression: FilterExpression, columns: AthenaColumn[]): RowPredicate {
  const index = (name: string) => columns.indexOf(resolveColumn(columns, name, 'filters'));
  switch (expression.kind) {
    case 'and': {
      const left = compileFilter(expression.left, columns);
      const right = compileFilter(expression.right, columns);
      return (record) => left(record) && right(record);
    }
    case 'or': {
      const left = compileFilter(expression.left, columns);
      const right = compileFilter(expression.right, columns);
      return (record) => left(record) || right(record);
    }
    case 'compare': {
      const i = index(expression.column);
      const column = columns[i]!;
      const value = literal(column, expression.value) as NonNullable<Comparable>;
      const test = COMPARE[expression.operator]!;
      return (record) => {
        const own = comparable(record[i] ?? null, column.kind);
        return own !== null && test(compareValues(own, value));
      };
    }
    case 'in': {
      const i = index(expression.column);
      const column = columns[i]!;
      const values = expression.values.map((value) => literal(column, value) as NonNullable<Comparable>);
      return (record) => {
        const own = comparable(record[i] ?? null, column.kind);
        return own !== null && values.some((value) => compareValues(own, value) === 0);
      };
    }
    case 'like': {
      const i = index(expression.column);
      const kind = columns[i]!.kind;
      const pattern = likePattern(expression.pattern);
      return (record) => {
        const text = record[i] ?? null;
        return text !== null && pattern.test(displayText(text, kind));
      };
    }
    case 'null': {
      const i = index(expression.column);
      return expression.negated ? (record) => record[i] != null : (record) => record[i] == null;
    }
  }
}

/** The positions of the columns a filter reads. */
export function filterColumns(expression: FilterExpression, columns: AthenaColumn[]): number[] {
  switch (expression.kind) {
    case 'and':
    case 'or':
      return [...filterColumns(expression.left, columns), ...filterColumns(expression.right, columns)];
    default:
      return [columns.indexOf(resolveColumn(columns, expression.column, 'filters'))];
  }
}

/** A sortable row: its key values and its position in the stored result (the final tiebreaker). */
export interface KeyedRow {
  keys: Comparable[];
  rowNumber: number;
  record: (string | null)[];
}

export interface SortSpec {
  indexes: number[];
  kinds: ValueKind[];
  descending: boolean[];
}

export function sortKeys(record: (string | null)[], spec: SortSpec): Comparable[] {
  return spec.indexes.map((i, k) => comparable(record[i] ?? null, spec.kinds[k]!));
}

/** ORDER BY the keys (NULLS LAST in both directions, as locally), then the stored position. */
export function compareRows(a: KeyedRow, b: KeyedRow, spec: SortSpec): number {
  for (let k = 0; k < spec.indexes.length; k++) {
    const x = a.keys[k] ?? null;
    const y = b.keys[k] ?? null;
    if (x === null || y === null) {
      if (x === y) continue;
      return x === null ? 1 : -1;
    }
    const order = compareValues(x, y);
    if (order !== 0) return spec.descending[k] ? -order : order;
  }
  return a.rowNumber - b.rowNumber;
}
