/**
 * The DuneSQL functions and operators users can call: Trino's (Athena engine 3 runs Trino) plus
 * Dune's onchain extensions, curated by category. Static data, so the reference is the same on the
 * local host and in a Lambda (no engine is asked). Which engine runs what is derived from the
 * translator's own tables where it can be (function-support.ts); the exceptions are declared here
 * and checked against the real local engine by test/dunesql/function-reference.test.ts, which runs
 * every example through the translator and compares it with its Trino `result`.
 */

/** One function or operator as users write it. */
export interface CatalogEntry {
  /** What users type: a lower-case function name, or an operator/keyword such as `||` or `like`. */
  name: string;
  /** Trino-style signatures, `name(argument type, …) → result type`. */
  signatures: string[];
  description: string;
  /** A DuneSQL expression, or a whole single-row, single-column `select`, that shows the entry. */
  example?: string;
  /** A DuneSQL expression equal to the example's value on Trino (checked locally unless `localDiffers`). */
  result?: string;
  /** Trino's own, or one of Dune's extensions. */
  origin: 'trino' | 'dune';
  /** Not available on the local engine: why, and what to write instead. */
  notLocal?: string;
  /** Runs locally but answers differently in some cases: how. */
  localDiffers?: string;
  /** A limit of the local engine that does not change the answer otherwise. */
  localNote?: string;
  /** Not available on Athena: why, and what to write instead. */
  notAthena?: string;
}

export interface CatalogCategory {
  title: string;
  /** One or two sentences shown under the heading. */
  intro?: string;
  entries: CatalogEntry[];
}

type Options = Partial<Pick<CatalogEntry, 'notLocal' | 'localDiffers' | 'localNote' | 'notAthena' | 'name'>>;

/** An entry named after its first signature (`to_hex(varbinary) → varchar` is `to_hex`). */
function entry(
  origin: CatalogEntry['origin'],
  signature: string | string[],
  description: string,
  example?: string,
  result?: string,
  options: Options = {},
): CatalogEntry {
  const signatures = Array.isArray(signature) ? signature : [signature];
  const name = options.name ?? /^[a-z_0-9]+/i.exec(signatures[0]!)?.[0]?.toLowerCase();
  if (!name) throw new Error(`catalog entry without a name: ${signatures[0]}`);
  return { origin, signatures, description, example, result, ...options, name };
}

const trino = (
  signature: string | string[],
  description: string,
  example?: string,
  result?: string,
  options?: Options,
) => entry('trino', signature, description, example, result, options);
const dune = (
  signature: string | string[],
  description: string,
  example?: string,
  result?: string,
  options?: Options,
) => entry('dune', signature, description, example, result, options);
const operator = (
  name: string,
  signature: string | string[],
  description: string,
  example?: string,
  result?: string,
  options?: Options,
) => entry('trino', signature, description, example, result, { ...options, name });

const NO_BASE58 =
  'no Base58 in Athena; compare with the bytes themselves (0x literals), or run the query on the local host.';
const NO_KECCAK =
  'no Keccak-256 in Athena; compare with precomputed hashes (e.g. the topic0 of decoded event tables), or run the query on the local host.';

export const DUNESQL_CATALOG: CatalogCategory[] = [
  {
    title: 'Literals and types',
    intro:
      "Addresses, hashes, topics and calldata are `varbinary`; raw token amounts are `uint256` (`int256` when signed). Write byte values as `0x…` literals, never as `'0x…'` strings.",
    entries: [
      operator(
        '0x',
        '0x<hex digits> → varbinary',
        'A varbinary literal (Dune): bytes written as hex; an odd number of digits gets a leading zero.',
        '0xC02AAA39',
        "from_hex('c02aaa39')",
      ),
      operator(
        "x'",
        "X'<hex digits>' → varbinary",
        "Trino's standard varbinary literal.",
        "X'ABCD'",
        '0xabcd',
      ),
      operator(
        'interval',
        ["interval '<n>' day|hour|minute|second", "interval '<n>' year|month"],
        'A day-to-second or year-to-month interval, added to or subtracted from dates and timestamps (a date moves by whole days or months only: adding hours to a date fails). Results and `cast(… as varchar)` write it as Trino does: `3 14:00:00.000` (days, then time), `1-2` (years-months), `-` first below zero.',
        "timestamp '2024-01-02 00:00:00' - interval '36' hour",
        "timestamp '2023-12-31 12:00:00'",
      ),
      operator(
        'date',
        ["date 'YYYY-MM-DD'", "timestamp 'YYYY-MM-DD hh:mm:ss[.fff]'"],
        'Date and timestamp literals (timestamps are UTC on Dune and here).',
        "date '2024-03-05' + interval '1' month",
        "date '2024-04-05'",
      ),
      trino(
        'cast(value as type) → type',
        "Converts a value; fails on values that do not convert. Types: boolean, integer, bigint, double, decimal(p,s), varchar, varbinary, date, timestamp, json, uint256, int256, array(T), map(K,V). Text converts to an integer type only when it is one (`'42'`, `'-7'`; `cast('12.5' as integer)` fails: cast to double first, then round); a double rounds half away from zero. To varchar, a varbinary gives `0x` and lowercase hex (DuneSQL's own cast: `'https://etherscan.io/tx/' || cast(tx_hash as varchar)`; Athena refuses it, write `'0x' || lower(to_hex(x))` there), a timestamp `2024-01-02 03:04:05.000 UTC`, a double Java's notation (`1.0E7`).",
        "cast('42' as bigint) + 1",
        '43',
      ),
      trino(
        'try_cast(value as type) → type',
        'Like cast, but NULL when the value does not convert.',
        "try_cast('abc' as integer)",
        'null',
      ),
      dune(
        'cast(value as uint256) → uint256',
        "Dune's unsigned 256-bit integer (raw token amounts, `value` columns); exact arithmetic.",
        "cast('340282366920938463463374607431768211455' as uint256) - cast(1 as uint256)",
        "cast('340282366920938463463374607431768211454' as uint256)",
        {
          name: 'uint256',
          localNote:
            'held in 128 bits (UHUGEINT): values from 2^128 up fail with an error instead of wrapping. On Athena uint256 becomes decimal(38,0) (below 10^38).',
        },
      ),
      dune(
        'cast(value as int256) → int256',
        "Dune's signed 256-bit integer (signed amounts, e.g. pool deltas); exact arithmetic.",
        "cast('-5' as int256) * cast(3 as int256)",
        '-15',
        {
          name: 'int256',
          localNote:
            'held in 128 bits (HUGEINT); on Athena int256 becomes decimal(38,0) (absolute values below 10^38).',
        },
      ),
      trino(
        'typeof(value) → varchar',
        'The name of the value’s type (integer, varbinary, uint256, array(bigint)).',
        'typeof(0x01)',
        "'varbinary'",
      ),
    ],
  },
  {
    title: 'Comparison and logical operators',
    entries: [
      operator(
        '=',
        ['x = y', 'x <> y', 'x != y', 'x < y', 'x <= y', 'x > y', 'x >= y'],
        'Comparisons; varbinary compares byte by byte, so `"to" = 0xc02a…` works on address columns.',
        '0xab < 0xac',
        'true',
      ),
      operator(
        'between',
        'x [not] between a and b',
        'Inclusive range test.',
        "date '2024-01-05' between date '2024-01-01' and date '2024-01-31'",
        'true',
      ),
      operator(
        'is distinct from',
        ['x is [not] distinct from y', 'x is [not] null'],
        'NULL-safe comparison: two NULLs are not distinct.',
        'null is distinct from 1',
        'true',
      ),
      operator('in', 'x [not] in (v1, v2, … | subquery)', 'Membership test.', '0xab in (0xab, 0xcd)', 'true'),
      operator(
        'like',
        "string [not] like pattern [escape '\\']",
        '`%` matches any text, `_` one character.',
        "'uniswap_v3' like 'uniswap%'",
        'true',
      ),
      operator(
        'and',
        ['a and b', 'a or b', 'not a'],
        'Three-valued logic (NULL is unknown).',
        'true and not false',
        'true',
      ),
      operator(
        'exists',
        'exists (subquery)',
        'True when the subquery returns a row.',
        'exists (select 1)',
        'true',
      ),
      trino(
        'greatest(value1, value2, …) → same type',
        'The largest argument; NULL if any argument is NULL.',
        'greatest(3, 7, 5)',
        '7',
      ),
      trino(
        'least(value1, value2, …) → same type',
        'The smallest argument; NULL if any argument is NULL.',
        'least(3, 7, 5)',
        '3',
      ),
    ],
  },
  {
    title: 'Conditional expressions',
    entries: [
      operator(
        'case',
        ['case when cond then a [when …] [else b] end', 'case x when v then a … end'],
        'The first matching branch; NULL without else.',
        "case when 2 > 1 then 'yes' else 'no' end",
        "'yes'",
      ),
      trino(
        'if(condition, true_value[, false_value]) → same type',
        'Shorthand for a two-way case.',
        "if(1 > 2, 'a', 'b')",
        "'b'",
      ),
      trino(
        'coalesce(value1, value2, …) → same type',
        'The first non-NULL argument.',
        'coalesce(null, 0, 1)',
        '0',
      ),
      trino(
        'nullif(value1, value2) → same type',
        'NULL when both are equal, else value1 (avoids division by zero).',
        '10 / nullif(0, 0)',
        'null',
      ),
      trino(
        'try(expression) → same type',
        'The expression’s value, or NULL if evaluating it fails (division by zero, bad cast, overflow).',
        'try(1 / 0)',
        'null',
        {
          localNote:
            'an expression with a volatile function (now(), random()) inside try() fails locally: "TRY can not be used in combination with a volatile function".',
        },
      ),
    ],
  },
  {
    title: 'Mathematical functions and operators',
    entries: [
      operator(
        '/',
        ['x + y', 'x - y', 'x * y', 'x / y', 'x % y', '-x'],
        'Arithmetic. Integer division truncates (`7 / 2` is 3): divide by a double (`7 / 2e0`) or cast for a fraction. With a decimal operand (`1.0`) the quotient is a decimal of the larger scale, rounded: `1.0 / 3` is 0.3, `x * 100.0 / y` has one decimal place. An integer or decimal divided by zero (`/`, `%`, mod) fails the query with "Division by zero": write `try(x / y)` or `x / nullif(y, 0)` for NULL instead.',
        '7 / 2',
        '3',
        {
          localNote:
            'a double divided by zero is ±Infinity (NaN for 0/0) locally too when the translator can tell it is a double (a column, literal, cast, sum, avg, min, max), else NULL; write x / nullif(y, 0) to get NULL on both. Likewise a decimal division keeps its scale locally where the translator can tell the operands’ types (columns, literals, casts, counts, sums of integers), else the local engine divides in double precision.',
        },
      ),
      trino('abs(x) → same type', 'Absolute value.', 'abs(-5)', '5'),
      trino(['ceil(x) → same type', 'ceiling(x)'], 'Rounded up.', 'ceil(1.2e0)', '2'),
      trino('floor(x) → same type', 'Rounded down.', 'floor(-1.5e0)', '-2'),
      trino(
        ['round(x) → same type', 'round(x, d) → same type'],
        'Rounded half away from zero, to d decimal places (a decimal keeps its scale: `round(1.235, 2)` is 1.240).',
        'round(2.345, 2)',
        '2.35',
      ),
      trino('truncate(x) → double', 'Drops the fractional part.', 'truncate(-2.7e0)', '-2'),
      trino(
        ['power(x, p) → double', 'pow(x, p)'],
        'x to the power p; `power(10, decimals)` scales token amounts.',
        'power(10, 6)',
        '1000000',
      ),
      trino('sqrt(x) → double', 'Square root.', 'sqrt(16)', '4'),
      trino(
        'cbrt(x) → double',
        'Cube root (exact for a perfect cube, as Java computes it).',
        'cbrt(27)',
        '3.0',
      ),
      trino('exp(x) → double', 'e to the power x.', 'exp(0)', '1'),
      trino('ln(x) → double', 'Natural logarithm.', 'ln(1)', '0'),
      trino('log10(x) → double', 'Base-10 logarithm.', 'log10(1000)', '3'),
      trino('log2(x) → double', 'Base-2 logarithm.', 'log2(1024)', '10'),
      trino('log(b, x) → double', 'Base-b logarithm.', 'log(2, 8)', '3'),
      trino('mod(n, m) → same type', 'Remainder of n / m (sign of n).', 'mod(-7, 3)', '-1'),
      trino('sign(x) → same type', '-1, 0 or 1.', 'sign(-3)', '-1'),
      trino(['pi() → double', 'e() → double'], 'The constants π and e.', 'round(pi() + e(), 4)', '5.8599'),
      trino(
        ['random() → double', 'rand()', 'random(n) → same type'],
        'A pseudo-random value in [0, 1), or in [0, n).',
        'random() < 1',
        'true',
      ),
      trino('is_nan(x) → boolean', 'Whether a double is NaN.', "is_nan(cast('NaN' as double))", 'true'),
      trino(
        ['is_finite(x) → boolean', 'is_infinite(x)', 'infinity() → double', 'nan() → double'],
        'Infinity tests; infinity and NaN values.',
        'is_infinite(infinity()) and is_finite(1e0) and is_nan(nan())',
        'true',
      ),
      trino(
        ['sin(x) → double', 'cos, tan, asin, acos, atan, atan2(y, x), sinh, cosh, tanh'],
        'Trigonometric functions (radians).',
        'sin(0)',
        '0',
      ),
      trino(['degrees(x) → double', 'radians(x) → double'], 'Angle conversions.', 'degrees(pi())', '180'),
      trino(
        'width_bucket(x, bound1, bound2, n) → bigint',
        'The bucket (1..n) x falls into among n equal-width buckets.',
        'width_bucket(5.5e0, 0e0, 10e0, 10)',
        '6',
      ),
      trino(
        'from_base(string, radix) → bigint',
        'Parses a number written in base radix.',
        "from_base('ff', 16) + from_base('-101', 2)",
        '250',
      ),
      trino('to_base(x, radix) → varchar', 'Writes x in base radix.', 'to_base(255, 16)', "'ff'"),
    ],
  },
  {
    title: 'Bitwise functions',
    entries: [
      trino('bitwise_and(x, y) → bigint', 'Bitwise AND.', 'bitwise_and(12, 10)', '8'),
      trino('bitwise_or(x, y) → bigint', 'Bitwise OR.', 'bitwise_or(12, 10)', '14'),
      trino('bitwise_xor(x, y) → bigint', 'Bitwise XOR.', 'bitwise_xor(12, 10)', '6'),
      trino('bitwise_not(x) → bigint', 'Bitwise NOT (two’s complement).', 'bitwise_not(0)', '-1'),
      trino(
        'bit_count(x, bits) → bigint',
        'Number of set bits in x as a bits-wide integer.',
        'bit_count(7, 64) + bit_count(-1, 8)',
        '11',
      ),
      trino(
        'bitwise_left_shift(x, n) → same type',
        'Shifts x left by n bits within its width (bits shifted out are dropped).',
        'bitwise_left_shift(1, 4) + bitwise_left_shift(1, 40)',
        '16',
      ),
      trino(
        'bitwise_right_shift(x, n) → same type',
        'Shifts x right by n bits (a logical shift: zeros come in).',
        'bitwise_right_shift(-16, 28)',
        '15',
      ),
      trino(
        ['bitwise_and_agg(x) → bigint', 'bitwise_or_agg(x)', 'bitwise_xor_agg(x)'],
        'Aggregate: the AND (OR, XOR) of the group’s values.',
        'select bitwise_and_agg(x) + bitwise_or_agg(x) from (values 12, 10) as t (x)',
        '22',
      ),
    ],
  },
  {
    title: 'String functions and operators',
    entries: [
      operator(
        '||',
        'a || b → varchar | varbinary | array',
        'Concatenation of strings, varbinary or arrays; NULL if either side is NULL.',
        "'0x' || lower(to_hex(0xabcd))",
        "'0xabcd'",
      ),
      trino(
        'concat(a, b, …) → varchar | varbinary',
        'Concatenation; NULL if any argument is NULL.',
        "concat('a', null)",
        'null',
      ),
      trino(
        'length(string) → bigint',
        'Characters in a string (bytes of a varbinary).',
        "length('hello')",
        '5',
      ),
      trino('lower(string) → varchar', 'Lower case.', "lower('WETH')", "'weth'"),
      trino('upper(string) → varchar', 'Upper case.', "upper('weth')", "'WETH'"),
      trino(
        ['trim(string) → varchar', 'ltrim(string)', 'rtrim(string)'],
        'Removes leading and/or trailing whitespace.',
        "trim('  a  ')",
        "'a'",
      ),
      trino(
        ['lpad(string, size, pad) → varchar', 'rpad(string, size, pad)'],
        'Pads (or truncates) to size characters. On varbinary (`lpad(varbinary, size, pad_bytes)`), to size bytes.',
        "lpad('7', 3, '0')",
        "'007'",
      ),
      trino(
        'replace(string, search[, replace]) → varchar',
        'Replaces (or removes) every occurrence.',
        "replace('a-b-c', '-', '')",
        "'abc'",
      ),
      trino(
        ['reverse(string) → varchar', 'reverse(array) → array', 'reverse(varbinary) → varbinary'],
        'Characters, elements or bytes in reverse order.',
        "reverse('abc')",
        "'cba'",
      ),
      trino(
        ['split(string, delimiter) → array(varchar)', 'split(string, delimiter, limit)'],
        'Splits into an array (with a limit, at most that many entries, the last holding the rest).',
        "split('a,b,c', ',')",
        "array['a', 'b', 'c']",
      ),
      trino(
        'split_part(string, delimiter, index) → varchar',
        'The index-th field (1-based).',
        "split_part('a,b,c', ',', 2)",
        "'b'",
      ),
      trino(
        ['strpos(string, substring) → bigint', 'position(substring in string)'],
        '1-based position of the first occurrence, 0 if absent.',
        "strpos('hello', 'l')",
        '3',
      ),
      trino(
        'strpos(string, substring, instance) → bigint',
        'Position of the instance-th occurrence (overlapping ones count), 0 if there are fewer.',
        "strpos('abcabc', 'bc', 2)",
        '5',
      ),
      trino(
        'split_to_map(string, entry_delimiter, key_value_delimiter) → map(varchar, varchar)',
        'Splits into entries, each into a key and a value; a repeated key is an error.',
        "split_to_map('a=1,b=2', ',', '=')['b']",
        "'2'",
      ),
      trino(
        'starts_with(string, prefix) → boolean',
        'Prefix test.',
        "starts_with('uniswap_v3', 'uni')",
        'true',
      ),
      trino(
        ['substr(string, start[, length]) → varchar', 'substring(string from start [for length])'],
        'A substring from a 1-based position (negative start counts from the end; position 0, or one before the start, gives an empty string). On varbinary, positions count bytes.',
        "substr('abcdef', 2, 3)",
        "'bcd'",
      ),
      trino(
        ['substring(string, start[, length]) → varchar'],
        'Same as substr.',
        "substring('abcdef', 4)",
        "'def'",
      ),
      trino('chr(n) → varchar', 'The character with code point n.', 'chr(65)', "'A'"),
      trino('codepoint(string) → integer', 'Code point of a one-character string.', "codepoint('A')", '65'),
      trino(
        'concat_ws(separator, a, b, …) → varchar',
        'Concatenation with a separator, skipping NULLs.',
        "concat_ws('-', 'a', null, 'b')",
        "'a-b'",
      ),
      trino(
        ['levenshtein_distance(a, b) → bigint', 'hamming_distance(a, b) → bigint'],
        'Edit distance; number of positions that differ.',
        "levenshtein_distance('kitten', 'sitting') + hamming_distance('abc', 'abd')",
        '4',
      ),
      trino(
        'format(format, args…) → varchar',
        'printf-style formatting (Java format strings).',
        "format('%s-%s', 'a', 'b')",
        "'a-b'",
      ),
      trino(
        'format_number(number) → varchar',
        'A short form with a unit symbol (K, M, B, T, Q) and up to three significant digits.',
        'format_number(1234567)',
        "'1.23M'",
      ),
      trino('to_utf8(string) → varbinary', 'UTF-8 bytes of a string.', "to_utf8('hi')", '0x6869'),
      trino(
        'from_utf8(varbinary) → varchar',
        'Decodes UTF-8 bytes (e.g. token names in calldata); bytes that are not UTF-8 become U+FFFD.',
        'from_utf8(0x48656c6c6f)',
        "'Hello'",
      ),
      trino(
        'translate(source, from, to) → varchar',
        'Replaces characters one for one.',
        "translate('abc', 'ab', 'xy')",
        "'xyc'",
      ),
      trino('normalize(string) → varchar', 'Unicode NFC normalization.', "normalize('abc')", "'abc'"),
    ],
  },
  {
    title: 'Regular expressions',
    intro: 'Java-style patterns, as in Trino.',
    entries: [
      trino(
        'regexp_like(string, pattern) → boolean',
        'Whether the pattern matches anywhere in the string.',
        "regexp_like('0xabc', '^0x[0-9a-f]+$')",
        'true',
      ),
      trino(
        'regexp_extract(string, pattern[, group]) → varchar',
        'The first match (or its group), NULL if none.',
        "regexp_extract('v3-pool', '\\d+')",
        "'3'",
      ),
      trino(
        'regexp_extract_all(string, pattern[, group]) → array(varchar)',
        'Every match.',
        "regexp_extract_all('a1b22c333', '\\d+')",
        "array['1', '22', '333']",
      ),
      trino(
        'regexp_replace(string, pattern[, replacement]) → varchar',
        'Replaces every match (`$1` for groups).',
        "regexp_replace('a1b2', '\\d', '')",
        "'ab'",
      ),
      trino(
        'regexp_split(string, pattern) → array(varchar)',
        'Splits on matches.',
        "regexp_split('a1b2c', '\\d')",
        "array['a', 'b', 'c']",
      ),
      trino(
        'regexp_count(string, pattern) → bigint',
        'Number of matches.',
        "regexp_count('a1b2c3', '\\d')",
        '3',
      ),
      trino(
        'regexp_position(string, pattern[, start]) → bigint',
        'Index (from 1) of the first match, from position `start` if given; -1 if none.',
        "regexp_position('pool-v3-v4', '\\d', 9)",
        '10',
      ),
    ],
  },
  {
    title: 'Binary (varbinary) functions',
    intro: "Trino's functions on varbinary, which hold addresses, hashes, topics and calldata on Dune.",
    entries: [
      trino(
        'to_hex(varbinary) → varchar',
        'Hex digits of the bytes, upper case, without 0x; `lower(to_hex(x))` for the usual form.',
        'to_hex(0xc02aaa39)',
        "'C02AAA39'",
      ),
      trino(
        'from_hex(string) → varbinary',
        'Bytes from hex digits; Dune also accepts a 0x prefix.',
        "from_hex('0xabcd')",
        '0xabcd',
      ),
      trino(
        ['length(varbinary) → bigint'],
        'Number of bytes.',
        'length(0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2)',
        '20',
        { name: 'length' },
      ),
      trino(
        ['substr(varbinary, start[, length]) → varbinary'],
        'Bytes from a 1-based byte position.',
        'substr(0xaabbccdd, 2, 2)',
        '0xbbcc',
        { name: 'substr' },
      ),
      trino(
        ['to_ieee754_64(double) → varbinary', 'to_ieee754_32(real) → varbinary'],
        'The IEEE 754 bytes of a double (8) or real (4), big-endian.',
        'to_ieee754_64(1.5)',
        '0x3ff8000000000000',
      ),
      trino(
        ['from_ieee754_64(varbinary) → double', 'from_ieee754_32(varbinary) → real'],
        'The double (real) of 8 (4) IEEE 754 bytes, big-endian; other lengths fail.',
        'from_ieee754_64(0x3ff8000000000000)',
        '1.5e0',
      ),
      trino(
        'to_base64(varbinary) → varchar',
        'Base64 text of the bytes.',
        "to_base64(to_utf8('hi'))",
        "'aGk='",
      ),
      trino(
        'from_base64(string) → varbinary',
        'Bytes of base64 text.',
        "from_utf8(from_base64('aGk='))",
        "'hi'",
      ),
      trino(
        'md5(varbinary) → varbinary',
        'MD5 digest.',
        "to_hex(md5(to_utf8('a')))",
        "'0CC175B9C0F1B6A831C399E269772661'",
      ),
      trino(
        'sha1(varbinary) → varbinary',
        'SHA-1 digest.',
        "to_hex(sha1(to_utf8('a')))",
        "'86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8'",
      ),
      trino(
        'sha256(varbinary) → varbinary',
        'SHA-256 digest.',
        "to_hex(sha256(to_utf8('a')))",
        "'CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB'",
      ),
      trino(
        'sha512(varbinary) → varbinary',
        'SHA-512 digest.',
        "substr(to_hex(sha512(to_utf8('a'))), 1, 16)",
        "'1F40FC92DA241694'",
      ),
      trino(
        'lpad(varbinary, size, pad) → varbinary',
        'Pads with the pad bytes in front (or truncates) to size bytes, e.g. an address to a 32-byte topic; `rpad` pads at the end.',
        'lpad(0x01, 4, 0x00)',
        '0x00000001',
      ),
      trino(
        ['from_big_endian_64(varbinary) → bigint', 'from_big_endian_32(varbinary) → integer'],
        'The signed integer of exactly 8 (4) big-endian bytes.',
        'from_big_endian_64(0x00000000000003e8)',
        '1000',
      ),
      trino(
        ['to_big_endian_64(bigint) → varbinary', 'to_big_endian_32(integer) → varbinary'],
        'The 8 (4) big-endian bytes of an integer.',
        'to_big_endian_64(1000)',
        '0x00000000000003e8',
      ),
      trino(
        'xxhash64(varbinary) → varbinary',
        'xxHash64 digest (seed 0), 8 bytes big-endian.',
        "xxhash64(to_utf8('abc'))",
        '0x44bc2cf5ad770999',
      ),
      trino('crc32(varbinary) → bigint', 'CRC-32 checksum.', "crc32(to_utf8('a'))", '3904355907'),
    ],
  },
  {
    title: 'Varbinary functions (Dune)',
    intro:
      "Dune's helpers for calldata and raw logs: positions and lengths count bytes. Each `varbinary_*` function also answers to its older `bytearray_*` name.",
    entries: [
      dune(
        'varbinary_substring(varbinary, start[, length]) → varbinary',
        'Bytes from a 1-based byte position (e.g. the third 32-byte word of data: start 65, length 32).',
        'varbinary_substring(0xaabbccddeeff, 3, 2)',
        '0xccdd',
      ),
      dune(
        'varbinary_length(varbinary) → bigint',
        'Number of bytes.',
        'varbinary_length(0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2)',
        '20',
      ),
      dune(
        'varbinary_to_uint256(varbinary) → uint256',
        'The unsigned integer of up to 32 big-endian bytes (an ABI-encoded uint256 word).',
        'varbinary_to_uint256(0x00000000000000000000000000000000000000000000000000000000000003e8)',
        'cast(1000 as uint256)',
        { localNote: 'values of 2^128 and above fail locally (128-bit integers); decimal(38,0) on Athena.' },
      ),
      dune(
        'varbinary_to_int256(varbinary) → int256',
        'The two’s-complement signed integer of up to 32 big-endian bytes.',
        'varbinary_to_int256(0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff9c)',
        '-100',
        { localNote: 'absolute values of 2^127 and above fail locally (128-bit integers).' },
      ),
      dune(
        'varbinary_to_bigint(varbinary) → bigint',
        'The signed integer of up to 8 big-endian bytes.',
        'varbinary_to_bigint(0x03e8)',
        '1000',
      ),
      dune(
        'varbinary_to_integer(varbinary) → integer',
        'The signed integer of up to 4 big-endian bytes.',
        'varbinary_to_integer(0x0100)',
        '256',
      ),
      dune(
        'varbinary_to_decimal(varbinary) → decimal(38,0)',
        "The two's-complement integer of 16 big-endian bytes, as decimal(38,0); shorter input is padded with zero bytes in front, so it reads as non-negative.",
        'varbinary_to_decimal(0x03e8)',
        '1000',
      ),
      dune(
        'varbinary_to_varchar(varbinary) → varchar',
        'Decodes UTF-8 bytes (same as from_utf8).',
        'varbinary_to_varchar(0x6869)',
        "'hi'",
      ),
      dune(
        'varbinary_concat(varbinary, varbinary) → varbinary',
        'Concatenation of two byte strings.',
        'varbinary_concat(0xab, 0xcd)',
        '0xabcd',
      ),
      dune(
        'varbinary_ltrim(varbinary) → varbinary',
        'Drops leading zero bytes (a 32-byte topic to a 20-byte address: use varbinary_substring(topic, 13) to keep leading zero bytes of the address).',
        'varbinary_ltrim(0x000000abcd)',
        '0xabcd',
      ),
      dune(
        'varbinary_rtrim(varbinary) → varbinary',
        'Drops trailing zero bytes.',
        'varbinary_rtrim(0xabcd0000)',
        '0xabcd',
      ),
      dune(
        'varbinary_starts_with(varbinary, prefix) → boolean',
        'Prefix test (e.g. a 4-byte method id).',
        'varbinary_starts_with(0xa9059cbb0000, 0xa9059cbb)',
        'true',
      ),
      dune(
        'varbinary_ends_with(varbinary, suffix) → boolean',
        'Suffix test.',
        'varbinary_ends_with(0xaabbcc, 0xbbcc)',
        'true',
      ),
      dune(
        'varbinary_position(varbinary, pattern) → bigint',
        '1-based byte position of the first occurrence, 0 if absent.',
        'varbinary_position(0x0aa0aa, 0xaa)',
        '3',
      ),
      dune(
        'varbinary_reverse(varbinary) → varbinary',
        'Bytes in reverse order.',
        'varbinary_reverse(0xabcdef)',
        '0xefcdab',
      ),
      dune(
        'varbinary_replace(varbinary, search, replace) → varbinary',
        'Replaces every occurrence of a byte pattern.',
        'varbinary_replace(0x0aa0aabbaa, 0xaa, 0xcc)',
        '0x0aa0ccbbcc',
      ),
      dune(
        'keccak(varbinary) → varbinary',
        'Keccak-256 hash (event signatures, selectors).',
        "keccak(to_utf8('Transfer(address,address,uint256)'))",
        '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef',
        { notAthena: NO_KECCAK },
      ),
      dune(
        'from_base58(varchar) → varbinary',
        'Decodes Base58 text (Bitcoin alphabet): Solana addresses and instruction data.',
        "from_base58('3DZBMRwnSU8f')",
        '0x030094357700000000',
        { notAthena: NO_BASE58 },
      ),
      dune(
        'to_base58(varbinary) → varchar',
        'Encodes bytes as Base58 text (Bitcoin alphabet), as Solana writes addresses.',
        'to_base58(0x030094357700000000)',
        "'3DZBMRwnSU8f'",
        { notAthena: NO_BASE58 },
      ),
      dune(
        'bytea2numeric(varbinary) → bigint',
        'Deprecated alias of varbinary_to_bigint.',
        'bytea2numeric(0x03e8)',
        '1000',
      ),
    ],
  },
  {
    title: 'Date and time functions and operators',
    intro:
      'Timestamps are UTC. The sample data ends on the day the local warehouse was built, so ranges relative to now() find rows.',
    entries: [
      trino(
        ['now() → timestamp with time zone', 'current_timestamp', 'current_date → date'],
        'The current instant (date), UTC.',
        "now() > timestamp '2020-01-01 00:00:00'",
        'true',
      ),
      trino(
        'date_trunc(unit, x) → same type',
        "Truncates to the start of a unit: 'minute', 'hour', 'day', 'week' (Monday), 'month', 'quarter', 'year'. A date stays a date.",
        "date_trunc('month', timestamp '2024-03-05 10:11:12')",
        "timestamp '2024-03-01 00:00:00'",
      ),
      trino(
        'date_add(unit, value, x) → same type',
        'Adds value units (negative to subtract).',
        "date_add('day', -7, date '2024-03-05')",
        "date '2024-02-27'",
      ),
      trino(
        'date_diff(unit, x1, x2) → bigint',
        'Whole units from x1 to x2.',
        "date_diff('day', timestamp '2024-01-01 23:00:00', timestamp '2024-01-03 01:00:00')",
        '1',
      ),
      trino(
        'date(x) → date',
        'The date of a timestamp (or parses YYYY-MM-DD).',
        "date(timestamp '2024-03-05 23:59:00')",
        "date '2024-03-05'",
      ),
      trino(
        'from_unixtime(seconds) → timestamp with time zone',
        'The instant of a Unix time in seconds (e.g. a block timestamp field in calldata).',
        'from_unixtime(1700000000)',
        "timestamp '2023-11-14 22:13:20'",
      ),
      trino(
        'to_unixtime(timestamp) → double',
        'Seconds since the Unix epoch.',
        "to_unixtime(timestamp '2023-11-14 22:13:20')",
        '1700000000',
      ),
      trino(
        'from_unixtime_nanos(nanoseconds) → timestamp with time zone',
        'The instant of a Unix time in nanoseconds.',
        'from_unixtime_nanos(1700000000000000000)',
        "timestamp '2023-11-14 22:13:20'",
      ),
      trino(
        'format_datetime(timestamp, format) → varchar',
        'Formats with a Joda-Time pattern.',
        "format_datetime(timestamp '2024-01-02 03:04:05', 'yyyy-MM-dd HH:mm')",
        "'2024-01-02 03:04'",
        {
          localNote:
            'the pattern must be a literal using the common letters (yyyy MM dd HH mm ss SSS EEE a Z).',
        },
      ),
      trino(
        'parse_datetime(string, format) → timestamp with time zone',
        'Parses with a Joda-Time pattern.',
        "parse_datetime('2024-01-02', 'yyyy-MM-dd')",
        "timestamp '2024-01-02 00:00:00'",
        { localNote: 'the pattern must be a literal using the common letters.' },
      ),
      trino(
        'date_format(timestamp, format) → varchar',
        'Formats with MySQL codes (%Y-%m-%d %H:%i:%s).',
        "date_format(timestamp '2024-01-02 03:04:05', '%Y-%m-%d %H:%i')",
        "'2024-01-02 03:04'",
        { localNote: 'the format must be a literal.' },
      ),
      trino(
        'date_parse(string, format) → timestamp',
        'Parses with MySQL codes.',
        "date_parse('2024/01/02', '%Y/%m/%d')",
        "timestamp '2024-01-02 00:00:00'",
        {
          localNote: 'the format must be a literal.',
        },
      ),
      trino(
        'to_char(timestamp, format) → varchar',
        "Formats with Teradata's specifiers, in lower case: yyyy yy mm dd hh24 hh (0-11) mi ss, between - / , . ; : or spaces.",
        "to_char(timestamp '2024-01-02 15:04:05', 'yyyy/mm/dd hh24:mi')",
        "'2024/01/02 15:04'",
        { localNote: 'the format must be a literal.' },
      ),
      trino(
        'to_timestamp(string, format) → timestamp',
        "Parses with Teradata's specifiers (as to_char's); yy reads as 2000-2099.",
        "to_timestamp('02.01.2024 15:04', 'dd.mm.yyyy hh24:mi')",
        "timestamp '2024-01-02 15:04:00'",
        { localNote: 'the format must be a literal.' },
      ),
      trino(
        'to_date(string, format) → date',
        "Parses a date with Teradata's specifiers (as to_char's).",
        "to_date('2024/01/02', 'yyyy/mm/dd')",
        "date '2024-01-02'",
        { localNote: 'the format must be a literal.' },
      ),
      trino(
        'from_iso8601_timestamp(string) → timestamp with time zone',
        'Parses an ISO 8601 timestamp.',
        "from_iso8601_timestamp('2024-01-02T03:04:05Z')",
        "timestamp '2024-01-02 03:04:05'",
      ),
      trino(
        'from_iso8601_date(string) → date',
        'Parses an ISO 8601 date.',
        "from_iso8601_date('2024-01-02')",
        "date '2024-01-02'",
      ),
      trino(
        'to_iso8601(x) → varchar',
        'ISO 8601 text of a date or timestamp.',
        "to_iso8601(date '2024-01-02')",
        "'2024-01-02'",
      ),
      operator(
        'extract',
        'extract(field from x) → bigint',
        'A field of a date or timestamp: year, quarter, month, week (ISO), day, day_of_month, day_of_week or dow (1 = Monday … 7 = Sunday), day_of_year or doy, year_of_week or yow (ISO), hour, minute, second.',
        "extract(day_of_week from date '2021-01-03')",
        '7',
      ),
      trino(
        [
          'year(x) → bigint',
          'quarter(x)',
          'month(x)',
          'week(x)',
          'year_of_week(x)',
          'yow(x)',
          'day(x)',
          'hour(x)',
          'minute(x)',
          'second(x)',
          'millisecond(x)',
        ],
        'One field of a date or timestamp (`millisecond`: within the second, 0–999).',
        "year(timestamp '2024-03-05 10:00:00')",
        '2024',
      ),
      trino(
        ['day_of_week(x) → bigint', 'dow(x)'],
        'ISO day of the week, 1 (Monday) to 7 (Sunday).',
        "day_of_week(date '2024-03-10')",
        '7',
      ),
      trino(
        ['day_of_year(x) → bigint', 'doy(x)'],
        'Day of the year, from 1.',
        "day_of_year(date '2024-02-01')",
        '32',
      ),
      trino(
        'last_day_of_month(x) → date',
        'The last day of the month of x.',
        "last_day_of_month(date '2024-02-10')",
        "date '2024-02-29'",
      ),
      trino(
        'with_timezone(timestamp, zone) → timestamp with time zone',
        'The wall-clock time of a timestamp without zone, read in the zone.',
        "with_timezone(timestamp '2024-01-01 12:00:00', 'America/New_York')",
        "timestamp '2024-01-01 12:00:00 America/New_York'",
      ),
      trino(
        'current_timezone() → varchar',
        "The session's time zone (always UTC here).",
        'current_timezone()',
        "'UTC'",
      ),
      operator(
        'at time zone',
        'x at time zone zone → timestamp with time zone',
        'The same instant in another time zone.',
        "hour(timestamp '2024-01-01 12:00:00 UTC' at time zone 'America/New_York')",
        '7',
      ),
      trino(
        'at_timezone(timestamp with time zone, zone) → timestamp with time zone',
        'The same instant in another time zone: AT TIME ZONE as a function.',
        "hour(at_timezone(timestamp '2024-01-01 12:00:00 UTC', 'Asia/Tokyo'))",
        '21',
      ),
      trino(
        'parse_duration(text) → interval day to second',
        'A duration written as a number and a unit (ns, us, ms, s, m, h, d), rounded to the millisecond.',
        "parse_duration('3.81 d')",
        "interval '3' day + interval '19' hour + interval '26' minute + interval '24' second",
      ),
      trino(
        'to_milliseconds(interval day to second) → bigint',
        'The length of an interval in milliseconds.',
        "to_milliseconds(interval '1' day + interval '2' second)",
        '86402000',
      ),
      trino(
        'human_readable_seconds(seconds) → varchar',
        'A duration in words.',
        'human_readable_seconds(3661)',
        "'1 hour, 1 minute, 1 second'",
      ),
    ],
  },
  {
    title: 'Aggregate functions',
    intro: 'Every aggregate also takes `filter (where …)`, and most take `distinct`.',
    entries: [
      trino(
        ['count(*) → bigint', 'count(x)', 'count(distinct x)'],
        'Rows, non-NULL values, or distinct values.',
        'select count(*) from (values 1, 2, null) as t (x)',
        '3',
      ),
      trino(
        'count_if(condition) → bigint',
        'Rows where the condition is true.',
        'select count_if(x > 1) from (values 1, 2, 3) as t (x)',
        '2',
      ),
      trino(
        'sum(x) → same type',
        'Sum of non-NULL values; exact for uint256/int256 (raw token amounts).',
        "select sum(cast(x as uint256)) from (values '340282366920938463463374607431768211450', '3') as t (x)",
        "cast('340282366920938463463374607431768211453' as uint256)",
        {
          localNote:
            'a windowed sum(uint256) over (…) is a double locally (exact only as a plain aggregate).',
        },
      ),
      trino(
        'avg(x) → double; a decimal’s own type for a decimal',
        'Mean of non-NULL values (of a decimal: rounded to its scale, `avg(1.5, 2.25)` of decimal(3,2) is 1.88).',
        'select avg(x) from (values 1, 2, 3, 4) as t (x)',
        '2.5',
      ),
      trino(
        ['min(x) → same type', 'max(x)'],
        'Smallest or largest value.',
        'select max(x) from (values 1, 5, 3) as t (x)',
        '5',
      ),
      trino(
        ['min(x, n) → array(x)', 'max(x, n)'],
        'The n smallest (largest) values, smallest (largest) first.',
        'select max(x, 2) from (values 1, 5, 3) as t (x)',
        'array[5, 3]',
      ),
      trino(
        ['min_by(x, y) → type of x', 'max_by(x, y)'],
        'The x of the row with the smallest (largest) y: e.g. the last price in a window.',
        'select max_by(p, t) from (values (1.5, 1), (2.5, 3), (2.0, 2)) as v (p, t)',
        '2.5',
      ),
      trino(
        ['arbitrary(x) → same type', 'any_value(x)'],
        'Any one non-NULL value of the group.',
        'select arbitrary(x) from (values 7) as t (x)',
        '7',
      ),
      trino(
        'approx_distinct(x) → bigint',
        'Approximate distinct count (standard error 2.3%): much cheaper than count(distinct x) on big tables.',
        'select approx_distinct(x) from (values 1, 2, 2, 3) as t (x)',
        '3',
        { localNote: 'counted exactly: DuckDB’s own estimate was off by up to 25% on small tables' },
      ),
      trino(
        [
          'approx_set(x) → HyperLogLog',
          'merge(hll) → HyperLogLog',
          'cardinality(hll) → bigint',
          'empty_approx_set() → HyperLogLog',
        ],
        'HyperLogLog sketches, to count distinct values over ranges without re-reading them: approx_set sums up a group’s distinct values (NULLs skipped; a group with none is NULL), merge unions sketches (daily ones into a week’s), cardinality estimates how many distinct values a sketch holds (empty_approx_set() has 0).',
        "select cardinality(merge(s)) from (select approx_set(x) as s from (values (1, 'a'), (1, 'b'), (2, 'b'), (2, 'c')) as t (d, x) group by d)",
        '3',
        {
          localNote:
            'counted exactly, as approx_distinct: a sketch holds its values’ hashes (what a selected sketch shows); not over a window, and not castable to varbinary',
        },
      ),
      trino(
        [
          'tdigest_agg(x) → tdigest',
          'qdigest_agg(x) → qdigest',
          'value_at_quantile(digest, q) → double (tdigest), the value type (qdigest)',
          'values_at_quantiles(digest, array[q1, …]) → array',
          'merge(digest) → digest',
        ],
        'Quantile sketches, to keep quantiles of many groups (a digest per day) and combine them later: a T-digest estimates between values, a quantile digest answers one of them (NULLs skipped; a group with none is NULL).',
        'select value_at_quantile(merge(d), 0.5) from (select tdigest_agg(x) as d from (values (1, 1), (1, 2), (2, 3)) as t (g, x) group by g)',
        '2.0',
        {
          localNote:
            'exact: a digest holds its values (a T-digest interpolates between them); not over a window, and not weighted (tdigest_agg(x, w), qdigest_agg(x, w): use approx_percentile(x, w, p))',
        },
      ),
      trino(
        [
          'approx_percentile(x, p) → bigint for integers, else double',
          'approx_percentile(x, array[p1, p2, …]) → array',
          'approx_percentile(x, w, p) → bigint for integers, else double',
        ],
        'Approximate p-quantile (0..1), e.g. the median at 0.5; with a weight w, each value counts w times (exactly on the local engine).',
        'select approx_percentile(x, 0.5) from (values 1, 2, 3, 4, 5) as t (x)',
        '3',
      ),
      trino(
        'array_agg(x [order by y]) → array',
        'The values of the group as an array (NULLs included).',
        'select array_agg(x order by x desc) from (values 1, 3, 2) as t (x)',
        'array[3, 2, 1]',
      ),
      trino(
        'map_agg(key, value) → map',
        'A map from the group’s keys to values: one value per key (Trino keeps the first it reads, the local engine the smallest), NULL keys skipped.',
        "select element_at(map_agg(k, v), 'b') from (values ('a', 1), ('b', 2), ('b', 2)) as t (k, v)",
        '2',
      ),
      trino(
        'listagg(x, separator) within group (order by y) → varchar',
        'The values joined into one string.',
        "select listagg(x, ',') within group (order by x) from (values 'b', 'a') as t (x)",
        "'a,b'",
      ),
      trino(
        ['bool_and(condition) → boolean', 'every(condition)', 'bool_or(condition)'],
        'Whether all (any) rows satisfy the condition.',
        'select bool_or(x > 2) from (values 1, 3) as t (x)',
        'true',
      ),
      trino(
        ['stddev(x) → double', 'stddev_samp(x)', 'stddev_pop(x)', 'variance(x)', 'var_samp(x)', 'var_pop(x)'],
        'Sample and population standard deviation and variance.',
        'select var_pop(x) from (values 1, 3) as t (x)',
        '1',
      ),
      trino(
        ['corr(y, x) → double', 'covar_samp(y, x)', 'covar_pop(y, x)'],
        'Correlation and covariance.',
        'select corr(y, x) from (values (1, 2), (2, 4), (3, 6)) as t (x, y)',
        '1',
      ),
      trino(
        ['regr_slope(y, x) → double', 'regr_intercept(y, x)'],
        'Linear regression slope and intercept.',
        'select regr_slope(y, x) from (values (1, 2), (2, 4), (3, 6)) as t (x, y)',
        '2',
      ),
      trino(
        'geometric_mean(x) → double',
        'Geometric mean.',
        'select round(geometric_mean(x), 6) from (values 2, 8) as t (x)',
        '4',
      ),
      trino(
        ['kurtosis(x) → double', 'skewness(x)'],
        'Excess kurtosis and skewness.',
        'select skewness(x) from (values 1, 2, 3) as t (x)',
        '0',
      ),
      trino(
        'map_union(map) → map',
        'The union of the group’s maps; a key in several of them takes the value of any one.',
        "select element_at(map_union(m), 'b') from (values map(array['a'], array[1]), map(array['b'], array[2])) as t (m)",
        '2',
      ),
      trino(
        'histogram(x) → map(x, bigint)',
        'How often each value occurs.',
        "select element_at(histogram(x), 'a') from (values 'a', 'b', 'a') as t (x)",
        '2',
      ),
      trino(
        'approx_most_frequent(buckets, x, capacity) → map(x, bigint)',
        'The most frequent values and their counts, approximately (exactly on the local engine).',
        "select element_at(approx_most_frequent(1, x, 100), 'c') from (values 'a', 'c', 'b', 'c') as t (x)",
        '2',
      ),
      trino(
        'numeric_histogram(buckets, x[, weight]) → map(double, double)',
        'An approximate histogram of at most `buckets` buckets, their centres to their counts.',
        undefined,
        undefined,
        { notLocal: 'group by width_bucket(x, low, high, n) and count(*) for fixed-width buckets.' },
      ),
      trino('checksum(x) → varbinary', 'An order-insensitive checksum of the group.', undefined, undefined, {
        notLocal:
          'for an order-insensitive fingerprint that runs on both engines: bitwise_xor_agg(from_big_endian_64(xxhash64(to_utf8(cast(x as varchar))))).',
      }),
    ],
  },
  {
    title: 'Window functions',
    intro:
      'Used with `over ([partition by …] [order by …] [rows|range between …])`; aggregates work as window functions too.',
    entries: [
      trino(
        'row_number() → bigint',
        'Position of the row in its partition, from 1.',
        'select row_number() over (order by x) from (values 5) as t (x)',
        '1',
      ),
      trino(
        ['rank() → bigint', 'dense_rank() → bigint'],
        'Rank with gaps (without gaps) for ties.',
        'select max(r) from (select rank() over (order by x) as r from (values 1, 1, 2) as t (x))',
        '3',
      ),
      trino(
        ['percent_rank() → double', 'cume_dist() → double'],
        'Relative rank and cumulative distribution.',
        'select max(c) from (select cume_dist() over (order by x) as c from (values 1, 2) as t (x))',
        '1',
      ),
      trino(
        'ntile(n) → bigint',
        'Bucket number 1..n.',
        'select max(b) from (select ntile(2) over (order by x) as b from (values 1, 2, 3, 4) as t (x))',
        '2',
      ),
      trino(
        ['lag(x[, offset[, default]]) → same type', 'lead(x[, offset[, default]])'],
        'The value offset rows before (after) the current one: price changes, gaps between blocks.',
        'select max(d) from (select x - lag(x) over (order by x) as d from (values 1, 4, 6) as t (x))',
        '3',
      ),
      trino(
        ['first_value(x) → same type', 'last_value(x)', 'nth_value(x, n)'],
        'The first, last or n-th value of the window frame.',
        'select min(f) from (select first_value(x) over (order by x) as f from (values 3, 1, 2) as t (x))',
        '1',
      ),
    ],
  },
  {
    title: 'Array functions and operators',
    intro: 'Arrays are 1-based. `array[1, 2]` builds one; `a[i]` reads element i.',
    entries: [
      operator(
        '[]',
        ['array[…] → array', 'a[i] → element'],
        'Array constructor and 1-based subscript (maps: `m[key]`).',
        'array[10, 20, 30][2]',
        '20',
      ),
      trino(
        'element_at(array, i) → element',
        'Element i (negative from the end), NULL when out of range; element_at(map, key) reads a map.',
        'element_at(array[10, 20, 30], -1)',
        '30',
      ),
      trino(
        'cardinality(array) → bigint',
        'Number of elements (of a map: entries).',
        'cardinality(array[1, 2, 3])',
        '3',
        {
          localNote: 'cardinality of a map fails locally; use cardinality(map_keys(m)).',
        },
      ),
      trino('contains(array, x) → boolean', 'Whether the array holds x.', 'contains(array[1, 2], 2)', 'true'),
      trino(
        'array_join(array, delimiter[, null_replacement]) → varchar',
        'Joins elements into a string.',
        "array_join(array['a', 'b'], '-')",
        "'a-b'",
      ),
      trino(
        'array_distinct(array) → array',
        'Duplicates removed, first occurrences kept in order (one NULL among them).',
        'array_distinct(array[3, 1, 3, null, 2, null])',
        'array[3, 1, null, 2]',
      ),
      trino(
        ['array_sort(array) → array', 'array_sort(array, (x, y) -> integer) → array'],
        'Sorted ascending, NULLs last; with a comparator (negative: x first, 0: equal, positive: y first), stably by it.',
        'array_sort(array[3, 1, 2], (x, y) -> if(x < y, 1, if(x = y, 0, -1)))',
        'array[3, 2, 1]',
      ),
      trino(
        ['array_max(array) → element', 'array_min(array)'],
        'Largest (smallest) element; NULL if any element is NULL.',
        'array_max(array[3, 1, 2])',
        '3',
      ),
      trino(
        'array_position(array, x) → bigint',
        '1-based position of x, 0 if absent.',
        'array_position(array[5, 6, 7], 6)',
        '2',
      ),
      trino(
        'array_remove(array, x) → array',
        'Every x removed.',
        'array_remove(array[1, 2, 1], 1)',
        'array[2]',
      ),
      trino(
        'array_union(a, b) → array',
        'Elements of either array, without duplicates, in the order they first appear; NULL if either array is.',
        'array_union(array[3, 1, 3], array[1, 2])',
        'array[3, 1, 2]',
      ),
      trino(
        'array_except(a, b) → array',
        'Elements of a not in b, without duplicates, in order.',
        'array_except(array[3, 1, 3, 2], array[1])',
        'array[3, 2]',
      ),
      trino(
        'array_intersect(a, b) → array',
        'Elements of a also in b, without duplicates, in order.',
        'array_intersect(array[3, 1, 3, 2], array[2, 3, 4])',
        'array[3, 2]',
      ),
      trino(
        'arrays_overlap(a, b) → boolean',
        'Whether the arrays share an element.',
        'arrays_overlap(array[1, 2], array[2, 3])',
        'true',
      ),
      trino(
        'flatten(array(array)) → array',
        'Concatenates nested arrays.',
        'flatten(array[array[1], array[2, 3]])',
        'array[1, 2, 3]',
      ),
      trino(
        'ngrams(array, n) → array(array)',
        'Every run of n consecutive elements (the whole array when it is shorter).',
        "ngrams(array['a', 'b', 'c'], 2)",
        "array[array['a', 'b'], array['b', 'c']]",
      ),
      trino(
        'combinations(array, n) → array(array)',
        'The n-element subsets (n up to 5), by position, each in array order.',
        'combinations(array[1, 2, 3], 2)',
        'array[array[1, 2], array[1, 3], array[2, 3]]',
      ),
      trino(
        'shuffle(array) → array',
        'The elements in a random order.',
        'array_sort(shuffle(array[3, 1, 2]))',
        'array[1, 2, 3]',
      ),
      trino(
        'trim_array(array, n) → array',
        'The array without its last n elements.',
        'trim_array(array[1, 2, 3], 1)',
        'array[1, 2]',
      ),
      trino(
        'slice(array, start, length) → array',
        'length elements from a 1-based start.',
        'slice(array[1, 2, 3, 4], 2, 2)',
        'array[2, 3]',
      ),
      trino(
        'sequence(start, stop[, step]) → array',
        'Numbers or dates from start to stop inclusive (with `unnest`: a calendar of days).',
        "sequence(date '2024-01-01', date '2024-01-03', interval '1' day)",
        "array[date '2024-01-01', date '2024-01-02', date '2024-01-03']",
      ),
      trino('repeat(x, n) → array', 'x repeated n times.', "repeat('a', 3)", "array['a', 'a', 'a']"),
      trino(
        'filter(array, x -> condition) → array',
        'Elements satisfying a lambda.',
        'filter(array[1, 2, 3, 4], x -> x % 2 = 0)',
        'array[2, 4]',
      ),
      trino(
        'transform(array, x -> expression) → array',
        'A lambda applied to each element.',
        'transform(array[1, 2], x -> x * 10)',
        'array[10, 20]',
      ),
      trino(
        'reduce(array, initial, (s, x) -> s2, s -> result) → result',
        'Folds an array with lambdas.',
        'reduce(array[1, 2, 3], 0, (s, x) -> s + x, s -> s)',
        '6',
      ),
      trino(
        ['any_match(array, x -> condition) → boolean', 'all_match', 'none_match'],
        'Whether any (all, none) of the elements satisfy a lambda.',
        'any_match(array[1, 2], x -> x > 1)',
        'true',
      ),
      trino(
        'zip(a, b, …) → array(row)',
        'Arrays combined element-wise into rows of unnamed fields (results show them as objects keyed field0, field1, …); shorter arrays are padded with NULL.',
        'cardinality(zip(array[1, 2], array[3, 4, 5]))',
        '3',
      ),
      trino(
        'zip_with(a, b, (x, y) -> z) → array',
        'Arrays combined element-wise by a lambda.',
        'zip_with(array[1, 2], array[3, 4], (x, y) -> x + y)',
        'array[4, 6]',
      ),
      trino('array_agg(x) → array', 'See aggregate functions.', undefined, undefined, { name: 'array_agg' }),
      operator(
        'unnest',
        [
          'cross join unnest(array) as t (x)',
          'unnest(array) with ordinality as t (x, n)',
          'unnest(map) as t (k, v)',
        ],
        'Expands an array (or map) into rows; `with ordinality` adds the 1-based position.',
        'select sum(x) from unnest(array[1, 2, 3]) as t (x)',
        '6',
        {
          localNote:
            'a map unnests locally when it is built in the call (map, map_agg, split_to_map, map_concat, …); a map read from a column or CTE does not: unnest(map_keys(m), map_values(m)) does on both engines.',
        },
      ),
    ],
  },
  {
    title: 'Map functions and operators',
    entries: [
      trino(
        'map(keys, values) → map',
        'A map from an array of keys and one of values.',
        "map(array['a', 'b'], array[1, 2])['b']",
        '2',
      ),
      trino(
        'element_at(map, key) → value',
        'The value for key, NULL if absent (`m[key]` too).',
        "element_at(map(array['a'], array[5]), 'a')",
        '5',
        { name: 'element_at' },
      ),
      trino(
        ['map_keys(map) → array', 'map_values(map) → array'],
        'The keys (values) of a map.',
        "map_keys(map(array['a'], array[1]))",
        "array['a']",
      ),
      trino(
        'map_entries(map) → array(row(key, value))',
        'The entries as rows.',
        "cardinality(map_entries(map(array['a', 'b'], array[1, 2])))",
        '2',
      ),
      trino(
        'map_from_entries(array(row(k, v))) → map',
        'A map from rows of key and value.',
        "map_from_entries(array[row('a', 1)])['a']",
        '1',
      ),
      trino(
        'map_concat(map1, map2, …) → map',
        'Union of maps (later keys win).',
        "map_concat(map(array['a'], array[1]), map(array['a'], array[2]))['a']",
        '2',
      ),
      trino(
        'map_filter(map, (k, v) -> condition) → map',
        'Entries satisfying a lambda.',
        "cardinality(map_keys(map_filter(map(array['a', 'b'], array[1, 2]), (k, v) -> v > 1)))",
        '1',
      ),
      trino(
        'transform_values(map, (k, v) -> v2) → map',
        'Values rewritten by a lambda.',
        "transform_values(map(array['a'], array[1]), (k, v) -> v * 10)['a']",
        '10',
      ),
      trino(
        'transform_keys(map, (k, v) -> k2) → map',
        'Keys rewritten by a lambda.',
        "transform_keys(map(array['a'], array[1]), (k, v) -> upper(k) || cast(v as varchar))['A1']",
        '1',
      ),
      trino(
        'multimap_agg(key, value) → map(key, array(value))',
        'A map from each key to all its values.',
        "select cardinality(element_at(multimap_agg(k, v), 'a')) from (values ('a', 1), ('a', 2), ('b', 3)) as t (k, v)",
        '2',
      ),
    ],
  },
  {
    title: 'JSON functions',
    intro: 'JSONPath as in Trino: `$.a.b`, `$.list[0]`.',
    entries: [
      trino(
        'json_extract_scalar(json, path) → varchar',
        'The scalar at path as text, NULL if absent or not scalar.',
        'json_extract_scalar(\'{"a": {"b": 5}}\', \'$.a.b\')',
        "'5'",
      ),
      trino(
        'json_extract(json, path) → json',
        'The JSON value at path.',
        "cast(json_extract('{\"a\": [1, 2]}', '$.a') as varchar)",
        "'[1,2]'",
      ),
      trino(
        'json_parse(string) → json',
        'Parses text into a JSON value, written as Trino writes it: no whitespace, object keys sorted.',
        "json_format(json_parse('[1, 2]'))",
        "'[1,2]'",
      ),
      trino(
        'json_format(json) → varchar',
        'JSON value to text.',
        'json_format(json_parse(\'{"a":1}\'))',
        '\'{"a":1}\'',
      ),
      trino(
        'json_array_contains(json, value) → boolean',
        'Whether a JSON array holds the value (a boolean, number or string; nested arrays are not searched).',
        "json_array_contains('[1, 2, 3]', 2)",
        'true',
      ),
      trino(
        'json_array_length(json) → bigint',
        'Length of a JSON array.',
        "json_array_length('[1, 2, 3]')",
        '3',
      ),
      trino(
        'json_array_get(json_array, index) → json',
        'Element of a JSON array (0-based; negative counts from the end).',
        "cast(json_array_get('[1, 2, 3]', -1) as varchar)",
        "'3'",
      ),
      trino(
        'json_size(json, path) → bigint',
        'Size of the array or object at path.',
        "json_size('{\"a\": [1, 2]}', '$.a')",
        '2',
      ),
      trino(
        'json_value(json, path) → varchar',
        'SQL/JSON scalar at path.',
        "json_value('{\"a\": 1}', 'lax $.a')",
        "'1'",
      ),
      trino(
        'json_query(json, path) → varchar',
        'SQL/JSON item at path, as JSON text (a string quoted); WITH ARRAY WRAPPER, the items as an array.',
        'json_query(\'{"a": {"b": 1}}\', \'lax $.a\')',
        '\'{"b":1}\'',
      ),
      trino(
        'json_exists(json, path) → boolean',
        'Whether the SQL/JSON path finds an item (false for text that is not JSON).',
        "json_exists('{\"a\": [1, 2]}', 'lax $.a[last]')",
        'true',
      ),
      trino(
        'is_json_scalar(json) → boolean',
        'Whether the value is a JSON scalar.',
        "is_json_scalar('1') and not is_json_scalar('[1]')",
        'true',
      ),
    ],
  },
  {
    title: 'URL functions',
    entries: [
      trino(
        'url_extract_host(url) → varchar',
        'Host of a URL.',
        "url_extract_host('https://dune.com/queries/1?x=2')",
        "'dune.com'",
      ),
      trino(
        'url_extract_path(url) → varchar',
        'Path of a URL.',
        "url_extract_path('https://dune.com/queries/1?x=2')",
        "'/queries/1'",
      ),
      trino(
        'url_extract_parameter(url, name) → varchar',
        'A query-string parameter (NULL when absent).',
        "url_extract_parameter('https://dune.com/q?x=2&y=3', 'y')",
        "'3'",
      ),
      trino(
        ['url_encode(value) → varchar', 'url_decode(value)'],
        'Percent-encoding.',
        "url_decode('a%20b')",
        "'a b'",
      ),
    ],
  },
  {
    title: 'Chain utility functions (Dune)',
    intro:
      "Links to block explorers for result tables and dashboards, as Dune defines them. A chain they do not know gets Etherscan's links.",
    entries: [
      dune(
        'get_href(link varchar, text varchar) → varchar',
        'An HTML link (`<a href="…"target ="_blank">text`, as Dune writes it) that tables render as clickable text.',
        "get_href('https://dune.com', 'Dune')",
        `'<a href="https://dune.com"target ="_blank">Dune'`,
      ),
      dune(
        'get_chain_explorer(chain varchar) → varchar',
        "The chain's block explorer, e.g. https://basescan.org for base.",
        "get_chain_explorer('base')",
        "'https://basescan.org'",
      ),
      dune(
        [
          'get_chain_explorer_address(chain varchar, address varbinary) → varchar',
          'get_chain_explorer_address(chain varchar, address varchar) → varchar',
        ],
        "The address's page on the chain's explorer; usually wrapped in get_href.",
        "get_chain_explorer_address('ethereum', 0x00000000219ab540356cbb839cbe05303d7705fa)",
        "'https://etherscan.io/address/0x00000000219ab540356cbb839cbe05303d7705fa'",
      ),
      dune(
        [
          'get_chain_explorer_tx_hash(chain varchar, tx_hash varbinary) → varchar',
          'get_chain_explorer_tx_hash(chain varchar, tx_hash varchar) → varchar',
        ],
        "The transaction's page on the chain's explorer.",
        "get_chain_explorer_tx_hash('arbitrum', 0xabcd)",
        "'https://arbiscan.io/tx/0xabcd'",
      ),
      dune(
        'all_evm_chains() → array(varchar)',
        "The EVM chains Dune's chain utility functions know.",
        "contains(all_evm_chains(), 'base')",
        'true',
      ),
    ],
  },
  {
    title: 'Other functions',
    entries: [
      trino('uuid() → uuid', 'A random UUID.', 'length(cast(uuid() as varchar))', '36'),
      trino('current_user → varchar', 'The user running the query.', undefined, undefined, {
        notLocal: 'not exposed; the service knows the account that ran the query.',
      }),
    ],
  },
];

/**
 * Trino function families that are not listed entry by entry: available on Athena, not on the local
 * engine (DuckDB has no counterpart).
 */
export const ATHENA_ONLY_FAMILIES = [
  'Geospatial (`ST_*`, Bing tiles)',
  'set digest sketches (`make_set_digest`, `jaccard_index`)',
  'quantile digest and T-digest functions beyond their quantiles (`quantile_at_value`, `truncated_mean`, `scale_tdigest`, weighted digests)',
  'machine learning (`learn_classifier`, `classify`)',
  'IP address (`contains(cidr, ip)`)',
  "color functions, and Teradata's `char2hexint` and `index`",
  'row pattern recognition (`match_recognize`)',
];
