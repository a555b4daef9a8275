import {
  columnName,
  containsAggregate,
  functionCall,
  isAggregateName,
  mapFreeColumns,
  nodeType,
  rewrite,
  stringLiteral,
} from './ast';
import { chainUtilityRules } from './chain-utility-functions';
import { jodaToStrftime, mysqlToStrftime, teradataToStrftime } from './date-formats';
import { UnsupportedConstruct } from './errors';
import { type DuckDbJsonPath, duckDbJsonPath, unsupportedPathMessage } from './json-paths';
import { quoteIdentifier } from './nested-json';
import { zonedTimestampLiteral, zoneOfExpression } from './output-types';
import type { AstNode } from './polyglot';
import { type Rule, type RuleContext, type RuleSet, renameTo } from './rules';

/**
 * The local engine's side of DuneSQL: DuckDB macros for Dune's onchain functions and for Trino
 * functions whose DuckDB namesake answers differently, plus the rewrite rules that route calls to
 * them. Helper names start with `dunesql_` so they never shadow DuckDB's own functions; error
 * messages drop the prefix (see userFacingMessage).
 */
export const HELPER_PREFIX = 'dunesql_';

const TWO_64 = '18446744073709551616::UHUGEINT';
const TWO_64_SIGNED = '18446744073709551616::HUGEINT';
const UINT128_MAX = '340282366920938463463374607431768211455::UHUGEINT';
const NAN = "CAST('NaN' AS DOUBLE)";

/** Hex digits of the last 16 bytes of a BLOB, left-padded with `pad` (a sign or zero digit). */
const low128Hex = (b: string, pad: string) =>
  `CASE WHEN length(hex(${b})) >= 32 THEN right(hex(${b}), 32) ELSE lpad(hex(${b}), 32, ${pad}) END`;
/** The 128-bit unsigned value of 32 hex digits. */
const uint128OfHex = (h: string) =>
  `((('0x' || left(${h}, 16))::UBIGINT::UHUGEINT << 64) | ('0x' || right(${h}, 16))::UBIGINT::UHUGEINT)`;
/** Hex digits before the last 16 bytes (must be zeros, or sign bits, to fit 128 bits). */
const highHex = (b: string) => `left(hex(${b}), greatest(length(hex(${b})) - 32, 0))`;
const isNegative = (b: string) => `(octet_length(${b}) > 0 AND left(hex(${b}), 1) >= '8')`;

/**
 * Fails the query with `message` (SQL text) where a value of `type` is expected. DuckDB's error()
 * counts as volatile, and try() refuses volatile functions: try(varbinary_to_uint256(x)) would not
 * even bind. The engine's JavaScript `dunesql_fail` fails alike and is not volatile.
 */
const failAs = (type: string, message: string) => `CAST(${HELPER_PREFIX}fail(${message}) AS ${type})`;

const tooWide = (what: 'uint256' | 'int256') =>
  failAs(
    what === 'uint256' ? 'UHUGEINT' : 'HUGEINT',
    `'${what} value does not fit the local engine''s 128-bit integers (DuneSQL uint256/int256 are 128-bit integers locally)'`,
  );

/**
 * A uint256 sum from the sums of its values' 64-bit halves, exact; past 128 bits (the high half
 * with the low half's carry reaches 2^64, counted exactly in HUGEINT) it fails saying so, instead
 * of with DuckDB's bare "Overflow in multiplication".
 */
const exactSum = (high: string, low: string) =>
  `CASE WHEN (${high})::HUGEINT + (${low})::HUGEINT // ${TWO_64_SIGNED} >= ${TWO_64_SIGNED} THEN ${UINT256_SUM_TOO_WIDE} ELSE (${high})::UHUGEINT * ${TWO_64} + (${low})::UHUGEINT END`;

const UINT256_SUM_TOO_WIDE =
  "error('sum of uint256 values exceeds the local engine''s 128-bit integers (DuneSQL uint256 is a 128-bit integer locally); divide raw amounts first, e.g. sum(amount_raw / 1e18)')";

/** The exact sum of a list of uint256 values, failing as exactSum does past 128 bits. */
const exactListSum = (list: string) =>
  `list_reduce(${list}, (a, b) -> CASE WHEN a > ${UINT128_MAX} - b THEN ${UINT256_SUM_TOO_WIDE} ELSE a + b END)`;

/** Trino's sum of bigint is a bigint, failing when it overflows (DuckDB sums into a HUGEINT). */
const bigintSum = (sum: string) =>
  `CASE WHEN ${sum} NOT BETWEEN -9223372036854775808 AND 9223372036854775807 THEN error('bigint addition overflow: the sum does not fit a bigint; sum a double or decimal instead, e.g. sum(cast(x AS double))') ELSE CAST(${sum} AS BIGINT) END`;

const toUint256 = `CASE WHEN ltrim(${highHex('b')}, '0') <> '' THEN ${tooWide('uint256')} ELSE ${uint128OfHex(low128Hex('b', "'0'"))} END`;
const toInt256 = `CASE
  WHEN ltrim(${highHex('b')}, CASE WHEN ${isNegative('b')} THEN 'F' ELSE '0' END) <> '' THEN ${tooWide('int256')}
  WHEN ${isNegative('b')} THEN -((~${uint128OfHex(low128Hex('b', "'F'"))}) + 1)::HUGEINT
  ELSE ${uint128OfHex(low128Hex('b', "'0'"))}::HUGEINT END`;
/** Big-endian signed integer of at most `bytes` bytes (Trino's from_big_endian_32/64). */
const toSigned = (bytes: number, type: string) => {
  const digits = bytes * 2;
  const h = `lpad(hex(b), ${digits}, '0')`;
  return `CASE WHEN octet_length(b) > ${bytes} THEN ${failAs(type, `'varbinary_to_${type.toLowerCase()} needs at most ${bytes} bytes'`)}
    ELSE (('0x' || ${h})::UBIGINT::HUGEINT - CASE WHEN octet_length(b) = ${bytes} AND left(${h}, 1) >= '8' THEN ${2n ** BigInt(bytes * 8)}::HUGEINT ELSE 0 END)::${type} END`;
};
const hexStart = 'CASE WHEN s > 0 THEN 2 * s - 1 ELSE 2 * s END';
const substringOf = `unhex(substring(hex(b), 2 * s - 1, 2 * l))`;
const substringFrom = `unhex(substring(hex(b), 2 * s - 1))`;

/** Macros created in each sandbox before it locks (name without prefix → overloads). */

/** split_to_map's string without one trailing entry delimiter. */
const TRIMMED = `CASE WHEN ends_with(s, e) THEN left(s, length(s) - length(e)) ELSE s END`;

/**
 * An interval as Trino writes it: a year-month interval `1-2`, a day-time one `3 14:00:00.000`
 * (`-0 01:30:00.000` below zero). DuckDB keeps months, days and microseconds in one value and
 * writes `1 year 2 months`, `3 days 14:00:00`; one holding both kinds (Trino has none) keeps
 * DuckDB's text.
 */
export function intervalText(i: string): string {
  const months = monthsOf(i);
  const micros = dayTimeMicrosOf(i);
  const sign = (n: string) => `CASE WHEN ${n} < 0 THEN '-' ELSE '' END`;
  const ms = `(abs(${micros}) // 1000)`;
  const two = (n: string) => `lpad(CAST(${n} AS VARCHAR), 2, '0')`;
  const dayTime =
    `${sign(micros)} || CAST(${ms} // 86400000 AS VARCHAR) || ' ' || ${two(`${ms} // 3600000 % 24`)} || ':' || ` +
    `${two(`${ms} // 60000 % 60`)} || ':' || ${two(`${ms} // 1000 % 60`)} || '.' || lpad(CAST(${ms} % 1000 AS VARCHAR), 3, '0')`;
  return `CASE WHEN ${months} <> 0 AND ${micros} <> 0 THEN CAST(${i} AS VARCHAR) WHEN ${months} <> 0 THEN ${yearMonthText(months)} ELSE ${dayTime} END`;
}

/** A year-to-month interval's text (`1-2`, `0-0`: its type, not its value, says which form). */
export function yearMonthIntervalText(i: string): string {
  return yearMonthText(monthsOf(i));
}

const monthsOf = (i: string) => `(datepart('year', ${i}) * 12 + datepart('month', ${i}))`;
/** A day-to-second interval's length in microseconds (a day counts 24 hours). */
const dayTimeMicrosOf = (i: string) =>
  `(datepart('day', ${i}) * 86400000000 + datepart('hour', ${i}) * 3600000000 + ` +
  `datepart('minute', ${i}) * 60000000 + datepart('microseconds', ${i}))`;

/**
 * Trino's `sequence` (SequenceFunction): a zero step, a step pointing away from the stop, and
 * more than 10,000 entries fail with Trino's messages, where DuckDB's generate_series answers an
 * empty or a huge list. `step` and `count` are numbers (a step in days, months or microseconds).
 */
const SEQUENCE_MAX_ENTRIES = 10_000;
const checkedSequence = (a: string, b: string, step: string, count: string, series: string) =>
  `CASE WHEN ${a} IS NULL OR ${b} IS NULL OR ${step} IS NULL THEN NULL ` +
  `WHEN ${step} = 0 THEN error('step must not be zero') ` +
  `WHEN (${step} > 0 AND ${b} < ${a}) OR (${step} < 0 AND ${b} > ${a}) THEN error('sequence stop value should be greater than or equal to start value if step is greater than zero otherwise stop should be less than or equal to start') ` +
  `WHEN ${count} > ${SEQUENCE_MAX_ENTRIES} THEN error('result of sequence function must not have more than ${SEQUENCE_MAX_ENTRIES} entries') ` +
  `ELSE ${series} END`;
/**
 * Dates or timestamps stepped by an interval: by months for a year-to-month one, each entry the
 * start plus a multiple of the step as in Trino (Jan 31, Feb 29, Mar 31; DuckDB's generate_series
 * steps from the previous entry: Mar 29), else by the step's length.
 */
const intervalSequence = (a: string, b: string, s: string, byLength: string, asDates = false) => {
  const count = `date_sub('month', ${a}, ${b}) // ${monthsOf(s)} + 1`;
  // The lambda's parameter is named so that no column passed as the start can be mistaken for it.
  const entry = `${a} + to_months(sequence_offset * ${monthsOf(s)})`;
  const byMonths = `list_transform(range(0, ${count}), sequence_offset -> ${asDates ? `CAST(${entry} AS DATE)` : entry})`;
  return `CASE WHEN ${monthsOf(s)} <> 0 THEN ${checkedSequence(a, b, monthsOf(s), count, byMonths)} ELSE ${byLength} END`;
};
const dateSeries = (a: string, b: string, step: string) =>
  `list_transform(generate_series(${a}::TIMESTAMP, ${b}::TIMESTAMP, ${step}), d -> d::DATE)`;
/** With no step: one up, or one down when the stop is below the start. */
const DEFAULT_STEP = 'CASE WHEN b >= a THEN 1 ELSE -1 END';
/** A day-to-second step in whole days (dates step by days). */
const STEP_DAYS = `${dayTimeMicrosOf('s')} // 86400000000`;
const SEQUENCE_MACRO = [
  // Dates step one day up or down by default, as Trino's; an interval step must be whole days or months.
  `(a DATE, b DATE) AS ${checkedSequence('a', 'b', DEFAULT_STEP, 'abs(b - a) + 1', dateSeries('a', 'b', `to_days(${DEFAULT_STEP})`))}`,
  `(a DATE, b DATE, s INTERVAL) AS ${intervalSequence(
    'a',
    'b',
    's',
    `CASE WHEN ${dayTimeMicrosOf('s')} % 86400000000 <> 0 THEN error('sequence step must be a day interval if start and end values are dates') ` +
      `ELSE ${checkedSequence('a', 'b', STEP_DAYS, `(b - a) // (${STEP_DAYS}) + 1`, dateSeries('a', 'b', 's'))} END`,
    true,
  )}`,
  `(a, b, s INTERVAL) AS ${intervalSequence('a', 'b', 's', checkedSequence('a', 'b', dayTimeMicrosOf('s'), `(epoch_us(b) - epoch_us(a)) // ${dayTimeMicrosOf('s')} + 1`, 'generate_series(a, b, s)'))}`,
  // Integers step one up or down by default.
  `(a, b) AS ${checkedSequence('a', 'b', DEFAULT_STEP, 'abs(CAST(b AS HUGEINT) - a) + 1', `generate_series(a, b, ${DEFAULT_STEP})`)}`,
  `(a, b, s) AS ${checkedSequence('a', 'b', 's', '(CAST(b AS HUGEINT) - a) // s + 1', 'generate_series(a, b, s)')}`,
].join(', ');
const yearMonthText = (months: string) =>
  `CASE WHEN ${months} < 0 THEN '-' ELSE '' END || CAST(abs(${months}) // 12 AS VARCHAR) || '-' || CAST(abs(${months}) % 12 AS VARCHAR)`;

/** The interval `intervalText` wrote (a stored view's column read back); other text as DuckDB reads it. */
export function intervalFromText(text: string): string {
  const dayTime = `regexp_extract(${text}, '^(-?)(\\d+) (\\d+):(\\d+):(\\d+)\\.(\\d+)$', ['s', 'd', 'h', 'm', 'sec', 'ms'])`;
  const yearMonth = `regexp_extract(${text}, '^(-?)(\\d+)-(\\d+)$', ['s', 'y', 'm'])`;
  // TRY_CAST: DuckDB may hoist a repeated cast out of its CASE branch (sorting by this does) and
  // evaluate it on rows of the other form, whose parts are ''.
  const int = (part: string) => `TRY_CAST(${part} AS BIGINT)`;
  const signed = (parts: string, interval: string) =>
    `(CASE WHEN ${parts}.s = '-' THEN -1 ELSE 1 END * (${interval}))`;
  return (
    `CASE WHEN ${dayTime}.d <> '' THEN ${signed(dayTime, `to_days(${int(`${dayTime}.d`)}) + to_hours(${int(`${dayTime}.h`)}) + to_minutes(${int(`${dayTime}.m`)}) + to_milliseconds(${int(`${dayTime}.sec`)} * 1000 + ${int(`${dayTime}.ms`)})`)} ` +
    `WHEN ${yearMonth}.y <> '' THEN ${signed(yearMonth, `to_months(${int(`${yearMonth}.y`)} * 12 + ${int(`${yearMonth}.m`)})`)} ` +
    `ELSE CAST(${text} AS INTERVAL) END`
  );
}

/** `date` unless the interval `i` holds hours, minutes or seconds, which Trino refuses on a date. */
const wholeDays = (i: string, date: string) =>
  `CASE WHEN datepart('hour', ${i}) <> 0 OR datepart('minute', ${i}) <> 0 OR datepart('microseconds', ${i}) <> 0 ` +
  `THEN ${failAs('DATE', "'Cannot add hour, minutes or seconds to a date'")} ELSE ${date} END`;

/** n / d of two integers, rounded half away from zero. */
const roundedQuotient = (n: string, d: string) =>
  `((2 * abs(${n}) + abs(${d})) // (2 * abs(${d})) * sign(${n}) * sign(${d}))`;

/**
 * Trino's weighted approx_percentile of a group (the macro's x, w) at percentage `p`: the values
 * with their weights, sorted, walked until the running weight reaches p of the total. The group's
 * entries reach the walk through a one-element list, as a lambda cannot hold an aggregate.
 */
const weightedPercentile = (p: string) => {
  const entries =
    "list_sort(list({'v': x, 'w': CAST(w AS DOUBLE)}) FILTER (WHERE x IS NOT NULL AND w IS NOT NULL))";
  const total = 'sum(CAST(w AS DOUBLE)) FILTER (WHERE x IS NOT NULL AND w IS NOT NULL)';
  const step =
    '(percentile_state, percentile_entry) -> CASE WHEN percentile_state.found THEN percentile_state ' +
    "ELSE {'cum': percentile_state.cum + percentile_entry.w, 'v': percentile_entry.v, " +
    `'found': percentile_state.cum + percentile_entry.w >= percentile_group.total * ${p}} END`;
  const start = "{'cum': CAST(0 AS DOUBLE), 'v': percentile_group.entries[1].v, 'found': false}";
  return `list_transform([{'entries': ${entries}, 'total': ${total}}], percentile_group -> list_reduce(percentile_group.entries, ${step}, ${start}).v)[1]`;
};

/**
 * Trino's combinations(array, n), n up to 5: the n-element subsets by position, each in array
 * order, listed as Trino lists them (by the last position, then the one before, ...: [1,2], [1,3],
 * [2,3], [1,4]). Each size is its own nest of loops over positions, the outermost bounded by
 * `end` (past the last position).
 */
const combinationPosition = (k: number) => `combination_i${k}`;
function combinationsOfSize(size: number, end: string): string {
  if (size === 0) return '[list_slice(a, 1, 0)]';
  const subset = `[${Array.from({ length: size }, (_, i) => `a[${combinationPosition(i + 1)}]`).join(', ')}]`;
  let loops = `list_transform(range(1, ${size === 1 ? end : combinationPosition(2)}), ${combinationPosition(1)} -> ${subset})`;
  for (let k = 2; k <= size; k++) {
    const bound = k === size ? end : combinationPosition(k + 1);
    loops = `flatten(list_transform(range(1, ${bound}), ${combinationPosition(k)} -> ${loops}))`;
  }
  return loops;
}
const COMBINATIONS_MAX_SIZE = 5;
/** The number of n-element subsets, as a double. */
const COMBINATION_COUNT =
  'list_reduce(range(1, n + 1), (combination_count, combination_k) -> combination_count * (len(a) - n + combination_k) / combination_k, CAST(1 AS DOUBLE))';
/** n, or Trino's failure for a size it refuses. */
const COMBINATION_SIZE =
  `CASE WHEN n < 0 THEN ${failAs('BIGINT', "'combination size must not be negative: ' || n")} ` +
  `WHEN n > ${COMBINATIONS_MAX_SIZE} THEN ${failAs('BIGINT', `'combination size must not exceed ${COMBINATIONS_MAX_SIZE}: ' || n`)} ` +
  `WHEN ${COMBINATION_COUNT} * n > 100000 THEN ${failAs('BIGINT', "'combinations exceed max size'")} ELSE n END`;
// The loops' bound reads the checked size: DuckDB folds a constant branch (a literal array) before
// the size is checked, and would build the subsets of a size Trino refuses for being too many.
const COMBINATIONS_MACRO =
  `(a, n) AS CASE WHEN a IS NULL OR n IS NULL THEN NULL ELSE CASE ${COMBINATION_SIZE} ` +
  Array.from(
    { length: COMBINATIONS_MAX_SIZE + 1 },
    (_, size) => `WHEN ${size} THEN ${combinationsOfSize(size, `len(a) + 1 + 0 * (${COMBINATION_SIZE})`)} `,
  ).join('') +
  'END END';

/**
 * Trino's parse_duration (airlift's Duration): a decimal number and a unit, rounded to the
 * millisecond, as a day-to-second interval.
 */
const DURATION_TEXT = "'^\\s*(\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]+)\\s*$'";
const DURATION_UNIT_MILLIS: Record<string, string> = {
  ns: '0.000001',
  us: '0.001',
  ms: '1',
  s: '1000',
  m: '60000',
  h: '3600000',
  d: '86400000',
};
const PARSE_DURATION_MACRO =
  `(s) AS CASE WHEN s IS NULL THEN NULL ` +
  `WHEN NOT regexp_matches(s, ${DURATION_TEXT}) THEN ${failAs('INTERVAL', "'duration is not a valid data duration string: ' || s")} ` +
  `ELSE to_milliseconds(CAST(round(CAST(regexp_extract(s, ${DURATION_TEXT}, 1) AS DOUBLE) * CASE regexp_extract(s, ${DURATION_TEXT}, 2) ` +
  Object.entries(DURATION_UNIT_MILLIS)
    .map(([unit, millis]) => `WHEN '${unit}' THEN ${millis} `)
    .join('') +
  `ELSE ${failAs('DOUBLE', `'Unknown time unit: ' || regexp_extract(s, ${DURATION_TEXT}, 2)`)} END) AS BIGINT)) END`;

/** The local digests (`tdigest_agg`, `qdigest_agg`): their struct field, value type and quantile. */
const DIGESTS = [
  { kind: 'tdigest', type: 'DOUBLE', quantile: 'quantile_cont' },
  { kind: 'qdigest', type: 'BIGINT', quantile: 'quantile_disc' },
  { kind: 'qdigest', type: 'DOUBLE', quantile: 'quantile_disc' },
] as const;

const MACROS: Record<string, string> = {
  // Exact sums: DuckDB sums UHUGEINT as DOUBLE. Summing the two 64-bit halves is exact. Trino's
  // sum of bigint (and of integer) is a bigint; DuckDB's a HUGEINT.
  sum: `(x UHUGEINT) AS ${exactSum('sum((x // ' + TWO_64 + ')::UBIGINT)', 'sum((x % ' + TWO_64 + ')::UBIGINT)')}, (x BIGINT) AS ${bigintSum('sum(x)')}, (x) AS sum(x)`,
  // sum(DISTINCT x) with the same types (a macro takes no DISTINCT): a bigint of integers, and an
  // exact uint256 as the sum of its distinct values' list (the halves' sums would not be distinct).
  sum_distinct: `(x UHUGEINT) AS ${exactListSum('list(DISTINCT x) FILTER (WHERE x IS NOT NULL)')}, (x BIGINT) AS ${bigintSum('sum(DISTINCT x)')}, (x) AS sum(DISTINCT x)`,
  // A windowed sum is two windowed sums of the halves (an OVER clause cannot go into a macro),
  // combined by the type of the summed column.
  sum_high: `(x UHUGEINT) AS (x // ${TWO_64})::UBIGINT, (x) AS x`,
  sum_low: `(x UHUGEINT) AS (x % ${TWO_64})::UBIGINT, (x) AS NULL::TINYINT`,
  // A windowed approx_percentile is DuckDB's approx_quantile of the values as doubles (as the
  // aggregate's macro reads a decimal), typed as Trino's: a bigint for integers, else a double. The
  // windowed value's type is unknown when the macro binds: the rule picks one or many percentiles.
  window_percentile: `(x BIGINT, q) AS CAST(q AS BIGINT), (x DOUBLE, q) AS q`,
  window_percentiles: `(x BIGINT, q) AS CAST(q AS BIGINT[]), (x DOUBLE, q) AS q`,
  window_sum: `(x UHUGEINT, high, low) AS ${exactSum('high', 'low')}, (x BIGINT, high, low) AS ${bigintSum('high')}, (x, high, low) AS high`,
  // Only for a unit that is not a literal (literal units become time_bucket, which keeps the type).
  date_trunc: `(unit, x DATE) AS date_trunc(unit, x)::DATE, (unit, x) AS date_trunc(unit, x)`,
  // Every overload typed, so no argument silently takes the DATE path (an aggregate argument is
  // typed through a lambda first: bindAggregateArguments).
  date_add: `(unit, n, x DATE) AS (x + n * ('1 ' || unit)::INTERVAL)::DATE, (unit, n, x TIMESTAMP) AS x + n * ('1 ' || unit)::INTERVAL, (unit, n, x TIMESTAMPTZ) AS x + n * ('1 ' || unit)::INTERVAL`,
  // Trino counts whole units elapsed (date_sub in DuckDB), not boundaries crossed (DuckDB date_diff).
  date_diff: `(unit, a, b) AS date_sub(unit, a, b)`,
  to_hex: `(b BLOB) AS hex(b)`,
  // IEEE 754 division (typed-rewrites.ts): by zero ±Infinity by the zero's sign, NaN for 0/0. The
  // infinities are reals, so a real quotient stays real (a double one stays double).
  float_divide: `(a, b) AS CASE WHEN b = 0 THEN a * CASE WHEN signbit(CAST(b AS DOUBLE)) THEN CAST('-Infinity' AS FLOAT) ELSE CAST('Infinity' AS FLOAT) END ELSE a / b END`,
  // Trino's decimal division (typed-rewrites.ts), exact: the operands as unscaled integers (fa, fb:
  // 10 to the power of each one's scale), the dividend shifted to the quotient's scale (shift),
  // divided and rounded half away from zero, then scaled back (unit: 10 to the minus scale).
  // DuckDB would divide in double precision (1.0 / 3 gave 0.333…, Trino's is 0.3).
  decimal_divide: `(a, b, fa, fb, shift, unit) AS CAST(${roundedQuotient(
    'CAST(a * fa AS HUGEINT) * shift',
    `CASE WHEN CAST(b * fb AS HUGEINT) = 0 AND a IS NOT NULL THEN ${failAs('HUGEINT', "'Division by zero'")} ELSE CAST(b * fb AS HUGEINT) END`,
  )} AS DECIMAL(38, 0)) * unit`,
  // A whole number computed with a uint256 (typed-rewrites.ts) becomes one, as in DuneSQL (a
  // negative one fails to convert); with an int256 it is used as it is. `w` only picks the overload.
  wide_operand: `(w UHUGEINT, n) AS CAST(n AS UHUGEINT), (w, n) AS n`,
  // A uint256 computed with an int256 (typed-rewrites.ts) becomes one, as in DuneSQL (int256 is the
  // wider type); DuckDB computed the two in double. `other` only picks the overload.
  int256_with: `(x UHUGEINT, other HUGEINT) AS CAST(x AS HUGEINT), (x, other) AS x`,
  // Minus a uint256 (typed-rewrites.ts) fails, where DuckDB's wraps around; minus an int256 negates.
  negate_wide: `(x UHUGEINT) AS CASE WHEN x = 0 THEN x ELSE ${failAs('UHUGEINT', "'Cannot negate the uint256 value ' || x || ': a uint256 is never negative; cast it to int256 first, e.g. -cast(value AS int256)'")} END, (x) AS -x`,
  // Trino's `array[n]` (typed-rewrites.ts, where the translation knows it is an array) fails past
  // either end, as Trino does, where DuckDB's answers NULL or counts from the end; NULL for a NULL
  // array or index. The failure stands in for the index, so the element keeps its type.
  array_at:
    `(a, i) AS a[CASE WHEN a IS NULL OR i IS NULL THEN i ` +
    `WHEN i > len(a) THEN ${failAs('BIGINT', "'Array subscript must be less than or equal to array length: ' || i || ' > ' || len(a)")} ` +
    `WHEN i = 0 THEN ${failAs('BIGINT', "'SQL array indices start at 1'")} ` +
    `WHEN i < 0 THEN ${failAs('BIGINT', "'Array subscript is negative: ' || i")} ELSE i END]`,
  // Trino's `map[key]` (typed-rewrites.ts, where the translation knows it is a map) fails for a key
  // the map lacks, naming the key, where DuckDB's answers NULL; NULL for a NULL map or key, and
  // for a key present with a NULL value. The failure indexes the map's values, so the result
  // keeps the value type.
  map_at:
    `(m, k) AS CASE WHEN m IS NULL OR k IS NULL OR map_contains(m, k) THEN m[k] ` +
    `ELSE map_values(m)[${failAs('BIGINT', "'Key not present in map: ' || CAST(k AS VARCHAR)")}] END`,
  from_hex: `(s) AS unhex(regexp_replace(s, '^0[xX]', ''))`,
  // typeof() is a function, so it sees the type of an aggregate argument where a typed macro
  // parameter cannot; both branches are bigint.
  length: `(x) AS CASE WHEN typeof(x) = 'BLOB' THEN octet_length(TRY_CAST(x AS BLOB)) ELSE length(TRY_CAST(x AS VARCHAR)) END`,
  // Trino: empty from position 0 or from before the start; a negative start counts from the end
  // (in bytes for varbinary: hex position 2s - 1 from the front, 2s from the back).
  substr: [
    `(x BLOB, s) AS CASE WHEN s = 0 OR s < -octet_length(x) THEN ''::BLOB ELSE unhex(substring(hex(x), ${hexStart})) END`,
    `(x BLOB, s, l) AS CASE WHEN s = 0 OR s < -octet_length(x) THEN ''::BLOB ELSE unhex(substring(hex(x), ${hexStart}, 2 * l)) END`,
    `(x VARCHAR, s) AS CASE WHEN s = 0 OR s < -length(x) THEN '' ELSE substring(x, s) END`,
    `(x VARCHAR, s, l) AS CASE WHEN s = 0 OR s < -length(x) THEN '' ELSE substring(x, s, l) END`,
  ].join(', '),
  // Trino reverses strings, varbinary (bytes) and arrays.
  reverse: `(x VARCHAR) AS reverse(x), (x BLOB) AS ${reversedBytes('x')}, (x) AS list_reverse(x)`,
  // Trino's split with a limit: at most n entries, the last holding the rest of the string.
  split_limited: `(s, d, n) AS CASE WHEN s IS NULL OR d IS NULL OR n IS NULL THEN NULL WHEN n <= 0 THEN error('Limit must be positive') WHEN len(string_split(s, d)) <= n THEN string_split(s, d) ELSE list_append(list_slice(string_split(s, d), 1, n - 1), array_to_string(list_slice(string_split(s, d), n, len(string_split(s, d))), d)) END`,
  // Trino: NULL past the last field (DuckDB: an empty string); an index below 1 fails (DuckDB: '').
  split_part: `(s, d, i) AS CASE WHEN i <= 0 THEN ${failAs('VARCHAR', "'Index must be greater than zero'")} WHEN i > len(string_split(s, d)) THEN NULL ELSE split_part(s, d, i) END`,
  map_size: `(m) AS len(map_keys(m))`,
  // Trino names DuckDB spells differently, or builds from DuckDB's own functions.
  is_finite: `(x) AS isfinite(x)`,
  is_infinite: `(x) AS isinf(x)`,
  infinity: `() AS CAST('Infinity' AS DOUBLE)`,
  nan: `() AS CAST('NaN' AS DOUBLE)`,
  codepoint: `(s) AS CAST(unicode(s) AS INTEGER)`,
  levenshtein_distance: `(a, b) AS CAST(levenshtein(a, b) AS BIGINT)`,
  hamming_distance: `(a, b) AS CAST(hamming(a, b) AS BIGINT)`,
  normalize: `(s) AS nfc_normalize(s)`,
  // Shifts within the value's width, as Java's (Trino's): bits shifted out are dropped, zeros come
  // in (a logical right shift); DuckDB's integer << fails on overflow, its BIT strings do not.
  bitwise_left_shift: shiftMacro('<<'),
  bitwise_right_shift: shiftMacro('>>'),
  // Weeks, days, hours, minutes and seconds that are not zero, as Trino words them.
  human_readable_seconds: `(s) AS CASE WHEN s IS NULL THEN NULL WHEN round(s) = 0 THEN '0 seconds' ELSE array_to_string(list_filter([${[
    ['604800', '', 'week'],
    ['86400', '604800', 'day'],
    ['3600', '86400', 'hour'],
    ['60', '3600', 'minute'],
    ['1', '60', 'second'],
  ]
    .map(([size, within, unit]) => {
      const count = `(${within ? `CAST(round(s) AS BIGINT) % ${within}` : 'CAST(round(s) AS BIGINT)'}) // ${size}`;
      return `CASE WHEN ${count} > 0 THEN (${count}) || ' ${unit}' || CASE WHEN ${count} > 1 THEN 's' ELSE '' END END`;
    })
    .join(', ')}], x -> x IS NOT NULL), ', ') END`,
  // The items a SQL/JSON path finds (p is DuckDB's path, json-paths.ts), a list of JSON values: one
  // at most for a path without wildcards; NULL for text that is not JSON.
  json_items: `(j, p) AS list_filter([json_extract(TRY_CAST(j AS JSON), p)], i -> i IS NOT NULL)`,
  json_items_any: `(j, p) AS json_extract(TRY_CAST(j AS JSON), p)`,
  // Trino's json_value: the text of the one scalar item found (JSON's null: NULL), NULL when none,
  // several, or an object or array (NULL ON EMPTY and NULL ON ERROR, the defaults).
  json_value: `(items) AS CASE WHEN len(items) = 1 AND json_type(items[1]) NOT IN ('OBJECT', 'ARRAY') THEN json_extract_string(items[1], '$') END`,
  // Trino's json_query: the one item found as JSON text (a scalar too, its string quoted unless
  // OMIT QUOTES), NULL when none or several; WITH ARRAY WRAPPER the items as an array, CONDITIONAL
  // unless they are one array or object.
  json_query: `(items, wrapper, omit_quotes) AS CASE
    WHEN items IS NULL OR len(items) = 0 THEN NULL
    WHEN wrapper = 'unconditional' OR (wrapper = 'conditional' AND NOT (len(items) = 1 AND json_type(items[1]) IN ('OBJECT', 'ARRAY'))) THEN CAST(to_json(items) AS VARCHAR)
    WHEN len(items) > 1 THEN NULL
    WHEN omit_quotes AND json_type(items[1]) = 'VARCHAR' THEN json_extract_string(items[1], '$')
    ELSE CAST(items[1] AS VARCHAR) END`,
  // Whether the path finds an item (its value may be JSON's null), false for text that is not JSON
  // (Trino's FALSE ON ERROR); p is DuckDB's path (json-paths.ts), a wildcard one's answer a list.
  json_exists: `(j, p) AS CASE WHEN j IS NOT NULL THEN coalesce(json_exists(TRY_CAST(j AS JSON), p), false) END`,
  json_exists_any: `(j, p) AS CASE WHEN j IS NOT NULL THEN coalesce(len(json_extract(TRY_CAST(j AS JSON), p)) > 0, false) END`,
  // Each key's values as an array (aggregate).
  multimap_agg: `(k, v) AS map_from_entries(list_transform(list_distinct(list(k)), key -> ROW(key, list_transform(list_filter(list(ROW(k, v)), e -> struct_extract(e, 1) IS NOT DISTINCT FROM key), e -> struct_extract(e, 2)))))`,
  // The elements in a random order: sorted by a random number each.
  shuffle: `(a) AS list_transform(list_sort(list_transform(a, v -> {'r': random(), 'v': v})), s -> s.v)`,
  // Trino's top-n aggregates, max(x, n) and min(x, n): the n largest (smallest) values, an array in
  // that order. polyglot would write a two-argument max as GREATEST.
  max_n: '(x, n) AS max(x, n)',
  min_n: '(x, n) AS min(x, n)',
  // Trino's HyperLogLog sketches, exact here (as approx_distinct is): a sketch is the list of its
  // distinct values' hashes, so cardinality() counts them and merge() unions them. NULL inputs
  // are skipped; a sketch of none is NULL (empty_approx_set() is the empty one, cardinality 0).
  // The optional second argument, Trino's maximum standard error, changes nothing exact.
  approx_set: ['(x)', '(x, max_standard_error)']
    .map(
      (head) =>
        `${head} AS CASE WHEN count(x) = 0 THEN NULL ELSE list_distinct(list(CASE WHEN x IS NOT NULL THEN hash(x) END)) END`,
    )
    .join(', '),
  // merge() of a digest column (below) joins their values; of anything else, HyperLogLog sketches.
  merge: [
    ...DIGESTS.map(
      ({ kind, type }) =>
        `(sketch STRUCT(${kind} ${type}[])) AS CASE WHEN count(sketch) = 0 THEN NULL ELSE {'${kind}': list_sort(flatten(list(sketch.${kind})))} END`,
    ),
    '(sketch) AS CASE WHEN count(sketch) = 0 THEN NULL ELSE list_distinct(flatten(list(sketch))) END',
  ].join(', '),
  empty_approx_set: `() AS CAST([] AS UBIGINT[])`,
  // Trino's T-digests and quantile digests, exact here: a digest holds its group's values, sorted
  // (a T-digest's as doubles); value_at_quantile interpolates between them for a T-digest and
  // answers one of them for a quantile digest, as Trino's estimates do. A digest of none is NULL.
  // Aggregated in place (`value_at_quantile(tdigest_agg(x), 0.5)`) they are quantile_cont and
  // quantile_disc of the values themselves (DUCKDB_RULES); these macros take digest columns.
  tdigest_agg: `(x) AS CASE WHEN count(x) = 0 THEN NULL ELSE {'tdigest': list_sort(list_filter(list(CAST(x AS DOUBLE)), v -> v IS NOT NULL))} END`,
  qdigest_agg: ['BIGINT', 'DOUBLE']
    .map(
      (type) =>
        `(x ${type}) AS CASE WHEN count(x) = 0 THEN NULL ELSE {'qdigest': list_sort(list_filter(list(x), v -> v IS NOT NULL))} END`,
    )
    .join(', '),
  // A digest column's quantile (one, or an array of them: values_at_quantiles), and that of a
  // group's digests merged (`value_at_quantile(merge(digest), q)`).
  value_at_quantile: DIGESTS.map(
    ({ kind, type, quantile }) =>
      `(digest STRUCT(${kind} ${type}[]), q) AS list_aggregate(digest.${kind}, '${quantile}', q)`,
  ).join(', '),
  merged_quantile: DIGESTS.map(
    ({ kind, type, quantile }) =>
      `(digest STRUCT(${kind} ${type}[]), q) AS list_aggregate(flatten(list(digest.${kind})), '${quantile}', q)`,
  ).join(', '),
  // A quantile digest's quantile is one of its values, a bigint for integers (Trino's qdigest(bigint)).
  qdigest_quantile: ['BIGINT', 'DOUBLE'].map((type) => `(x ${type}, q) AS quantile_disc(x, q)`).join(', '),
  // The buckets most frequent values and their counts (exact here).
  approx_most_frequent: `(buckets, x, capacity) AS map_from_entries(list_transform(list_slice(list_reverse_sort(list_transform(map_entries(histogram(x)), e -> ROW(e.value, e.key))), 1, buckets), e -> ROW(struct_extract(e, 2), CAST(struct_extract(e, 1) AS BIGINT))))`,
  // Bits of x as a bits-wide two's complement integer.
  bit_count: `(x, bits) AS CAST(bit_count(CAST(x AS BIGINT) & CASE WHEN bits >= 64 THEN -1 ELSE (CAST(1 AS BIGINT) << bits) - 1 END) AS BIGINT)`,
  // Digits 0-9 then a-z; a digit the radix does not have fails, as in Trino.
  from_base: `(s, radix) AS CASE WHEN s IS NULL OR radix IS NULL THEN NULL ELSE (CASE WHEN starts_with(s, '-') THEN -1 ELSE 1 END) * list_reduce(list_transform(string_split(lower(ltrim(s, '-')), ''), c -> CASE WHEN strpos('0123456789abcdefghijklmnopqrstuvwxyz', c) BETWEEN 1 AND radix THEN strpos('0123456789abcdefghijklmnopqrstuvwxyz', c) - 1 ELSE error('Not a valid base-' || radix || ' number: ' || s) END), (acc, d) -> acc * radix + d, CAST(0 AS BIGINT)) END`,
  to_big_endian_64: `(x) AS unhex(printf('%016x', CAST(x AS BIGINT)))`,
  to_big_endian_32: `(x) AS unhex(printf('%08x', CAST(x AS INTEGER)))`,
  from_unixtime_nanos: `(n) AS make_timestamp_ns(CAST(n AS BIGINT))::TIMESTAMPTZ`,
  from_unixtime: `(s) AS to_timestamp(s)`,
  to_iso8601: `(x DATE) AS strftime(x, '%Y-%m-%d'), (x TIMESTAMPTZ) AS strftime(x AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ'), (x TIMESTAMP) AS strftime(x, '%Y-%m-%dT%H:%M:%S.%g')`,
  // Text Trino's JSON reader cannot read is NULL to json_extract, json_extract_scalar, json_size,
  // json_array_length and json_array_get (JsonExtract returns null on a parse error; DuckDB's
  // functions fail): they read `TRY_CAST(j AS JSON)`.
  // An array's length, an object's number of keys, 0 for a scalar, NULL where the path finds nothing.
  json_size: `(j, p) AS CASE json_type(TRY_CAST(j AS JSON), p) WHEN 'ARRAY' THEN CAST(json_array_length(TRY_CAST(j AS JSON), p) AS BIGINT) WHEN 'OBJECT' THEN CAST(len(json_keys(TRY_CAST(j AS JSON), p)) AS BIGINT) ELSE CASE WHEN json_type(TRY_CAST(j AS JSON), p) IS NOT NULL THEN CAST(0 AS BIGINT) END END`,
  // Trino: NULL when the value at the path is an object or an array (DuckDB's ->> gives its text).
  json_extract_scalar: `(j, p) AS CASE WHEN json_type(TRY_CAST(j AS JSON), p) IN ('OBJECT', 'ARRAY') THEN NULL ELSE json_extract_string(TRY_CAST(j AS JSON), p) END`,
  json_array_get: `(j, i) AS json_extract(TRY_CAST(j AS JSON), CASE WHEN i < 0 THEN '$[#' || i || ']' ELSE '$[' || i || ']' END)`,
  is_json_scalar: `(j) AS json_type(j) NOT IN ('OBJECT', 'ARRAY')`,
  url_extract_host: `(u) AS nullif(regexp_extract(u, '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?([^/:?#]*)', 1), '')`,
  url_extract_path: `(u) AS regexp_extract(u, '^(?:[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*)?([^?#]*)', 1)`,
  url_extract_parameter: `(u, name) AS CASE WHEN regexp_matches(u, '[?&]' || name || '=') THEN regexp_extract(u, '[?&]' || name || '=([^&#]*)', 1) END`,
  // Trino's array set functions keep the first array's order and one NULL, and are NULL when an
  // argument is (DuckDB's list_distinct keeps neither order nor NULLs). First occurrences kept by
  // position: list_position finds NULL too.
  array_distinct: `(a) AS list_filter(a, (x, i) -> list_position(a, x) = i)`,
  // The lambda reads only a and b: an expression read inside a lambda is computed again for every
  // element (list_concat there made a union of two 20k-element arrays take 16 s).
  array_union: `(a, b) AS CASE WHEN a IS NULL OR b IS NULL THEN NULL ELSE list_filter(list_concat(a, b), (x, i) -> CASE WHEN i <= len(a) THEN list_position(a, x) = i ELSE list_position(a, x) IS NULL AND list_position(b, x) = i - len(a) END) END`,
  array_except: `(a, b) AS CASE WHEN b IS NULL THEN NULL ELSE list_filter(a, (x, i) -> list_position(a, x) = i AND list_position(b, x) IS NULL) END`,
  array_intersect: `(a, b) AS CASE WHEN b IS NULL THEN NULL ELSE list_filter(a, (x, i) -> list_position(a, x) = i AND list_position(b, x) IS NOT NULL) END`,
  // True on a common non-NULL element; else NULL if either holds a NULL; else false.
  arrays_overlap: `(a, b) AS CASE WHEN a IS NULL OR b IS NULL THEN NULL WHEN list_has_any(a, b) THEN true WHEN list_position(a, NULL) IS NOT NULL OR list_position(b, NULL) IS NOT NULL THEN NULL ELSE false END`,
  // Trino's slice takes a length; DuckDB's list_slice an inclusive end.
  slice: `(a, s, l) AS list_slice(a, s, CASE WHEN s > 0 THEN s + l - 1 ELSE len(a) + s + l END)`,
  width_bucket: `(x, lo, hi, n) AS (CASE WHEN x < lo THEN 0 WHEN x >= hi THEN n + 1 ELSE floor((x - lo) * n / (hi - lo)) + 1 END)::BIGINT`,
  // Trino's take bigint or double: integers give a bigint, anything else (a decimal, uint256) is
  // read as a double. DuckDB's approx_quantile of a decimal answered its unscaled storage integer
  // (1.5, 2.5, 3.5 gave 3 as a smallint).
  approx_percentile: `(x BIGINT, p) AS approx_quantile(x, p), (x DOUBLE, p) AS approx_quantile(x, p)`,
  // Weighted (Trino: a weight w counts the value w times): the smallest value whose running weight,
  // in value order, reaches p of the total; exact here. One percentage or an array of them.
  // Typed as the unweighted one: a bigint for integers, else a double.
  weighted_percentile: ['BIGINT', 'DOUBLE']
    .flatMap((type) => [
      `(x ${type}, w, p DOUBLE[]) AS list_transform(p, percentile_p -> ${weightedPercentile('percentile_p')})`,
      `(x ${type}, w, p) AS ${weightedPercentile('p')}`,
    ])
    .join(', '),
  // Trino's ngrams: every run of n consecutive elements; the whole array when it is shorter (so
  // [[]] for an empty one).
  ngrams: `(a, n) AS CASE WHEN a IS NULL OR n IS NULL THEN NULL ELSE list_transform(range(0, CASE WHEN n <= 0 THEN ${failAs('BIGINT', "'N must be positive'")} ELSE len(a) - least(len(a), n) + 1 END), ngram_start -> list_slice(a, ngram_start + 1, ngram_start + least(len(a), n))) END`,
  combinations: COMBINATIONS_MACRO,
  // Trino's map_union (aggregate): every key of the group's maps, a key's value from any one of them.
  map_union: `(m) AS CASE WHEN count(m) > 0 THEN list_reduce(list(m) FILTER (WHERE m IS NOT NULL), (merged, next_map) -> map_concat(merged, next_map)) END`,
  // A day-to-second interval's length in milliseconds.
  to_milliseconds: `(i) AS CAST(${dayTimeMicrosOf('i')} // 1000 AS BIGINT)`,
  parse_duration: PARSE_DURATION_MACRO,
  // Trino's hashes take and return varbinary; DuckDB's return hex text.
  md5: `(b BLOB) AS unhex(md5(b))`,
  sha1: `(b BLOB) AS unhex(sha1(b))`,
  sha256: `(b BLOB) AS unhex(sha256(b))`,
  // Trino pads and cuts varbinary by bytes, as strings by characters (a longer value keeps its
  // first ones).
  lpad: padMacro('lpad'),
  rpad: padMacro('rpad'),
  // The position of the n-th occurrence, overlapping ones counted (Trino steps one character on).
  strpos: `(s, t, n) AS CAST(CASE WHEN s IS NULL OR t IS NULL OR n IS NULL THEN NULL WHEN n <= 0 THEN error('''instance'' must be a positive number.') WHEN length(t) = 0 THEN 1 ELSE coalesce(list_filter(range(1, length(s) + 1), i -> substring(s, i, length(t)) = t)[n], 0) END AS BIGINT)`,
  // Entries split on the first delimiter (a trailing one ends the last entry), each on the second
  // exactly once; a repeated key fails, as in Trino. No lambda reads the string: an expression read
  // inside one is computed again for every element.
  split_to_map: `(s, e, k) AS map_from_entries(list_transform(CASE WHEN (${TRIMMED}) = '' THEN []::VARCHAR[] ELSE string_split(${TRIMMED}, e) END, x -> CASE WHEN len(string_split(x, k)) <> 2 THEN error('Key-value delimiter must appear exactly once in each entry. Bad input: ''' || x || '''') ELSE ROW(split_part(x, k, 1), split_part(x, k, 2)) END))`,
  json_array_contains: [
    jsonArrayContains('BOOLEAN', ['BOOLEAN'], (e) => `CAST(${e} AS VARCHAR) = 'true'`),
    jsonArrayContains('BIGINT', ['BIGINT', 'UBIGINT'], (e) => `TRY_CAST(${e} AS BIGINT)`),
    jsonArrayContains(
      'DOUBLE',
      ['BIGINT', 'UBIGINT', 'DOUBLE'],
      (e) => `TRY_CAST(CAST(${e} AS VARCHAR) AS DOUBLE)`,
    ),
    jsonArrayContains('VARCHAR', ['VARCHAR'], (e) => `json_extract_string(${e}, '$')`),
  ].join(', '),
  trim_array: `(a, n) AS CASE WHEN n < 0 THEN error('size must not be negative') WHEN n > len(a) THEN error('size must not exceed array cardinality') ELSE list_slice(a, 1, len(a) - n) END`,
  // Trino's repeat builds an array; DuckDB's repeats a string.
  repeat: `(x, n) AS list_transform(generate_series(1, n), i -> x)`,
  array_join: `(a, s) AS array_to_string(a, s), (a, s, n) AS array_to_string(list_transform(a, x -> coalesce(CAST(x AS VARCHAR), n)), s)`,
  // Trino's sequence is inclusive like generate_series; a date sequence steps by days and stays dates.
  sequence: SEQUENCE_MACRO,
  // Trino keeps one value per key (DuckDB's map() refuses a repeated key) and skips NULL keys. The
  // entries sorted by key, a key's first entry kept: the smallest value, where Trino keeps the
  // first it reads (the order of an aggregate's input is unspecified).
  map_agg: `(k, v) AS CASE WHEN count(k) > 0 THEN ${firstEntries('list_sort(list(ROW(k, v)) FILTER (WHERE k IS NOT NULL))')} END`,
  // Trino's bitwise functions take and return bigint, whatever integer type goes in.
  bitwise_and: `(a, b) AS CAST(a AS BIGINT) & CAST(b AS BIGINT)`,
  bitwise_or: `(a, b) AS CAST(a AS BIGINT) | CAST(b AS BIGINT)`,
  bitwise_xor: `(a, b) AS xor(CAST(a AS BIGINT), CAST(b AS BIGINT))`,
  bitwise_not: `(a) AS ~CAST(a AS BIGINT)`,
  // Trino counts each value as a bigint (DuckDB: UBIGINT, which reads as decimal(20,0)).
  histogram: `(x) AS map_from_entries(list_transform(map_entries(histogram(x)), e -> ROW(e.key, CAST(e.value AS BIGINT))))`,
  // Java's Long.toString(x, radix): lowercase digits, a minus sign below zero (DuckDB's to_base
  // writes uppercase and refuses negative numbers).
  to_base: `(x, radix) AS CASE WHEN radix < 2 OR radix > 36 THEN error('Radix must be between 2 and 36') WHEN x < 0 THEN '-' || lower(to_base(-CAST(x AS BIGINT), radix)) ELSE lower(to_base(CAST(x AS BIGINT), radix)) END`,
  from_iso8601_timestamp: `(s) AS s::TIMESTAMPTZ`,
  from_iso8601_date: `(s) AS s::DATE`,
  // Trino replaces bytes that are not UTF-8 with U+FFFD; DuckDB's decode fails on them, so those
  // values go to the engine's JavaScript decoder (functions/local/engine/dune-functions.ts).
  from_utf8: `(b) AS coalesce(try(decode(b)), ${HELPER_PREFIX}utf8_replacing(b))`,
  interval_text: `(i) AS ${intervalText('i')}`,
  // Trino's date ± interval is a date; DuckDB's a timestamp. A date moves by whole days or months:
  // Trino refuses hours, minutes or seconds.
  date_plus: `(d DATE, i INTERVAL) AS ${wholeDays('i', 'CAST(d + i AS DATE)')}, (d, i) AS d + i`,
  date_minus: `(d DATE, i INTERVAL) AS ${wholeDays('i', 'CAST(d - i AS DATE)')}, (d, i) AS d - i`,
  to_utf8: `(s) AS encode(s)`,
  varbinary_to_uint256: `(b) AS ${toUint256}`,
  varbinary_to_int256: `(b) AS ${toInt256}`,
  varbinary_to_bigint: `(b) AS ${toSigned(8, 'BIGINT')}`,
  varbinary_to_integer: `(b) AS ${toSigned(4, 'INTEGER')}`,
  varbinary_to_varchar: `(b) AS decode(b)`,
  varbinary_substring: `(b, s) AS ${substringFrom}, (b, s, l) AS ${substringOf}`,
  varbinary_length: `(b) AS octet_length(b)`,
  varbinary_concat: `(a, b) AS a || b`,
  varbinary_ltrim: `(b) AS unhex(regexp_replace(hex(b), '^(00)+', ''))`,
  varbinary_rtrim: `(b) AS unhex(regexp_replace(hex(b), '(00)+$', ''))`,
  varbinary_starts_with: `(a, b) AS starts_with(hex(a), hex(b))`,
  varbinary_ends_with: `(a, b) AS ends_with(hex(a), hex(b))`,
  varbinary_reverse: `(b) AS ${reversedBytes('b')}`,
  // Every byte marked as `|XX`: a pattern of marked bytes matches at byte boundaries only.
  varbinary_replace: `(b, s, r) AS CASE WHEN octet_length(s) = 0 THEN b ELSE unhex(replace(replace(${markedBytes('b')}, ${markedBytes('s')}, ${markedBytes('r')}), '|', '')) END`,
  // A bigint, 0 when absent (as strpos). A match in the marked hex at character c is byte (c + 2) / 3:
  // linear in the bytes (comparing every position's substring was quadratic: 3 ms a row at 2 KB).
  varbinary_position: `(b, p) AS CAST(CASE WHEN octet_length(p) = 0 THEN 1 ELSE (strpos(${markedBytes('b')}, ${markedBytes('p')}) + 2) // 3 END AS BIGINT)`,
};

function padMacro(pad: 'lpad' | 'rpad'): string {
  return [
    `(x BLOB, n, p BLOB) AS CASE WHEN octet_length(p) = 0 THEN error('Padding bytes must not be empty') ELSE unhex(${pad}(hex(x), CAST(2 * n AS INTEGER), hex(p))) END`,
    `(x VARCHAR, n, p VARCHAR) AS ${pad}(x, n, p)`,
  ].join(', ');
}

/**
 * Trino's json_array_contains for one type of value: NULL unless the JSON is an array; elements
 * of other JSON types (and nested ones) never match, as in Trino's JsonFunctions.
 */
function jsonArrayContains(
  type: string,
  jsonTypes: string[],
  elementValue: (element: string) => string,
): string {
  const kinds = jsonTypes.map((kind) => `'${kind}'`).join(', ');
  return `(j, v ${type}) AS CASE WHEN v IS NULL OR NOT json_valid(j) OR json_type(j) <> 'ARRAY' THEN NULL ELSE list_contains(list_transform(json_extract(j, '$[*]'), e -> CASE WHEN json_type(e) IN (${kinds}) THEN ${elementValue('e')} END), v) END`;
}

/**
 * The map of entries sorted by key, each key's first entry kept: every entry is paired with the one
 * before it (a shifted copy), so the filter never reads the list from inside its lambda (which
 * DuckDB would evaluate once per element). `sorted` is written twice: a macro has no variables.
 */
function firstEntries(sorted: string): string {
  const entry = 'struct_extract(p, 1)';
  const previous = 'struct_extract(p, 2)';
  return `map_from_entries(list_transform(list_filter(list_zip(${sorted}, list_prepend(NULL, ${sorted})), p -> ${entry} IS NOT NULL AND (${previous} IS NULL OR struct_extract(${previous}, 1) IS DISTINCT FROM struct_extract(${entry}, 1))), p -> ${entry}))`;
}

/**
 * Trino's any_match, all_match and none_match, three-valued: each element's answer becomes 0
 * (false), 1 (NULL) or 2 (true), the largest or smallest decides (`answers` by that number), an
 * empty array gives `empty`, and a NULL array NULL. The predicate runs once per element.
 */
function matchRule(pick: 'list_max' | 'list_min', answers: [string, string, string], empty: string): Rule {
  const cases = answers.map((answer, n) => `WHEN ${n} THEN ${answer}`).join(' ');
  return (args, context) =>
    context.template(
      `CASE WHEN __1 IS NULL THEN NULL ELSE CASE ${pick}(list_transform(list_transform(__1, __2), r -> coalesce(CAST(r AS INTEGER) * 2, 1))) ${cases} ELSE ${empty} END END`,
      args,
    );
}

/** A blob's bytes in reverse order. */
function reversedBytes(blob: string): string {
  return `unhex(array_to_string(list_reverse(regexp_extract_all(hex(${blob}), '..')), ''))`;
}

/** The bytes' hex with each byte preceded by `|` (`0xaabb` → `|AA|BB`). */
function markedBytes(blob: string): string {
  return `regexp_replace(hex(${blob}), '(..)', '|\\1', 'g')`;
}

function shiftMacro(operator: '<<' | '>>'): string {
  return ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT']
    .map((type) => `(x ${type}, n) AS CAST(CAST(x AS BIT) ${operator} n AS ${type})`)
    .join(', ');
}

/** Dune's `bytearray_*` names are aliases of `varbinary_*`. */
const BYTEARRAY_ALIASES = [
  'to_uint256',
  'to_int256',
  'to_bigint',
  'to_integer',
  'substring',
  'length',
  'concat',
  'ltrim',
  'rtrim',
  'starts_with',
  'ends_with',
  'reverse',
  'position',
  'replace',
];

const SESSION_SETTINGS = [
  // Trino divides integers as integers (5 / 2 = 2); DuckDB's `/` would give 2.5.
  'SET integer_division = true',
  // Trino sorts NULLs last in both directions unless told otherwise.
  "SET default_null_order = 'nulls_last'",
  // Dune's timestamps are UTC; now() and from_unixtime() must not follow the machine's zone.
  "SET TimeZone = 'UTC'",
];

/**
 * The helper macros that pick an overload by an argument's type (`(x DATE) AS …, (x TIMESTAMP) AS …`).
 * DuckDB expands a macro before it binds aggregates, so an aggregate or window argument has no type
 * there: with two typed overloads the call fails as ambiguous, with one typed and one untyped
 * DuckDB takes the typed one whatever the type (`max(block_time) + interval '1' hour` took the
 * DATE path and failed; `- interval '1' day` silently lost the time of day). Aggregate macros and
 * the window helpers, whose aggregate arguments are their purpose, are left out.
 */
const TYPE_DISPATCHED_MACROS = new Set(
  Object.entries(MACROS)
    .filter(([name, definition]) => {
      const overloads = [...definition.matchAll(/(?:^|,\s*)\(([^()]*)\)\s+AS\s/g)].map((m) => m[1]!);
      return (
        overloads.length > 1 &&
        overloads.some((parameters) => /\b\w+\s+[A-Z]{3,}/.test(parameters)) &&
        !isAggregateName(name) &&
        !/^(sum_|window_)/.test(name)
      );
    })
    .map(([name]) => name),
);

/**
 * Each typed-overload helper call with an aggregate or window argument takes that argument through
 * a lambda, `list_transform([max(x)], v -> helper(v))[1]`: DuckDB binds the list first, so the
 * lambda's parameter has the aggregate's type when the macro picks its overload.
 */
export function bindAggregateArguments(statement: AstNode, template: RuleContext['template']): boolean {
  let changed = false;
  let depth = 0;
  rewrite(statement, (node) => {
    const name = functionCall(node)?.name ?? '';
    if (!name.startsWith(HELPER_PREFIX) || !TYPE_DISPATCHED_MACROS.has(name.slice(HELPER_PREFIX.length))) {
      return undefined;
    }
    const args: AstNode[] = node.function?.args ?? [];
    const bound = args.flatMap((arg, i) => (containsAggregate(arg) ? [i] : []));
    if (bound.length === 0) return undefined;
    let replaced: AstNode = node;
    for (const i of bound) {
      const parameter = `${HELPER_PREFIX}bound_${++depth}`;
      const value = args[i];
      args[i] = template(parameter, []);
      replaced = template(`list_transform(ARRAY[__1], ${parameter} -> __2)[1]`, [value, replaced]);
    }
    changed = true;
    return replaced;
  });
  return changed;
}

const macroStatement = (name: string) =>
  `CREATE OR REPLACE TEMP MACRO ${HELPER_PREFIX}${name}${MACROS[name]}`;

/**
 * Every statement that prepares a DuckDB session for translated DuneSQL. Settings and TEMP macros
 * belong to the connection they run on, so they run on the connection that runs the query.
 */
export const DUCKDB_SESSION_SETUP: readonly string[] = [
  ...SESSION_SETTINGS,
  ...Object.keys(MACROS).map(macroStatement),
];

/**
 * The session settings as instance-wide defaults (`SET GLOBAL`), which every new connection of the
 * instance starts with: for a sandbox whose configuration is locked before its runs connect.
 */
export const DUCKDB_GLOBAL_SETTINGS: readonly string[] = SESSION_SETTINGS.map((setting) =>
  setting.replace(/^SET /, 'SET GLOBAL '),
);

/** The TEMP macros one translated statement calls, as one multi-statement string ('' for none). */
export function sessionMacrosFor(duckDbSql: string): string {
  const used = new Set(
    [...duckDbSql.matchAll(new RegExp(`${HELPER_PREFIX}([a-z0-9_]+)\\s*\\(`, 'gi'))].map((m) =>
      m[1]!.toLowerCase(),
    ),
  );
  return [...used]
    .filter((name) => MACROS[name])
    .map(macroStatement)
    .join(';\n');
}

/**
 * The session setup one translated statement needs, as one multi-statement string (one round trip):
 * the settings plus only the macros it calls (creating all of them costs ~7 ms a run; none, ~0).
 */
export function sessionSetupFor(duckDbSql: string): string {
  return [...SESSION_SETTINGS, sessionMacrosFor(duckDbSql)].filter(Boolean).join(';\n');
}

const helper = (name: string) => renameTo(`${HELPER_PREFIX}${name}`);

/** A date format language of Trino's: how to read its patterns, and what to tell a user whose pattern it cannot. */
interface FormatLanguage {
  /** The pattern as strftime/strptime codes, or undefined when it cannot be converted. */
  convert(pattern: string): string | undefined;
  /** A pattern to show (`yyyy-MM-dd`). */
  example: string;
  /** Why `pattern` cannot be used and what to write, after "<name>() format '<pattern>' ". */
  refusal(pattern: string): string;
}

const JODA_FORMAT: FormatLanguage = {
  convert: jodaToStrftime,
  example: 'yyyy-MM-dd',
  refusal: () =>
    'uses a pattern letter the local engine does not support; use the common letters (yyyy MM dd HH mm ss SSS).',
};

const MYSQL_FORMAT: FormatLanguage = {
  convert: mysqlToStrftime,
  example: '%Y-%m-%d',
  refusal: () =>
    'uses a pattern letter the local engine does not support; use the common letters (%Y %m %d %H %i %s %f).',
};

/** Trino's Teradata functions (date-formats.ts): what Trino cannot read is refused here too. */
const TERADATA_FORMAT: FormatLanguage = {
  convert: teradataToStrftime,
  example: 'yyyy-mm-dd',
  refusal: (pattern) => {
    const lower = pattern.toLowerCase();
    return `is not a Teradata format Trino reads: its specifiers are yyyy yy mm dd hh24 hh mi ss, in lower case, between - / , . ; : or spaces${lower !== pattern && teradataToStrftime(lower) !== undefined ? ` (write '${lower}')` : ''}. For other formats write date_format(x, '%Y-%m-%d %H:%i:%s') or date_parse(s, '%Y-%m-%d').`;
  },
};

/** The call's format as strftime codes; refuses one that is not a literal, or not convertible. */
function strftimeFormat(name: string, language: FormatLanguage, format: AstNode): string {
  const pattern = stringLiteral(format);
  const converted = pattern === undefined ? undefined : language.convert(pattern);
  if (converted === undefined) {
    throw new UnsupportedConstruct(
      name,
      pattern === undefined
        ? `${name}() needs its format as a string literal on the local engine, e.g. ${name}(${/parse|to_date|to_timestamp/.test(name) ? 's' : 'block_time'}, '${language.example}').`
        : `${name}() format '${pattern}' ${language.refusal(pattern)}`,
    );
  }
  return `'${converted.replaceAll("'", "''")}'`;
}

function formatRule(
  name: string,
  language: FormatLanguage,
  fn: string,
  /** The type the result is cast to, when DuckDB's differs from Trino's. */
  resultType?: string,
): Rule {
  return (args, context) => {
    const call = `${fn}(__1, ${strftimeFormat(name, language, args[1])})`;
    return context.template(resultType ? `CAST(${call} AS ${resultType})` : call, [args[0]]);
  };
}

/**
 * Trino's to_char(timestamp, Teradata format). Its `hh` is the hour of the half day, 0-11 (Joda's
 * appendHourOfHalfday in DateFormatParser: noon prints 00), which strftime cannot print (%I is
 * 1-12): that hour is printed apart, between strftime's pieces.
 */
const toChar: Rule = (args, context) => {
  const format = strftimeFormat('to_char', TERADATA_FORMAT, args[1]);
  const pieces = format.slice(1, -1).split('%I');
  const halfDayHour = "lpad(CAST(hour(__1) % 12 AS VARCHAR), 2, '0')";
  const parts = pieces.flatMap((piece, i) => [
    ...(i > 0 ? [halfDayHour] : []),
    ...(piece ? [`strftime(__1, '${piece}')`] : []),
  ]);
  return context.template(parts.length ? `(${parts.join(' || ')})` : "''", [args[0]]);
};

/**
 * Trino's to_timestamp and to_date (Teradata formats). A two-digit year `yy` reads as 2000-2099
 * (Joda's appendTwoDigitYear(2050) in DateFormatParser: '88' is 2088); strptime's %y reads 69-99
 * as 19xx.
 */
const teradataParse =
  (name: 'to_timestamp' | 'to_date'): Rule =>
  (args, context) => {
    const format = strftimeFormat(name, TERADATA_FORMAT, args[1]);
    const parsed = `strptime(__1, ${format})`;
    const timestamp = /%y/.test(format)
      ? `CASE WHEN year(${parsed}) < 2000 THEN ${parsed} + INTERVAL 100 YEAR ELSE ${parsed} END`
      : parsed;
    return context.template(`CAST(${timestamp} AS ${name === 'to_date' ? 'DATE' : 'TIMESTAMP'})`, [args[0]]);
  };

/** Units date_trunc takes as a literal, as the interval time_bucket buckets by. */
const TRUNC_INTERVALS: Record<string, string> = {
  second: "INTERVAL '1' SECOND",
  minute: "INTERVAL '1' MINUTE",
  hour: "INTERVAL '1' HOUR",
  day: "INTERVAL '1' DAY",
  // time_bucket's default origin (2000-01-03) is a Monday: weeks start on Monday, as Trino's.
  week: "INTERVAL '7' DAY",
  month: "INTERVAL '1' MONTH",
  quarter: "INTERVAL '3' MONTH",
  year: "INTERVAL '1' YEAR",
};

/**
 * date_trunc keeps its argument's type in Trino (a date stays a date). DuckDB's date_trunc returns a
 * timestamp for a date, and a typed macro cannot see the type of an aggregate argument
 * (`date_trunc('day', max(block_time))`); time_bucket is a built-in that keeps the type.
 */
const dateTrunc: Rule = (args, context) => {
  const interval = TRUNC_INTERVALS[stringLiteral(args[0])?.toLowerCase() ?? ''];
  return interval
    ? context.template(`time_bucket(${interval}, __1)`, [args[1]])
    : context.template(`${HELPER_PREFIX}date_trunc(__1, __2)`, args);
};

/** `max(x, n)` and `min(x, n)`, the aggregates (one argument: the plain aggregate, left alone). */
const topN =
  (macro: string): Rule =>
  (args, context, node) =>
    node.function && args.length === 2
      ? context.template(`${HELPER_PREFIX}${macro}(__1, __2)`, args)
      : undefined;

const COUNTING = new Set(['count', 'count_if', 'approx_distinct']);

/** A digest of values each counted once; Trino's weighted forms are refused locally. */
const unweightedDigest =
  (name: string): Rule =>
  (args, context, node) => {
    if (args.length > 1) {
      throw new UnsupportedConstruct(
        name,
        `${name}() with weights is not supported on the local engine; write approx_percentile(x, w, p) for a weighted quantile.`,
      );
    }
    return helper(name)(args, context, node);
  };

/**
 * value_at_quantile(d, q) and values_at_quantiles(d, qs): a macro cannot tell the type of an
 * aggregate argument, so a digest aggregated in place (`value_at_quantile(tdigest_agg(x), 0.5)`)
 * is the quantile of the group's values themselves, and merged digests (`merge(digest)`) that of
 * their values together; a digest column goes to the macro.
 */
const digestQuantile: Rule = (args, context) => {
  const [digest, quantile] = args;
  const inner: AstNode[] | undefined = functionCall(digest)?.args;
  const call = inner?.length === 1 && args.length === 2 ? callName(digest) : undefined;
  const [template, operand] =
    call === 'tdigest_agg'
      ? ['quantile_cont(CAST(__1 AS DOUBLE), __2)', inner![0]]
      : call === 'qdigest_agg'
        ? [`${HELPER_PREFIX}qdigest_quantile(__1, __2)`, inner![0]]
        : call === 'merge'
          ? [`${HELPER_PREFIX}merged_quantile(__1, __2)`, inner![0]]
          : [`${HELPER_PREFIX}value_at_quantile(__1, __2)`, digest];
  return context.template(template, [operand, quantile!]);
};

/**
 * Window aggregates with Trino's types: a windowed sum of a column sums its 64-bit halves (exact for
 * uint256, bigint stays bigint); a windowed sum of a count is a bigint; count_if is a bigint.
 * A windowed sum of another aggregate (`sum(sum(x)) OVER ()`) keeps DuckDB's type: the type of an
 * aggregate argument is unknown to a macro, so compute the aggregate in a CTE first for exact types.
 */
const windowAggregate: Rule = (_args, context, node) => {
  const aggregate = node.window_function.this;
  const kind = nodeType(aggregate);
  if (kind === 'count_if') return context.template('CAST(__1 AS BIGINT)', [node]);
  const name = callName(aggregate);
  if (['approx_set', 'merge', 'tdigest_agg', 'qdigest_agg'].includes(name)) {
    // The local sketches are aggregate macros, which DuckDB cannot run over a window.
    throw new UnsupportedConstruct(
      name,
      `${name}() over a window is not supported on the local engine; write ${name.endsWith('digest_agg') ? 'approx_percentile(x, p) over (…) for a running quantile' : 'approx_distinct(x) over (…) for a running distinct count'}, or ${name}() in a grouped query.`,
    );
  }
  if (name === 'approx_percentile' && aggregate.aggregate_function.args.length === 2) {
    const [value, percentage] = aggregate.aggregate_function.args;
    const window = structuredClone(node);
    window.window_function.this = context.template('approx_quantile(CAST(__1 AS DOUBLE), __2)', [
      value,
      percentage,
    ]);
    const macro = nodeType(percentage) === 'array_func' ? 'window_percentiles' : 'window_percentile';
    return context.template(`${HELPER_PREFIX}${macro}(__1, __2)`, [value, window]);
  }
  if (kind !== 'sum' || aggregate.sum.distinct) return undefined;
  const summed: AstNode = aggregate.sum.this;
  if (containsAggregate(summed, helperName)) {
    return COUNTING.has(callName(summed)) ? context.template('CAST(__1 AS BIGINT)', [node]) : undefined;
  }
  const half = (name: string) => {
    const window = structuredClone(node);
    window.window_function.this.sum.this = context.template(`${HELPER_PREFIX}${name}(__1)`, [summed]);
    return window;
  };
  return context.template(`${HELPER_PREFIX}window_sum(__1, __2, __3)`, [
    summed,
    half('sum_high'),
    half('sum_low'),
  ]);
};

const MAP_PRODUCERS = new Set([
  'map',
  'map_agg',
  'map_from_entries',
  'split_to_map',
  'multimap_agg',
  'approx_most_frequent',
  'map_concat',
  'map_filter',
  'histogram',
]);

/** cardinality of a map (DuckDB's array_length takes lists only); arrays stay polyglot's. */
const cardinality: Rule = (args, context) =>
  MAP_PRODUCERS.has(callName(args[0])) ? context.template(`${HELPER_PREFIX}map_size(__1)`, args) : undefined;

/**
 * UNNEST of a map is two columns in Trino, key and value; DuckDB unnests lists and structs only.
 * Unnested as its keys and values side by side, which DuckDB zips as Trino pairs them.
 */
const unnestMap: Rule = (_args, context, node) => {
  const { this: unnested, expressions = [] } = node.unnest;
  if (expressions.length > 0 || !MAP_PRODUCERS.has(callName(unnested))) return undefined;
  return {
    unnest: {
      ...node.unnest,
      this: context.template('map_keys(__1)', [unnested]),
      expressions: [context.template('map_values(__1)', [structuredClone(unnested)])],
    },
  };
};

/** A call's name as the user wrote it (helpers already substituted lose their prefix), or its node type. */
const callName = (node: AstNode): string => helperName(functionCall(node)?.name ?? nodeType(node) ?? '');
const helperName = (name: string) => name.replace(new RegExp(`^${HELPER_PREFIX}`), '');

/**
 * Dune's `0x…` literals reach the parser as `X'…'`; polyglot writes those for DuckDB as `x'…'` in
 * some positions (VALUES, function arguments), which DuckDB reads as text. unhex() is a BLOB everywhere.
 * A timestamp literal with a zone is a timestamp with time zone in Trino, its hour and date those
 * of the zone: it is held as its wall-clock time there, as `AT TIME ZONE`'s value is (output-types.ts
 * shows it with the zone; compared, it is the instant). DuckDB read it as UTC's time, and failed on
 * an offset (`+05:30`).
 */
const literal: Rule = (_args, context, node) => {
  const { literal_type: type, value } = node.literal;
  if (type === 'hex_string') return context.template('unhex(__1)', [stringNode(String(value))]);
  const zoned = zonedTimestampLiteral(node);
  if (zoned) return context.template('CAST(__1 AS TIMESTAMP)', [stringNode(zoned.wallClock)]);
  return undefined;
};

/**
 * Trino's UNNEST turns an array of rows into one column per field (`UNNEST(outputs) AS o(index,
 * value, address, type)`) and several arrays into parallel columns; DuckDB's UNNEST in FROM yields
 * one struct column. A lateral subquery of select-list unnests (struct fields expanded, arrays
 * zipped) gives Trino's columns; WITH ORDINALITY numbers them from 1.
 */
const unnestColumns: Rule = (_args, context, node) => {
  const unnest = node.alias.this?.unnest;
  if (!unnest) return undefined;
  const arrays: AstNode[] = [unnest.this, ...(unnest.expressions ?? [])];
  const valueColumns = (node.alias.column_aliases?.length ?? 0) - (unnest.with_ordinality ? 1 : 0);
  if (arrays.length === 1 && valueColumns <= 1) return undefined;
  const items = arrays.map((_, i) =>
    arrays.length === 1 ? `unnest(__${i + 1}, recursive => true)` : `unnest(__${i + 1})`,
  );
  if (unnest.with_ordinality) {
    items.push(`unnest(range(1, greatest(${arrays.map((_, i) => `len(__${i + 1})`).join(', ')}) + 1))`);
  }
  node.alias.this = context.template(`(SELECT ${items.join(', ')})`, arrays);
  return node;
};

const stringNode = (value: string): AstNode => ({ literal: { literal_type: 'string', value } });

/**
 * Trino's EXTRACT fields DuckDB names otherwise, by polyglot's name for the field. Trino's day of
 * the week runs from 1 (Monday) to 7 (Sunday), ISO's; DuckDB's DOW from 0 (Sunday): it would
 * answer silently wrong for Sundays.
 */
const EXTRACT_FIELDS: Record<string, string> = {
  dayofweek: 'isodow',
  dow: 'isodow',
  day_of_week: 'isodow',
  day_of_month: 'day',
  day_of_year: 'dayofyear',
  year_of_week: 'isoyear',
  yow: 'isoyear',
};

/** `x + interval …` / `x - interval …`: a helper that keeps a date a date (MACROS). */
function intervalArithmetic(helperName: string): Rule {
  return (args, context) =>
    args.length === 2 && nodeType(args[1]) === 'interval'
      ? context.template(`${HELPER_PREFIX}${helperName}(__1, __2)`, args)
      : undefined;
}

function nullIfAnyNull(name: string): Rule {
  return (args, context) => {
    const values = args.map((_, i) => `__${i + 1}`);
    const anyNull = values.map((value) => `${value} IS NULL`).join(' OR ');
    return context.template(`CASE WHEN ${anyNull} THEN NULL ELSE ${name}(${values.join(', ')}) END`, args);
  };
}

function nullIfAnyNullElement(name: string): Rule {
  return (args, context) =>
    context.template(`CASE WHEN list_count(__1) < len(__1) THEN NULL ELSE ${name}(__1) END`, args);
}

const extractField: Rule = (args, context, node) => {
  const field = node.extract?.field;
  const name = String(typeof field === 'string' ? field : (field?.Custom ?? '')).toLowerCase();
  const fn = EXTRACT_FIELDS[name];
  return fn && args.length === 1 ? context.template(`CAST(${fn}(__1) AS BIGINT)`, args) : undefined;
};

/** A Java format specifier: `%[index$][flags][width][.precision][t]conversion`. */
const FORMAT_SPECIFIER = /%(\d+\$|<)?([-#+ 0,(]*\d*(?:\.\d+)?)([tT]?[a-zA-Z%])/g;

/**
 * `format(pattern, args…)` as DuckDB's printf. Java reads arguments in order, by `n$`, or `<` for
 * the previous one, and mixes these freely; printf cannot mix them and has no `<`, so a literal
 * pattern is rewritten with every specifier numbered. Java's `%s` prints any value, printf's text
 * only: what a `%s` prints is cast to text, as DuneSQL's cast writes it. `%n` is a line break.
 */
const printf = renameTo('printf');

const javaFormat: Rule = (args, context, node) => {
  const pattern = stringLiteral(args[0]);
  if (pattern === undefined) return printf(args, context, node);
  const asText = new Set<number>();
  let next = 1;
  let previous = 0;
  const numbered = pattern.replace(
    FORMAT_SPECIFIER,
    (specifier, index: string | undefined, options: string, conversion: string) => {
      if (conversion === '%') return specifier;
      if (conversion === 'n') return '\n';
      const argument = index === '<' ? previous : index ? Number.parseInt(index, 10) : next++;
      previous = argument;
      if (conversion === 's' || conversion === 'S') asText.add(argument);
      return `%${argument}$${options}${conversion}`;
    },
  );
  const items = args.map((_, i) =>
    i === 0 ? '__1' : asText.has(i) ? varcharText(`__${i + 1}`, `CAST(__${i + 1} AS VARCHAR)`) : `__${i + 1}`,
  );
  return context.template(`printf(${items.join(', ')})`, [stringNode(numbered), ...args.slice(1)]);
};

/**
 * The body of a Trino lambda whose parameters are a map entry's key and value, or two arrays'
 * elements, for DuckDB's one-parameter lambda over the entry (or the zipped pair): each parameter
 * becomes the SQL given for it (`k` → `dunesql_entry.key`). A lambda inside that binds the same
 * name keeps its own. Undefined when the lambda does not take as many parameters.
 */
function overOneParameter(
  context: RuleContext,
  lambda: AstNode,
  /** SQL for each parameter, or an expression (a node, copied for each use). */
  fields: (string | AstNode)[],
): AstNode | undefined {
  const names: string[] = (lambda?.lambda?.parameters ?? []).map((p: AstNode) =>
    String(p.name).toLowerCase(),
  );
  if (names.length !== fields.length || !lambda.lambda.body) return undefined;
  const replacement = new Map(names.map((name, i) => [name, fields[i]!]));
  return mapFreeColumns(structuredClone(lambda.lambda.body), (column) => {
    // `v` itself, or a field of it (`v.amount`, parsed as column amount of table v).
    const table = column.column.table && String(column.column.table.name).toLowerCase();
    const field = replacement.get(table ?? columnName(column));
    if (field === undefined) return undefined;
    const [sql, args] = typeof field === 'string' ? [field, []] : ['__1', [structuredClone(field)]];
    return context.template(
      table ? `(${sql}).${quoteIdentifier(String(column.column.name.name))}` : sql,
      args,
    );
  });
}

/** A rule for a Trino call whose last argument is a lambda over map entries or zipped arrays. */
function lambdaOverEntries(template: string, fields: string[]): Rule {
  return (args, context) => {
    const body = overOneParameter(context, args.at(-1), fields);
    return body && context.template(template, [...args.slice(0, -1), body]);
  };
}

const ENTRY = ['dunesql_entry.key', 'dunesql_entry.value'];

/**
 * `array_sort(array, (x, y) -> comparator)`: DuckDB sorts by value only (and polyglot drops the
 * comparator), so each element's place is counted: how many elements come before it, those the
 * comparator puts first plus equal ones earlier in the array (a stable sort, as Trino's). Quadratic
 * in the array's length, which arrays sorted this way keep small. Without a comparator, the plain
 * sort is left to polyglot.
 */
const sortWithComparator: Rule = (args, context) => {
  if (args.length !== 2) return undefined;
  const comparator = overOneParameter(context, args[1], [
    'dunesql_sorted[dunesql_j + 1]',
    'dunesql_sorted[dunesql_i + 1]',
  ]);
  if (!comparator) return undefined;
  const places =
    'list_transform(range(len(dunesql_sorted)), dunesql_i -> ROW(len(list_filter(range(len(dunesql_sorted)), ' +
    'dunesql_j -> CASE WHEN dunesql_j < dunesql_i THEN __2 <= 0 ELSE __2 < 0 END)), dunesql_i))';
  return context.template(
    `list_transform(ARRAY[__1], dunesql_sorted -> list_transform(list_sort(${places}), ` +
      'dunesql_place -> dunesql_sorted[struct_extract(dunesql_place, 2) + 1]))[1]',
    [args[0], comparator],
  );
};

let reductions = 0;

/**
 * `reduce(array, initial, (s, x) -> step, s -> output)`: Trino's state may be of any type; DuckDB's
 * list_reduce folds a list into its own element type (with an initial value of another type it
 * failed to bind). It folds a list of (state, element) pairs instead, the initial state first and
 * then each element, so the step's state and element are fields of its two parameters. The first
 * pair's state is typed as CASE over the initial state and one step from it, so a state that
 * widens (`0` plus bigints) has the wider type from the start. The output lambda reads the result.
 */
const foldWithState: Rule = (args, context) => {
  if (args.length !== 4) return undefined;
  const [array, initial, step, output] = args;
  const n = ++reductions;
  const [state, element] = [`dunesql_state_${n}`, `dunesql_element_${n}`];
  const folded = overOneParameter(context, step, [`${state}.s`, `${element}.x`]);
  const firstElement = context.template('__1[1]', [structuredClone(array)]);
  const firstStep = overOneParameter(context, step, [initial!, firstElement]);
  if (!folded || !firstStep) return undefined;
  return context.template(
    `list_transform(ARRAY[list_reduce(list_prepend({'s': CASE WHEN true THEN __2 ELSE __3 END, 'x': __1[1]}, ` +
      `list_transform(__1, ${element} -> {'s': NULL, 'x': ${element}})), ` +
      `(${state}, ${element}) -> {'s': __4, 'x': NULL}).s], __5)[1]`,
    [array!, initial!, firstStep, folded, output!],
  );
};

/** polyglot's integer types → DuckDB's type and Trino's name for it (in Trino's cast errors). */
const INTEGER_TYPES: Record<string, { duckDb: string; trino: string }> = {
  tiny_int: { duckDb: 'TINYINT', trino: 'TINYINT' },
  small_int: { duckDb: 'SMALLINT', trino: 'SMALLINT' },
  int: { duckDb: 'INTEGER', trino: 'INT' },
  big_int: { duckDb: 'BIGINT', trino: 'BIGINT' },
};

/**
 * Casts to an integer type, where Trino and DuckDB differ by the value's type (known only at run
 * time, to typeof(); every branch has the target type):
 * - a double rounds half away from zero in Trino (MathFunctions.round); DuckDB rounds half to even;
 * - text must be an integer as Java's Long.parseLong reads it (`12`, `-7`, `+3`; no fraction, no
 *   spaces): Trino fails `cast('12.5' as integer)` with "Cannot cast '12.5' to INT" (try_cast:
 *   NULL), where DuckDB rounds it to 13.
 */
const integerCast =
  (kind: 'cast' | 'try_cast'): Rule =>
  (_args, context, node) => {
    const cast = node[kind];
    const target = INTEGER_TYPES[cast.to?.data_type];
    if (!target) return undefined;
    const fn = kind === 'cast' ? 'CAST' : 'TRY_CAST';
    const rounded = context.template(`${fn}(round(TRY_CAST(__1 AS DOUBLE)) AS BIGINT)`, [cast.this]);
    const plain = structuredClone(node);
    plain[kind].this = rounded;
    const text = 'TRY_CAST(__1 AS VARCHAR)';
    const notAnInteger =
      kind === 'cast'
        ? failAs(target.duckDb, `'Cannot cast ''' || ${text} || ''' to ${target.trino}'`)
        : `CAST(NULL AS ${target.duckDb})`;
    // The user's own cast comes first in the text, so an error in it maps back to where they wrote it.
    return context.template(
      `CASE WHEN typeof(__1) NOT IN ('DOUBLE', 'FLOAT', 'VARCHAR') THEN __2 ` +
        `WHEN typeof(__1) = 'VARCHAR' THEN CASE WHEN regexp_full_match(${text}, '[+-]?[0-9]+') THEN __2 ELSE ${notAnInteger} END ` +
        'ELSE __3 END',
      [cast.this, node, plain],
    );
  };

/** The number a literal divisor is written as (`2`, `-2`, `(0)`), or undefined for any other node. */
function numberLiteral(node: AstNode): string | undefined {
  const kind = nodeType(node);
  if (kind === 'neg' || kind === 'paren') return numberLiteral(node[kind].this);
  return kind === 'literal' && node.literal.literal_type === 'number'
    ? String(node.literal.value)
    : undefined;
}

/**
 * Trino fails an exact division or remainder by zero (integers and decimals: "Division by zero")
 * where DuckDB answers NULL. The divisor becomes a failure when it is zero, the dividend is not
 * NULL (Trino's operators answer NULL for NULL input) and neither operand is a double or real
 * (those follow IEEE 754 in Trino). typeof() tells the types at run time, an aggregate's included.
 * The failure stands in as UTINYINT, which a typed divisor's type absorbs, so the quotient keeps
 * its type. A divisor written as a number other than zero is left alone; a literal integer zero
 * is typed INTEGER, as Trino types it (DuckDB would let it take the failure's narrower type).
 * dunesql_fail rather than error(), so try(a / b), Trino's idiom for "NULL instead", still binds
 * (and answers NULL).
 */
const exactByZero =
  (operator: '/' | '%'): Rule =>
  (args, context) => {
    if (args.length !== 2) return undefined;
    const literal = numberLiteral(args[1]!);
    if (literal !== undefined && Number(literal) !== 0) return undefined;
    const divisor = literal !== undefined && /^\d+$/.test(literal) ? 'CAST(__2 AS INTEGER)' : '__2';
    return context.template(
      `__1 ${operator} CASE WHEN __2 = 0 AND __1 IS NOT NULL AND typeof(__1) NOT IN ('DOUBLE', 'FLOAT') ` +
        `AND typeof(__2) NOT IN ('DOUBLE', 'FLOAT') THEN ${failAs('UTINYINT', "'Division by zero'")} ELSE ${divisor} END`,
      args,
    );
  };

/**
 * What DuneSQL's cast to varchar gives where DuckDB's differs, by DuckDB's type of the value: a
 * varbinary is `0x` and lowercase hex (a DuneSQL extension Trino lacks; DuckDB gives `\x..`
 * escapes), a timestamp has its milliseconds and zone, as results show it (`2024-01-02
 * 03:04:05.000 UTC`), and a double or real is in Java's notation (`1.0E7`, `NaN`; DuckDB gives
 * `10000000.0`, `nan`). Every other type casts as DuckDB casts it.
 */
const timestampText = (value: string) =>
  `strftime(TRY_CAST(${value} AS TIMESTAMP), '%Y-%m-%d %H:%M:%S.%g UTC')`;

const VARCHAR_CASTS: Record<string, (value: string) => string> = {
  BLOB: (value) => `'0x' || lower(hex(TRY_CAST(${value} AS BLOB)))`,
  INTERVAL: (value) => `${HELPER_PREFIX}interval_text(TRY_CAST(${value} AS INTERVAL))`,
  TIMESTAMP: timestampText,
  'TIMESTAMP WITH TIME ZONE': timestampText,
  DOUBLE: (value) => `${HELPER_PREFIX}double_text(TRY_CAST(${value} AS DOUBLE))`,
  FLOAT: (value) => `${HELPER_PREFIX}real_text(TRY_CAST(${value} AS FLOAT))`,
};

/** The text of `value` as DuneSQL's cast writes it; `otherwise` for the types DuckDB writes alike. */
function varcharText(value: string, otherwise: string): string {
  const types = Object.keys(VARCHAR_CASTS);
  const branches = Object.entries(VARCHAR_CASTS).map(([type, text]) => `WHEN '${type}' THEN ${text(value)}`);
  return (
    `CASE WHEN typeof(${value}) NOT IN (${types.map((type) => `'${type}'`).join(', ')}) THEN ${otherwise} ` +
    `ELSE CASE typeof(${value}) ${branches.join(' ')} END END`
  );
}

const VARCHAR_CAST_TEMPLATE = varcharText('__1', '__2');

/** A cast to varchar of a value whose text differs in DuckDB (VARCHAR_CASTS); typeof() picks it. */
const varcharCast =
  (kind: 'cast' | 'try_cast'): Rule =>
  (_args, context, node) => {
    const cast = node[kind];
    if (cast.to?.data_type !== 'var_char') return undefined;
    return context.template(VARCHAR_CAST_TEMPLATE, [cast.this, node]);
  };

function castRule(kind: 'cast' | 'try_cast'): Rule {
  const toInteger = integerCast(kind);
  const toVarchar = varcharCast(kind);
  return (args, context, node) => toInteger(args, context, node) ?? toVarchar(args, context, node);
}

const canonicalJson: Rule = (args, context) =>
  args.length === 1 ? context.template(`CAST(${HELPER_PREFIX}json_canonical(__1) AS JSON)`, args) : undefined;

const AT_TIME_ZONE = '(CAST(__1 AS TIMESTAMP WITH TIME ZONE) AT TIME ZONE __2)';

/** The minutes east of UTC of a zone written as Trino's offset (`+05:30`, `-08:00`), which DuckDB lacks. */
export function offsetMinutes(zone: AstNode | string): number | undefined {
  const offset = /^([+-])(\d{2}):(\d{2})$/.exec(
    (typeof zone === 'string' ? zone : stringLiteral(zone)) ?? '',
  );
  if (!offset) return undefined;
  return (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3]));
}

/** `x AT TIME ZONE zone`: its wall-clock time in the zone (an offset added to UTC's). */
const atTimeZone = (value: AstNode, zone: AstNode, context: RuleContext) => {
  const minutes = offsetMinutes(zone);
  return minutes === undefined
    ? context.template(AT_TIME_ZONE, [value, zone])
    : context.template(
        `(CAST(__1 AS TIMESTAMP WITH TIME ZONE) AT TIME ZONE 'UTC' + to_minutes(${minutes}))`,
        [value],
      );
};

/**
 * Dune's varbinary_to_decimal: two's complement over 16 bytes, shorter input padded with zero bytes
 * in front (so it reads as non-negative), as Dune documents it.
 */
const varbinaryToDecimal: Rule = (args, context) =>
  context.template(
    `CAST(${HELPER_PREFIX}varbinary_to_int256(unhex(lpad(hex(__1), CAST(greatest(32, 2 * octet_length(__1)) AS INTEGER), '0'))) AS DECIMAL(38, 0))`,
    args,
  );

/** DuckDB's form of a SQL/JSON path argument (json-paths.ts); refused when it has none. */
function jsonPathOf(functionName: string, path: AstNode): DuckDbJsonPath {
  const text = stringLiteral(path);
  const converted = text === undefined ? undefined : duckDbJsonPath(text);
  if (!converted) {
    throw new UnsupportedConstruct(
      functionName,
      unsupportedPathMessage(functionName, text ?? '(an expression)'),
    );
  }
  return converted;
}

/**
 * The items json_value's or json_query's path finds (the json_items macros). ERROR ON ERROR, which
 * would fail where the defaults give NULL, is refused rather than ignored.
 */
function jsonItems(functionName: string, call: AstNode, context: RuleContext): AstNode {
  if (call.on_error && !/^NULL\b/i.test(call.on_error)) {
    throw new UnsupportedConstruct(
      functionName,
      `${functionName}: ${call.on_error} is not supported on the local engine; leave it out (NULL ON ERROR, the default, gives NULL where it would fail).`,
    );
  }
  const { path, wildcard } = jsonPathOf(functionName, call.path);
  return context.template(`${HELPER_PREFIX}${wildcard ? 'json_items_any' : 'json_items'}(__1, __2)`, [
    call.this,
    stringNode(path),
  ]);
}

/** Rewrite rules for the local engine, keyed by function name or polyglot node type. */
export const DUCKDB_RULES: RuleSet = {
  ...chainUtilityRules((value) => varcharText(value, `CAST(${value} AS VARCHAR)`)),
  sum: (args, context, node) =>
    context.template(`${HELPER_PREFIX}${node.sum.distinct ? 'sum_distinct' : 'sum'}(__1)`, args),
  count_if: (_args, context, node) => context.template('CAST(__1 AS BIGINT)', [node]),
  // count of a row written `(a, b)`: a row holding NULLs is still a value in Trino (and DuckDB),
  // but polyglot would drop such rows from count(DISTINCT …) and split the row into arguments
  // without it. As ROW(a, b) it reaches DuckDB as the row it is.
  count: (_args, context, node) => {
    const fields: AstNode[] | undefined = node.count.this?.tuple?.expressions;
    if (!fields?.length) return undefined;
    const row = context.template(`ROW(${fields.map((_, i) => `__${i + 1}`).join(', ')})`, fields);
    return { count: { ...node.count, this: row } };
  },
  window_function: windowAggregate,
  alias: unnestColumns,
  literal,
  cast: castRule('cast'),
  try_cast: castRule('try_cast'),
  cardinality,
  unnest: unnestMap,
  split_part: helper('split_part'),
  split: (args, context) =>
    args.length === 3 ? context.template(`${HELPER_PREFIX}split_limited(__1, __2, __3)`, args) : undefined,
  slice: helper('slice'),
  width_bucket: helper('width_bucket'),
  // Keys sorted, numbers as Java writes them, as Trino's json_parse (dune-functions.ts).
  json_parse: canonicalJson,
  // A JSON literal (json '{"a": 1}').
  parse_json: canonicalJson,
  json_extract_scalar: helper('json_extract_scalar'),
  json_value: (_args, context, node) => {
    const call = node.json_value;
    const value = context.template(`${HELPER_PREFIX}json_value(__1)`, [
      jsonItems('json_value', call, context),
    ]);
    if (!call.returning) return value;
    // RETURNING a type: the text converted, NULL when it does not convert (NULL ON ERROR).
    const converted = context.template('TRY_CAST(__1 AS VARCHAR)', [value]);
    converted.try_cast.to = structuredClone(call.returning);
    return converted;
  },
  json_query: (_args, context, node) => {
    const call = node.json_query;
    const wrapper = /^WITH\b/i.test(call.wrapper_option ?? '')
      ? /CONDITIONAL/i.test(call.wrapper_option) && !/UNCONDITIONAL/i.test(call.wrapper_option)
        ? 'conditional'
        : 'unconditional'
      : 'without';
    const omitQuotes = /^OMIT/i.test(call.quotes_option ?? '') ? 'true' : 'false';
    return context.template(`${HELPER_PREFIX}json_query(__1, '${wrapper}', ${omitQuotes})`, [
      jsonItems('json_query', call, context),
    ]);
  },
  json_exists: (args, context) => {
    if (args.length !== 2) return undefined;
    const { path, wildcard } = jsonPathOf('json_exists', args[1]!);
    return context.template(`${HELPER_PREFIX}${wildcard ? 'json_exists_any' : 'json_exists'}(__1, __2)`, [
      args[0]!,
      stringNode(path),
    ]);
  },
  extract: extractField,
  // Counted exactly: DuckDB's approx_count_distinct was off by up to 25% at a thousand values
  // (Trino's standard error is 2.3%), and local tables are small enough to count.
  approx_distinct: (args, context) => context.template('count(DISTINCT __1)', args.slice(0, 1)),
  add: intervalArithmetic('date_plus'),
  sub: intervalArithmetic('date_minus'),
  div: exactByZero('/'),
  mod: exactByZero('%'),
  // Seconds since the epoch as an instant. A zone (a name, an offset, or literal hours and minutes)
  // moves it to that zone as `at_timezone` does, so it is shown in that zone (output-types.ts).
  // polyglot rewrote the call itself, but not under HOUR(), CAST(), AT TIME ZONE.
  from_unixtime: (args, context, node) => {
    const instant = context.template(`${HELPER_PREFIX}from_unixtime(__1)`, args.slice(0, 1));
    const zone = zoneOfExpression(node);
    return zone === undefined ? instant : atTimeZone(instant, stringNode(zone), context);
  },
  // Seconds since the epoch, a double. polyglot writes EPOCH itself, but not under CAST or AT TIME
  // ZONE, where the call was left as is (from_unixtime(to_unixtime(x), zone) failed).
  to_unixtime: (args, context) => context.template('epoch(__1)', args),
  // Trino's greatest/least and array_max/array_min are NULL when any value is NULL; DuckDB's skip
  // NULLs, which would answer silently otherwise.
  max: topN('max_n'),
  min: topN('min_n'),
  greatest: nullIfAnyNull('greatest'),
  least: nullIfAnyNull('least'),
  array_max: nullIfAnyNullElement('list_max'),
  array_min: nullIfAnyNullElement('list_min'),
  e: (args, context) => context.template('exp(1)', args),
  // Java's cube root (a function the engine registers, dune-functions.ts), exact for perfect cubes.
  cbrt: helper('cbrt'),
  // The session's zone: UTC, set by the session setup (SESSION_SETTINGS).
  current_timezone: (args, context) => context.template("current_setting('TimeZone')", args),
  // Trino reads a timestamp without zone in the session's zone (UTC) and gives its wall-clock
  // time in the named zone; DuckDB would read it as wall-clock time in the named zone instead (New
  // York's noon became 17:00, not 07:00). Read as UTC first, both kinds convert alike.
  at_time_zone: (_args, context, node) => atTimeZone(node.at_time_zone.this, node.at_time_zone.zone, context),
  // Trino's function form of AT TIME ZONE.
  at_timezone: (args, context) => atTimeZone(args[0], args[1], context),
  // Trino takes a timestamp without zone: its wall-clock time read in the zone. With a zone written
  // out, that wall-clock time is held and shown with the zone (as `AT TIME ZONE`'s value is,
  // output-types.ts). Otherwise it is the instant: DuckDB's timezone(zone, timestamp) reads the
  // wall-clock time in the zone (with a timestamptz it would do the reverse); an offset zone is
  // subtracted from the wall-clock time read as UTC (the session's zone).
  with_timezone: (args, context, node) => {
    if (zoneOfExpression(node) !== undefined)
      return context.template('CAST(__1 AS TIMESTAMP)', args.slice(0, 1));
    const minutes = offsetMinutes(args[1]);
    return minutes === undefined
      ? context.template('timezone(__2, CAST(__1 AS TIMESTAMP))', args)
      : context.template(
          `CAST(CAST(__1 AS TIMESTAMP) - to_minutes(${minutes}) AS TIMESTAMP WITH TIME ZONE)`,
          args,
        );
  },
  // Trino: a bigint, 0 when absent (DuckDB: an integer, NULL when absent).
  array_position: (args, context) =>
    context.template('CAST(coalesce(array_position(__1, __2), 0) AS BIGINT)', args),
  // DuckDB counts JSON array elements as UBIGINT, and an object's or a scalar's as 0 (Trino: NULL,
  // as for text it cannot read).
  json_array_length: (args, context) =>
    context.template(
      "CASE WHEN json_type(TRY_CAST(__1 AS JSON)) = 'ARRAY' THEN CAST(json_array_length(TRY_CAST(__1 AS JSON)) AS BIGINT) END",
      args,
    ),
  // Text it cannot read is NULL, as to Trino's (see json_extract_scalar's macro).
  json_extract: (args, context) => context.template('json_extract(TRY_CAST(__1 AS JSON), __2)', args),
  // Trino's format is Java's String.format; printf reads the common patterns (%s %d %.2f %%) alike,
  // but its %s takes text only (Java's takes any value): what a %s prints is cast to text.
  format: javaFormat,
  regexp_count: (args, context) => context.template('len(regexp_extract_all(__1, __2))', args),
  // 1-based index of the first match (from `start`), -1 when none: the length of the shortest
  // prefix followed by a match, as RE2's leftmost match finds it. The occurrence form is not read.
  regexp_position: (args, context) =>
    args.length === 2 || args.length === 3
      ? context.template(
          regexpPosition(args.length === 3 ? 'substr(__1, __3)' : '__1', args.length === 3 ? '__3' : '1'),
          args,
        )
      : undefined,
  transform: renameTo('list_transform'),
  // Arrays of unnamed rows, as Trino's (DuckDB's list_zip pads the shorter lists with NULLs too).
  zip: renameTo('list_zip'),
  // polyglot would turn flatten into UNNEST (rows, not one array).
  flatten: (args, context) => context.template('list_reduce(__1, (a, b) -> list_concat(a, b), [])', args),
  // Trino's and Dune's names for what the varbinary helpers do (lenient about the byte count).
  from_big_endian_64: helper('varbinary_to_bigint'),
  from_big_endian_32: helper('varbinary_to_integer'),
  bytea2numeric: helper('varbinary_to_bigint'),
  varbinary_to_decimal: varbinaryToDecimal,
  // Dune documents it under its older name too (Functions-and-operators/varbinary).
  bytearray_to_decimal: varbinaryToDecimal,
  // Map and zip lambdas: DuckDB's lambdas take one parameter (an entry, a zipped pair).
  transform_values: lambdaOverEntries(
    'map_from_entries(list_transform(map_entries(__1), dunesql_entry -> ROW(dunesql_entry.key, __2)))',
    ENTRY,
  ),
  transform_keys: lambdaOverEntries(
    'map_from_entries(list_transform(map_entries(__1), dunesql_entry -> ROW(__2, dunesql_entry.value)))',
    ENTRY,
  ),
  map_filter: lambdaOverEntries(
    'map_from_entries(list_filter(map_entries(__1), dunesql_entry -> __2))',
    ENTRY,
  ),
  // Trino pads the shorter array with NULLs, as list_zip does.
  zip_with: lambdaOverEntries('list_transform(list_zip(__1, __2), dunesql_pair -> __3)', [
    'struct_extract(dunesql_pair, 1)',
    'struct_extract(dunesql_pair, 2)',
  ]),
  ...Object.fromEntries(
    [
      'array_distinct',
      'array_union',
      'array_except',
      'array_intersect',
      'arrays_overlap',
      'is_finite',
      'is_infinite',
      'infinity',
      'nan',
      'codepoint',
      'levenshtein_distance',
      'hamming_distance',
      'normalize',
      'bitwise_left_shift',
      'bitwise_right_shift',
      'human_readable_seconds',
      'multimap_agg',
      'approx_most_frequent',
      'approx_set',
      'merge',
      'empty_approx_set',
      'shuffle',
      'bit_count',
      'from_base',
      'to_base',
      'histogram',
      'to_big_endian_64',
      'to_big_endian_32',
      'from_unixtime_nanos',
      'to_iso8601',
      'json_size',
      'json_array_get',
      'is_json_scalar',
      'url_extract_host',
      'url_extract_path',
      'url_extract_parameter',
      'ngrams',
      'combinations',
      'map_union',
      'to_milliseconds',
      'parse_duration',
    ].map((name) => [name, helper(name)]),
  ),
  array_sort: sortWithComparator,
  // The type's DuneSQL name (integer, varbinary, uint256), not DuckDB's (INTEGER, BLOB, UHUGEINT).
  typeof: (args, context) => context.template(`${HELPER_PREFIX}type_name(typeof(__1))`, args),
  map_entries: (args, context) =>
    context.template('list_transform(map_entries(__1), entry -> ROW(entry.key, entry.value))', args),
  reduce: foldWithState,
  // Trino's three-valued answers: a NULL that could decide the answer makes it NULL.
  contains: (args, context) =>
    context.template(
      'CASE WHEN __1 IS NULL OR __2 IS NULL THEN NULL WHEN list_contains(__1, __2) THEN true WHEN list_position(__1, NULL) IS NOT NULL THEN NULL ELSE false END',
      args,
    ),
  any_match: matchRule('list_max', ['false', 'NULL', 'true'], 'false'),
  all_match: matchRule('list_min', ['false', 'NULL', 'true'], 'true'),
  none_match: matchRule('list_max', ['true', 'NULL', 'false'], 'true'),
  // Java's answers outside the domain, as Trino gives them (DuckDB fails): NaN for a negative value,
  // -Infinity for the logarithm of 0.
  sqrt: (args, context) => context.template(`CASE WHEN __1 < 0 THEN ${NAN} ELSE sqrt(__1) END`, args),
  ...Object.fromEntries(
    ['ln', 'log10', 'log2'].map((log) => [
      log,
      (args: AstNode[], context: RuleContext) =>
        context.template(
          `CASE WHEN __1 = 0 THEN CAST('-Infinity' AS DOUBLE) WHEN __1 < 0 THEN ${NAN} ELSE ${log}(__1) END`,
          args,
        ),
    ]),
  ),
  // Trino's sign has its argument's type; DuckDB's is a tinyint. x * 0 carries the type.
  sign: (args, context) => context.template('(__1 * 0 + sign(__1))', args),
  date_trunc: dateTrunc,
  // Trino: the millisecond within the second (DuckDB counts the second's milliseconds too).
  millisecond: (args, context) => context.template('(millisecond(__1) % 1000)', args),
  // Trino's ISO day of week (Monday 1 ... Sunday 7), day of year and ISO week-numbering year.
  dow: renameTo('isodow'),
  doy: renameTo('dayofyear'),
  yow: renameTo('isoyear'),
  year_of_week: renameTo('isoyear'),
  date_add: helper('date_add'),
  date_diff: helper('date_diff'),
  to_hex: helper('to_hex'),
  from_hex: helper('from_hex'),
  length: helper('length'),
  substring: helper('substr'),
  reverse: helper('reverse'),
  tdigest_agg: unweightedDigest('tdigest_agg'),
  qdigest_agg: unweightedDigest('qdigest_agg'),
  value_at_quantile: digestQuantile,
  values_at_quantiles: digestQuantile,
  // Three arguments: Trino's weighted form, approx_percentile(x, w, p).
  approx_percentile: (args, context, node) =>
    args.length === 3
      ? context.template(`${HELPER_PREFIX}weighted_percentile(__1, __2, __3)`, args)
      : helper('approx_percentile')(args, context, node),
  sequence: helper('sequence'),
  array_join: helper('array_join'),
  md5: helper('md5'),
  lpad: helper('lpad'),
  rpad: helper('rpad'),
  // strpos: Trino's third argument is the occurrence wanted (DuckDB has none).
  str_position: (_args, context, node) => {
    const { this: text, substr, occurrence } = node.str_position;
    return occurrence
      ? context.template(`${HELPER_PREFIX}strpos(__1, __2, __3)`, [text, substr, occurrence])
      : undefined;
  },
  split_to_map: helper('split_to_map'),
  json_array_contains: helper('json_array_contains'),
  trim_array: helper('trim_array'),
  sha1: helper('sha1'),
  sha256: helper('sha256'),
  repeat: helper('repeat'),
  map_agg: helper('map_agg'),
  bitwise_and: helper('bitwise_and'),
  bitwise_or: helper('bitwise_or'),
  bitwise_xor: helper('bitwise_xor'),
  bitwise_not: helper('bitwise_not'),
  // Trino's bitwise aggregates are bigint whatever the integer type summed up.
  ...Object.fromEntries(
    ['and', 'or', 'xor'].map((op) => [
      `bitwise_${op}_agg`,
      (args: AstNode[], context: RuleContext) => context.template(`CAST(bit_${op}(__1) AS BIGINT)`, args),
    ]),
  ),
  from_iso8601_timestamp: helper('from_iso8601_timestamp'),
  from_iso8601_date: helper('from_iso8601_date'),
  from_utf8: helper('from_utf8'),
  to_utf8: helper('to_utf8'),
  // DuckDB's element_at returns a one-element list for maps; subscripts return the value, for maps and arrays.
  element_at: (args, context) => context.template('__1[__2]', args),
  // Trino's concat is NULL if any argument is NULL (DuckDB's concat skips NULLs); `||` keeps Trino's answer.
  concat: (args, context) =>
    args.length < 2 ? undefined : context.template(args.map((_, i) => `(__${i + 1})`).join(' || '), args),
  format_datetime: formatRule('format_datetime', JODA_FORMAT, 'strftime'),
  // Trino's parse_datetime is a timestamp with time zone (UTC unless the text names one).
  parse_datetime: formatRule('parse_datetime', JODA_FORMAT, 'strptime', 'TIMESTAMP WITH TIME ZONE'),
  date_format: formatRule('date_format', MYSQL_FORMAT, 'strftime'),
  date_parse: formatRule('date_parse', MYSQL_FORMAT, 'strptime'),
  // Trino's Teradata functions: polyglot would pass the format to strftime/strptime unread.
  to_char: toChar,
  to_timestamp: teradataParse('to_timestamp'),
  to_date: teradataParse('to_date'),
  ...Object.fromEntries(
    Object.keys(MACROS)
      .filter((n) => n.startsWith('varbinary_'))
      .map((n) => [n, helper(n)]),
  ),
  ...Object.fromEntries(
    BYTEARRAY_ALIASES.map((suffix) => [`bytearray_${suffix}`, helper(`varbinary_${suffix}`)]),
  ),
};

/** Dune's 256-bit types as the local engine stores them (decision: UHUGEINT/HUGEINT, 128 bits). */
export const DUCKDB_TYPES: Record<string, string> = { UINT256: 'UHUGEINT', INT256: 'HUGEINT' };

/** DuckDB's physical type names in its messages, as Trino names those types. */
const DUCKDB_TYPE_NAMES: Record<string, string> = {
  INT64: 'bigint',
  INT32: 'integer',
  INT16: 'smallint',
  INT8: 'tinyint',
  BLOB: 'varbinary',
};

/** DuckDB messages name the helpers; users wrote the DuneSQL names. */
export function userFacingMessage(message: string): string {
  return (
    message
      .replaceAll(new RegExp(HELPER_PREFIX, 'gi'), '')
      // Dune's 256-bit types are DuckDB's 128-bit ones locally: a message names the user's type.
      .replaceAll(/\b(?:UINT128|UHUGEINT)\b/g, 'uint256')
      .replaceAll(/\b(?:INT128|HUGEINT)\b/g, 'int256')
      // DuckDB's physical names for Trino's types (`Overflow in addition of INT64`).
      .replaceAll(/\b(?:INT64|INT32|INT16|INT8|BLOB)\b/g, (name) => DUCKDB_TYPE_NAMES[name]!)
  );
}

/** regexp_position over `text` (an expression of the call's arguments), counting from `start`. */
function regexpPosition(text: string, start: string): string {
  const prefixed = `'^(?s:.*?)(' || __2 || ')'`;
  return (
    `CASE WHEN __1 IS NULL OR __2 IS NULL THEN NULL WHEN regexp_matches(${text}, __2) ` +
    `THEN CAST(length(regexp_extract(${text}, ${prefixed}, 0)) - length(regexp_extract(${text}, ${prefixed}, 1)) + ${start} AS BIGINT) ` +
    'ELSE CAST(-1 AS BIGINT) END'
  );
}
