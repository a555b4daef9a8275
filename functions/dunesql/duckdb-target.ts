import { stringLiteral } from './ast';
import { jodaToStrftime, mysqlToStrftime } from './date-formats';
import { UnsupportedConstruct } from './errors';
import { type Rule, type RuleSet, renameTo, unsupported } from './rules';

/**
 * The local engine's side of DuneSQL: DuckDB macros for Dune's onchain functions and for Trino
 * functions whose DuckDB namesake answers differently, plus the rewrite rules that route calls to
 * them. Helper names start with `dunesql_` so they never shadow DuckDB's own functions; error
 * messages drop the prefix (see userFacingMessage).
 */
export const HELPER_PREFIX = 'dunesql_';

const TWO_64 = '18446744073709551616::UHUGEINT';

/** Hex digits of the last 16 bytes of a BLOB, left-padded with `pad` (a sign or zero digit). */
const low128Hex = (b: string, pad: string) =>
  `CASE WHEN length(hex(${b})) >= 32 THEN right(hex(${b}), 32) ELSE lpad(hex(${b}), 32, ${pad}) END`;
/** The 128-bit unsigned value of 32 hex digits. */
const uint128OfHex = (h: string) =>
  `((('0x' || left(${h}, 16))::UBIGINT::UHUGEINT << 64) | ('0x' || right(${h}, 16))::UBIGINT::UHUGEINT)`;
/** Hex digits before the last 16 bytes (must be zeros, or sign bits, to fit 128 bits). */
const highHex = (b: string) => `left(hex(${b}), greatest(length(hex(${b})) - 32, 0))`;
const isNegative = (b: string) => `(octet_length(${b}) > 0 AND left(hex(${b}), 1) >= '8')`;

const tooWide = (what: string) =>
  `error('${what} value does not fit the local engine''s 128-bit integers (DuneSQL uint256/int256 are stored as UHUGEINT/HUGEINT locally)')`;

const toUint256 = `CASE WHEN ltrim(${highHex('b')}, '0') <> '' THEN ${tooWide('uint256')} ELSE ${uint128OfHex(low128Hex('b', "'0'"))} END`;
const toInt256 = `CASE
  WHEN ltrim(${highHex('b')}, CASE WHEN ${isNegative('b')} THEN 'F' ELSE '0' END) <> '' THEN ${tooWide('int256')}
  WHEN ${isNegative('b')} THEN -((~${uint128OfHex(low128Hex('b', "'F'"))}) + 1)::HUGEINT
  ELSE ${uint128OfHex(low128Hex('b', "'0'"))}::HUGEINT END`;
/** Big-endian signed integer of at most `bytes` bytes (Trino's from_big_endian_32/64). */
const toSigned = (bytes: number, type: string) => {
  const digits = bytes * 2;
  const h = `lpad(hex(b), ${digits}, '0')`;
  return `CASE WHEN octet_length(b) > ${bytes} THEN error('varbinary_to_${type.toLowerCase()} needs at most ${bytes} bytes')
    ELSE (('0x' || ${h})::UBIGINT::HUGEINT - CASE WHEN octet_length(b) = ${bytes} AND left(${h}, 1) >= '8' THEN ${2n ** BigInt(bytes * 8)}::HUGEINT ELSE 0 END)::${type} END`;
};
const substringOf = `unhex(substring(hex(b), 2 * s - 1, 2 * l))`;
const substringFrom = `unhex(substring(hex(b), 2 * s - 1))`;

/** Macros created in each sandbox before it locks (name without prefix → overloads). */
const MACROS: Record<string, string> = {
  // Exact sums: DuckDB sums UHUGEINT as DOUBLE. Summing the two 64-bit halves is exact.
  sum: `(x UHUGEINT) AS (sum((x // ${TWO_64})::UBIGINT)::UHUGEINT * ${TWO_64} + sum((x % ${TWO_64})::UBIGINT)::UHUGEINT), (x) AS sum(x)`,
  date_trunc: `(unit, x DATE) AS date_trunc(unit, x)::DATE, (unit, x) AS date_trunc(unit, x)`,
  date_add: `(unit, n, x DATE) AS (x + n * ('1 ' || unit)::INTERVAL)::DATE, (unit, n, x) AS x + n * ('1 ' || unit)::INTERVAL`,
  // Trino counts whole units elapsed (date_sub in DuckDB), not boundaries crossed (DuckDB date_diff).
  date_diff: `(unit, a, b) AS date_sub(unit, a, b)`,
  to_hex: `(b BLOB) AS hex(b)`,
  from_hex: `(s) AS unhex(regexp_replace(s, '^0[xX]', ''))`,
  length: `(x BLOB) AS octet_length(x), (x) AS length(x)`,
  substr: `(x BLOB, s) AS unhex(substring(hex(x), 2 * s - 1)), (x BLOB, s, l) AS unhex(substring(hex(x), 2 * s - 1, 2 * l)), (x, s) AS substring(x, s), (x, s, l) AS substring(x, s, l)`,
  approx_percentile: `(x, p) AS approx_quantile(x, p)`,
  // Trino's sequence is inclusive like generate_series; a date sequence steps by days and stays dates.
  // Trino's hashes take and return varbinary; DuckDB's return hex text.
  md5: `(b BLOB) AS unhex(md5(b))`,
  sha1: `(b BLOB) AS unhex(sha1(b))`,
  sha256: `(b BLOB) AS unhex(sha256(b))`,
  // Trino's repeat builds an array; DuckDB's repeats a string.
  repeat: `(x, n) AS list_transform(generate_series(1, n), i -> x)`,
  array_join: `(a, s) AS array_to_string(a, s), (a, s, n) AS array_to_string(list_transform(a, x -> coalesce(CAST(x AS VARCHAR), n)), s)`,
  sequence: `(a DATE, b DATE) AS list_transform(generate_series(a::TIMESTAMP, b::TIMESTAMP, INTERVAL 1 DAY), d -> d::DATE), (a DATE, b DATE, s) AS list_transform(generate_series(a::TIMESTAMP, b::TIMESTAMP, s), d -> d::DATE), (a, b) AS generate_series(a, b), (a, b, s) AS generate_series(a, b, s)`,
  map_agg: `(k, v) AS map(list(k), list(v))`,
  bitwise_and: `(a, b) AS a & b`,
  bitwise_or: `(a, b) AS a | b`,
  bitwise_xor: `(a, b) AS xor(a, b)`,
  bitwise_not: `(a) AS ~a`,
  from_iso8601_timestamp: `(s) AS s::TIMESTAMPTZ`,
  from_iso8601_date: `(s) AS s::DATE`,
  from_utf8: `(b) AS decode(b)`,
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
  varbinary_reverse: `(b) AS unhex(array_to_string(list_reverse(regexp_extract_all(hex(b), '..')), ''))`,
  varbinary_position: `(b, p) AS CASE WHEN octet_length(p) = 0 THEN 1 ELSE list_position(list_transform(range(0, octet_length(b) - octet_length(p) + 1), i -> substring(hex(b), 2 * i + 1, 2 * octet_length(p)) = hex(p)), true) END`,
};

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
];

const SESSION_SETTINGS = [
  // Trino divides integers as integers (5 / 2 = 2); DuckDB's `/` would give 2.5.
  'SET integer_division = true',
  // Trino sorts NULLs last in both directions unless told otherwise.
  "SET default_null_order = 'nulls_last'",
  // Dune's timestamps are UTC; now() and from_unixtime() must not follow the machine's zone.
  "SET TimeZone = 'UTC'",
];

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
 * The session setup one translated statement needs, as one multi-statement string (one round trip):
 * the settings plus only the macros it calls (creating all of them costs ~7 ms a run; none, ~0).
 */
export function sessionSetupFor(duckDbSql: string): string {
  const used = new Set(
    [...duckDbSql.matchAll(new RegExp(`${HELPER_PREFIX}([a-z0-9_]+)\\s*\\(`, 'gi'))].map((m) =>
      m[1]!.toLowerCase(),
    ),
  );
  return [...SESSION_SETTINGS, ...[...used].filter((name) => MACROS[name]).map(macroStatement)].join(';\n');
}

const helper = (name: string) => renameTo(`${HELPER_PREFIX}${name}`);

function formatRule(name: string, convert: (pattern: string) => string | undefined, fn: string): Rule {
  return (args, context) => {
    const pattern = stringLiteral(args[1]);
    const converted = pattern === undefined ? undefined : convert(pattern);
    if (converted === undefined) {
      throw new UnsupportedConstruct(
        name,
        pattern === undefined
          ? `${name}() needs its format as a string literal on the local engine, e.g. ${name}(block_time, '${name.includes('datetime') ? 'yyyy-MM-dd' : '%Y-%m-%d'}').`
          : `${name}() format '${pattern}' uses a pattern letter the local engine does not support; use the common letters (${name.includes('datetime') ? 'yyyy MM dd HH mm ss SSS' : '%Y %m %d %H %i %s %f'}).`,
      );
    }
    return context.template(`${fn}(__1, '${converted.replaceAll("'", "''")}')`, [args[0]]);
  };
}

/** Rewrite rules for the local engine, keyed by function name or polyglot node type. */
export const DUCKDB_RULES: RuleSet = {
  sum: helper('sum'),
  date_trunc: helper('date_trunc'),
  date_add: helper('date_add'),
  date_diff: helper('date_diff'),
  to_hex: helper('to_hex'),
  from_hex: helper('from_hex'),
  length: helper('length'),
  substring: helper('substr'),
  approx_percentile: helper('approx_percentile'),
  sequence: helper('sequence'),
  array_join: helper('array_join'),
  md5: helper('md5'),
  sha1: helper('sha1'),
  sha256: helper('sha256'),
  repeat: helper('repeat'),
  map_agg: helper('map_agg'),
  bitwise_and: helper('bitwise_and'),
  bitwise_or: helper('bitwise_or'),
  bitwise_xor: helper('bitwise_xor'),
  bitwise_not: helper('bitwise_not'),
  from_iso8601_timestamp: helper('from_iso8601_timestamp'),
  from_iso8601_date: helper('from_iso8601_date'),
  from_utf8: helper('from_utf8'),
  to_utf8: helper('to_utf8'),
  // DuckDB's element_at returns a one-element list for maps; subscripts return the value, for maps and arrays.
  element_at: (args, context) => context.template('__1[__2]', args),
  // Trino's concat is NULL if any argument is NULL (DuckDB's concat skips NULLs); `||` keeps Trino's answer.
  concat: (args, context) =>
    args.length < 2 ? undefined : context.template(args.map((_, i) => `(__${i + 1})`).join(' || '), args),
  format_datetime: formatRule('format_datetime', jodaToStrftime, 'strftime'),
  parse_datetime: formatRule('parse_datetime', jodaToStrftime, 'strptime'),
  date_format: formatRule('date_format', mysqlToStrftime, 'strftime'),
  date_parse: formatRule('date_parse', mysqlToStrftime, 'strptime'),
  keccak: unsupported(
    'keccak',
    'keccak() is not available on the local engine (DuckDB has no Keccak-256). Compare against precomputed hashes instead, e.g. the topic0 values of the decoded event tables, or run the query on Athena.',
  ),
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

/** DuckDB messages name the helpers; users wrote the DuneSQL names. */
export function userFacingMessage(message: string): string {
  return message.replaceAll(new RegExp(HELPER_PREFIX, 'gi'), '');
}
