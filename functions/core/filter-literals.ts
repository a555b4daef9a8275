/**
 * Which `filters` literals a column of each kind can be compared with, checked the same way on
 * both hosts before anything is read: a literal that cannot be the column's type is a 400 naming
 * the value, the column and its DuneSQL type, and saying what to write instead. The AWS store
 * reads its literals with the parsers here; the local store checks them here and binds them.
 */
import type { FilterValue } from './engine';
import { BadRequestError } from './errors';
import { filterColumnReference } from './result-filter';
import { duneSqlTypeName, type ValueKind } from './sql-types';

/** A number as SQL writes one: `42`, `-1.5`, `.5`, `1e18` (surrounding spaces allowed). */
const NUMERAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** What a double or real column may also hold. */
const SPECIAL_NUMBER = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * A numeric literal's value: a JS number as is, a numeral's text read as a number; a double (or
 * real) column also takes `NaN` and `Infinity`. Undefined when the text is no number.
 */
export function numberLiteral(value: FilterValue, allowSpecial = false): number | undefined {
  if (typeof value === 'number') return value;
  const text = value.trim();
  if (NUMERAL.test(text)) return Number(text);
  const special = allowSpecial ? SPECIAL_NUMBER.exec(text) : null;
  if (!special) return undefined;
  if (special[2]!.toLowerCase() === 'nan') return Number.NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}

/** `true`, `false`, `1` or `0` (any case, as a string or a number); undefined otherwise. */
export function booleanLiteral(value: FilterValue): boolean | undefined {
  const text = String(value).trim().toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  return undefined;
}

const TIMESTAMP_LITERAL =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(?:\s*(Z)|\s+([A-Za-z][A-Za-z0-9_+\-/]*)|\s*([+-]\d{2}(?::?\d{2})?))?$/;

export interface TimestampLiteral {
  /** `2024-03-05` */
  date: string;
  /** `12:00:00`, `12:00:00.123`; midnight when the literal is a date. */
  time: string;
  /** What followed the time, if anything: `Z`, a zone name (`UTC`, `America/New_York`), `+02:00`. */
  zone?: string;
}

/**
 * A date or timestamp literal: `2024-03-05`, `2024-03-05 12:00[:00[.123]]` (or with `T`), with
 * an optional zone after it (`Z`, `UTC`, `America/New_York`, `+02:00`), a real calendar date and
 * time of day. Undefined for anything else.
 */
export function timestampLiteral(value: FilterValue): TimestampLiteral | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TIMESTAMP_LITERAL.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hours = '00', minutes = '00', seconds = '00', fraction = ''] = match;
  if (!isCalendarDate(Number(year), Number(month), Number(day))) return undefined;
  if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return undefined;
  const zone = match[8] ?? match[9] ?? match[10];
  return {
    date: `${year}-${month}-${day}`,
    time: `${hours}:${minutes}:${seconds}${fraction}`,
    ...(zone === undefined ? {} : { zone }),
  };
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
  return day <= days;
}

const DAY_TIME = /^(-?)(\d+) (\d+):(\d+):(\d+)(?:\.(\d+))?$/;
const YEAR_MONTH = /^(-?)(\d+)-(\d+)$/;
/** A month counts 30 days when intervals are compared, as DuckDB compares them locally. */
const MONTH_MILLIS = 30 * 86_400_000;
const UNIT_MILLIS: Readonly<Record<string, number>> = {
  year: 12 * MONTH_MILLIS,
  month: MONTH_MILLIS,
  week: 7 * 86_400_000,
  day: 86_400_000,
  hour: 3_600_000,
  minute: 60_000,
  second: 1000,
  millisecond: 1,
};
const UNITS: Readonly<Record<string, keyof typeof UNIT_MILLIS>> = Object.fromEntries(
  Object.entries({
    year: ['year', 'years', 'y', 'yr', 'yrs'],
    month: ['month', 'months', 'mon', 'mons'],
    week: ['week', 'weeks', 'w'],
    day: ['day', 'days', 'd'],
    hour: ['hour', 'hours', 'h', 'hr', 'hrs'],
    minute: ['minute', 'minutes', 'min', 'mins', 'm'],
    second: ['second', 'seconds', 's', 'sec', 'secs'],
    millisecond: ['millisecond', 'milliseconds', 'ms', 'msec', 'msecs'],
  }).flatMap(([unit, names]) => names.map((name) => [name, unit])),
);
const QUANTITY = /\s*(-?\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*/y;

/**
 * An interval in milliseconds (a month counted as 30 days): as Trino writes one (`1 02:00:00.000`,
 * `-1 02:00:00`, `1-6` for a year and six months), or as quantities with units (`3 hours`,
 * `1 day 2 hours`, `90 min`). Undefined for anything else.
 */
export function intervalMillis(text: string): number | undefined {
  const trimmed = text.trim();
  const dayTime = DAY_TIME.exec(trimmed);
  if (dayTime) {
    const [, sign, days, hours, minutes, seconds, fraction = '0'] = dayTime;
    const millis =
      ((Number(days) * 24 + Number(hours)) * 60 + Number(minutes)) * 60_000 +
      Number(seconds) * 1000 +
      Number(fraction.padEnd(3, '0').slice(0, 3));
    return sign ? -millis : millis;
  }
  const yearMonth = YEAR_MONTH.exec(trimmed);
  if (yearMonth) {
    const [, sign, years, months] = yearMonth;
    const millis = (Number(years) * 12 + Number(months)) * MONTH_MILLIS;
    return sign ? -millis : millis;
  }
  return quantitiesMillis(trimmed);
}

function quantitiesMillis(text: string): number | undefined {
  if (text === '') return undefined;
  QUANTITY.lastIndex = 0;
  let millis = 0;
  while (QUANTITY.lastIndex < text.length) {
    const match = QUANTITY.exec(text);
    const unit = match && UNITS[match[2]!.toLowerCase()];
    if (!unit) return undefined;
    millis += Number(match[1]) * UNIT_MILLIS[unit]!;
  }
  return Math.round(millis);
}

const isBinaryLiteral = (value: FilterValue) =>
  typeof value === 'string' && /^0x(?:[0-9a-f]{2})*$/i.test(value);

/** Whether a literal can be a value of a column of this kind (and type, for doubles' NaN and Infinity). */
function fits(kind: ValueKind, type: string, value: FilterValue): boolean {
  switch (kind) {
    case 'integer':
      return numberLiteral(value) !== undefined;
    case 'number':
      return numberLiteral(value, /^(double|real|float)\b/.test(type)) !== undefined;
    case 'boolean':
      return booleanLiteral(value) !== undefined;
    case 'date':
    case 'timestamp':
      return timestampLiteral(value) !== undefined;
    case 'interval':
      return typeof value === 'string' && intervalMillis(value) !== undefined;
    case 'binary':
      return isBinaryLiteral(value);
    default:
      // Text is compared as text (a number as its digits); nested values as their JSON text.
      return true;
  }
}

/**
 * Refuses a literal that cannot be a value of the column: a 400 saying so, with the column's
 * DuneSQL type and an example of what to write. `column.type` is the host's type name (DuckDB's
 * or Athena's), shown as DuneSQL names it; `kind` is how the host compares the column.
 */
export function checkFilterLiteral(
  column: { name: string; type: string },
  kind: ValueKind,
  value: FilterValue,
): void {
  const type = duneSqlTypeName(column.type);
  if (fits(kind, type, value)) return;
  const reference = filterColumnReference(column.name);
  throw new BadRequestError(
    `filters: ${literalText(value)} is not ${article(type)} ${type} (column ${reference}); ${advice(kind, type, reference)}`,
  );
}

function literalText(value: FilterValue): string {
  if (typeof value === 'number') return String(value);
  const text = value.length > 40 ? `${value.slice(0, 37)}...` : value;
  return `'${text.replaceAll("'", "''")}'`;
}

/** "an integer", "a uint256", "an interval day to second". */
function article(type: string): string {
  return /^(?:[aeio]|u(?!int|uid))/i.test(type) ? 'an' : 'a';
}

function advice(kind: ValueKind, type: string, column: string): string {
  switch (kind) {
    case 'integer':
      return `write a number, e.g. ${column} > 100`;
    case 'number':
      return `write a number, e.g. ${column} > 1.5`;
    case 'boolean':
      return `write true or false in quotes, e.g. ${column} = 'true'`;
    case 'date':
      return `write a date in quotes, e.g. ${column} >= '2024-03-05'`;
    case 'timestamp':
      return `write a timestamp or a date in quotes, e.g. ${column} >= '2024-03-05 12:00:00'`;
    case 'interval':
      return type.includes('year to month')
        ? `write years-months as results show them, in quotes, e.g. ${column} >= '1-6' (or '18 months')`
        : `write days hours:minutes:seconds as results show them, in quotes, e.g. ${column} > '1 02:00:00.000' (or '26 hours')`;
    case 'binary':
      return `write 0x and pairs of hex digits in quotes, e.g. ${column} = '0x00ab'`;
    default:
      return `write a 'quoted string'`;
  }
}
