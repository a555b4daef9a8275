import {
  DuckDBArrayValue,
  DuckDBBitValue,
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBGeometryValue,
  DuckDBIntervalValue,
  DuckDBListValue,
  DuckDBMapValue,
  DuckDBStructValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTimeTZValue,
  DuckDBTimeValue,
  DuckDBUnionValue,
  DuckDBUUIDValue,
  type DuckDBValue,
  DuckDBVariantValue,
} from '@duckdb/node-api';
import type { ResultValue } from '../../core/engine';
import { decimalValue as decimal, integerValue as integer } from '../../core/result-encoding';

export { CSV_LINE_BREAK, csvField } from '../../core/result-encoding';

/**
 * Turns DuckDB values into the JSON values analysts expect from the results API:
 * - BLOB → lowercase `0x…` hex;
 * - integers → numbers while exact (|n| ≤ 2^53 − 1), exact decimal strings beyond (BIGINT, UBIGINT,
 *   HUGEINT, UHUGEINT, never through a float);
 * - DECIMAL → a number when the number prints back as the same decimal, else the exact string;
 * - DOUBLE/FLOAT → numbers (NaN and ±Infinity, which JSON lacks, as strings);
 * - TIMESTAMP (any precision, with or without time zone) → `2024-01-01 00:00:00.000 UTC`;
 *   DATE → `2024-01-01`;
 * - LIST/ARRAY → arrays, STRUCT → objects, MAP → an object keyed by each key's text as rendered
 *   here (`0x…` for varbinary, `… UTC` for timestamps; the Athena translation writes the same
 *   keys, functions/dunesql/nested-json.ts), or [{key, value}] when keys are arrays, maps or rows,
 *   recursively; BOOLEAN → boolean; everything else → DuckDB's text form.
 *
 * `exactText` marks a column stored as the decimal text of a HUGEINT, converted like an integer.
 * Other text, such as a UHUGEINT (uint256) stored as its decimal text, stays a string: Dune renders
 * uint256 values as exact decimal strings.
 */
export function encodeValue(value: DuckDBValue, exactText = false): ResultValue {
  if (value === null) return null;
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return integer(value);
    case 'string':
      return exactText && /^-?\d+$/.test(value) ? integer(BigInt(value)) : value;
  }
  if (value instanceof DuckDBBlobValue || value instanceof DuckDBGeometryValue) return hex(value.bytes);
  if (value instanceof DuckDBDecimalValue) return decimal(value.toString());
  if (value instanceof DuckDBTimestampValue || value instanceof DuckDBTimestampTZValue) {
    return value.isFinite ? timestamp(floorDiv(value.micros, 1000n)) : value.toString();
  }
  if (value instanceof DuckDBTimestampMillisecondsValue) {
    return value.isFinite ? timestamp(value.millis) : value.toString();
  }
  if (value instanceof DuckDBTimestampSecondsValue) {
    return value.isFinite ? timestamp(value.seconds * 1000n) : value.toString();
  }
  if (value instanceof DuckDBTimestampNanosecondsValue) {
    return value.isFinite ? timestamp(floorDiv(value.nanos, 1_000_000n)) : value.toString();
  }
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) {
    return value.items.map((item) => encodeValue(item));
  }
  if (value instanceof DuckDBStructValue) {
    const object: Record<string, ResultValue> = {};
    for (const [key, item] of Object.entries(value.entries)) object[key] = encodeValue(item);
    return object;
  }
  if (value instanceof DuckDBMapValue) {
    const keys = value.entries.map(({ key }) => encodeValue(key));
    const scalarKeys = keys.every((key) => ['string', 'number', 'boolean'].includes(typeof key));
    if (scalarKeys) {
      const object: Record<string, ResultValue> = {};
      value.entries.forEach(({ value: item }, i) => {
        object[String(keys[i])] = encodeValue(item);
      });
      return object;
    }
    return value.entries.map(({ value: item }, i) => ({ key: keys[i]!, value: encodeValue(item) }));
  }
  if (value instanceof DuckDBUnionValue || value instanceof DuckDBVariantValue)
    return encodeValue(value.value);
  // Results store intervals as this text already (storage-types.ts); files written before that
  // hold DuckDB intervals.
  if (value instanceof DuckDBIntervalValue) return intervalText(value);
  if (
    value instanceof DuckDBDateValue ||
    value instanceof DuckDBTimeValue ||
    value instanceof DuckDBTimeTZValue ||
    value instanceof DuckDBUUIDValue ||
    value instanceof DuckDBBitValue
  ) {
    return value.toString();
  }
  return String(value);
}

/**
 * An interval as Trino writes it (its SqlIntervalYearMonth and SqlIntervalDayTime): `1-2` for
 * months, `3 14:00:00.000` for days and time (to the millisecond), a `-` before either below zero.
 * One holding both (DuckDB allows it, Trino does not) keeps DuckDB's text.
 */
function intervalText({ months, days, micros }: DuckDBIntervalValue): string {
  const dayTimeMicros = BigInt(days) * 86_400_000_000n + micros;
  if (months !== 0 && dayTimeMicros !== 0n) return new DuckDBIntervalValue(months, days, micros).toString();
  if (months !== 0) {
    const total = Math.abs(months);
    return `${months < 0 ? '-' : ''}${Math.floor(total / 12)}-${total % 12}`;
  }
  const ms = (dayTimeMicros < 0n ? -dayTimeMicros : dayTimeMicros) / 1000n;
  const two = (n: bigint) => String(n).padStart(2, '0');
  return (
    `${dayTimeMicros < 0n ? '-' : ''}${ms / 86_400_000n} ${two((ms / 3_600_000n) % 24n)}:` +
    `${two((ms / 60_000n) % 60n)}:${two((ms / 1000n) % 60n)}.${String(ms % 1000n).padStart(3, '0')}`
  );
}

function hex(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

/** 0000-01-01 and 9999-12-31 23:59:59.999 UTC: the years `Date.toISOString()` writes with four digits. */
const FOUR_DIGIT_YEARS = { min: -62_167_219_200_000n, max: 253_402_300_799_999n };
const MILLIS_PER_DAY = 86_400_000n;

/**
 * `2024-01-01 00:00:00.000 UTC` from epoch milliseconds, for every value DuckDB can hold: years
 * past 9999 or before 0 (beyond what a JavaScript Date can even represent) keep the same layout,
 * with more digits or a leading `-` (astronomical year numbering: year 0 is 1 BC).
 */
function timestamp(millis: bigint): string {
  // Sorted or bucketed results repeat a timestamp row after row: the last one is kept.
  if (millis === lastTimestamp.millis) return lastTimestamp.text;
  const text = timestampText(millis);
  lastTimestamp = { millis, text };
  return text;
}

let lastTimestamp: { millis?: bigint; text: string } = { text: '' };

function timestampText(millis: bigint): string {
  if (millis >= FOUR_DIGIT_YEARS.min && millis <= FOUR_DIGIT_YEARS.max) {
    const iso = new Date(Number(millis)).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)} UTC`;
  }
  const days = floorDiv(millis, MILLIS_PER_DAY);
  const { year, month, day } = civilFromDays(Number(days));
  const ofDay = Number(millis - days * MILLIS_PER_DAY);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  const time = `${pad(Math.floor(ofDay / 3_600_000))}:${pad(Math.floor(ofDay / 60_000) % 60)}:${pad(Math.floor(ofDay / 1000) % 60)}.${pad(ofDay % 1000, 3)}`;
  const yearText = year < 0 ? `-${pad(-year, 4)}` : pad(year, 4);
  return `${yearText}-${pad(month)}-${pad(day)} ${time} UTC`;
}

/** The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's days_from_civil, inverted). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** Bytes a value occupies as stored (no JSON overhead); an estimate for page accounting. */
export function storedBytes(value: DuckDBValue): number {
  if (value === null) return 0;
  switch (typeof value) {
    case 'boolean':
      return 1;
    case 'number':
      return 8;
    case 'bigint':
      return value > 0xffff_ffff_ffff_ffffn || value < -0x8000_0000_0000_0000n ? 16 : 8;
    case 'string':
      return Buffer.byteLength(value, 'utf8');
  }
  if (value instanceof DuckDBBlobValue || value instanceof DuckDBGeometryValue) return value.bytes.byteLength;
  if (value instanceof DuckDBListValue || value instanceof DuckDBArrayValue) {
    return value.items.reduce<number>((sum, item) => sum + storedBytes(item), 0);
  }
  if (value instanceof DuckDBStructValue) {
    return Object.values(value.entries).reduce<number>((sum, item) => sum + storedBytes(item), 0);
  }
  if (value instanceof DuckDBMapValue) {
    return value.entries.reduce<number>(
      (sum, entry) => sum + storedBytes(entry.key) + storedBytes(entry.value),
      0,
    );
  }
  if (value instanceof DuckDBUnionValue || value instanceof DuckDBVariantValue)
    return storedBytes(value.value);
  if (value instanceof DuckDBDateValue) return 4;
  if (
    value instanceof DuckDBDecimalValue ||
    value instanceof DuckDBIntervalValue ||
    value instanceof DuckDBUUIDValue
  ) {
    return 16;
  }
  if (value instanceof DuckDBBitValue) return value.data.byteLength;
  return 8;
}
