import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { Dialect, parse } from '@polyglot-sql/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { DUCKDB_SESSION_SETUP, DuneSqlError, translate } from '../../functions/dunesql';
import { prepareSource } from '../../functions/dunesql/source-text';
import { parseDuckDbError } from '../../functions/local/engine/duckdb-errors';
import { registerDuneFunctions } from '../../functions/local/engine/dune-functions';

let instance: DuckDBInstance;
// Macros and settings are per connection (TEMP), as in the sandbox: one connection runs everything.
let connection: DuckDBConnection;
beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
  // The functions the engine computes in JavaScript, which some helper macros call.
  await registerDuneFunctions(connection);
  for (const statement of DUCKDB_SESSION_SETUP) await connection.run(statement);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

/** Translates DuneSQL and runs it on a DuckDB session prepared like the sandbox. */
async function run(sql: string) {
  const translation = await translate(sql, 'duckdb');
  const reader = await connection.runAndReadAll(translation.sql);
  return { columns: reader.columnNames(), rows: reader.getRowsJson() };
}

async function failure(
  sql: string,
  target: 'duckdb' | 'athena' = 'duckdb',
  options: Parameters<typeof translate>[2] = {},
): Promise<DuneSqlError> {
  const error = await translate(sql, target, options).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DuneSqlError);
  return error as DuneSqlError;
}

describe('0x varbinary literals', () => {
  it('become X literals outside strings, quoted names and comments, with offsets mapped back', () => {
    const sql = `select 0xAbC, '0x12', "0x34" -- 0x56\n, a0x1, 0x1`;
    const source = prepareSource(sql);
    expect(source.text).toBe(`select X'0AbC', '0x12', "0x34" -- 0x56\n, a0x1, X'01'`);
    expect(source.toUserOffset(source.text.indexOf("X'01'") + 5)).toBe(sql.length);
  });
});

describe('typed literals polyglot does not read', () => {
  it("become casts (Trino's type constructor), not in strings, comments or qualified names", () => {
    const sql = `select uint256 '0', UINT256\n '5', double '1.5', t.bigint, 'int256 ''1''' -- varchar 'x'\n, cast(x as int256)`;
    const source = prepareSource(sql);
    expect(source.text).toBe(
      `select CAST('0' AS uint256), CAST('5' AS uint256), CAST('1.5' AS double), t.bigint, 'int256 ''1''' -- varchar 'x'\n, cast(x as int256)`,
    );
    // Offsets after a rewritten literal map back to what the user wrote.
    expect(source.toUserOffset(source.text.indexOf('t.bigint'))).toBe(sql.indexOf('t.bigint'));
  });

  it("takes a decimal literal's precision and scale from its digits, as Trino does", async () => {
    expect(prepareSource(`select decimal '1.2345', decimal '-0.05', decimal '007', decimal 'x'`).text).toBe(
      `select CAST('1.2345' AS decimal(5, 4)), CAST('-0.05' AS decimal(2, 2)), CAST('007' AS decimal(1, 0)), decimal 'x'`,
    );
    const { rows } = await run(`select decimal '1.2345' * 2, uint256 '5' * uint256 '3', int256 '-5' + 2`);
    expect(rows.map((row) => row.map(String))).toEqual([['2.4690', '15', '-3']]);
  });

  it('points an error in such a literal at what the user wrote', async () => {
    const error = await failure(`select 1,\n  uint256 '1' +`);
    expect(error.message).toMatch(/line 2/);
  });
});

describe('DuneSQL on DuckDB gives Trino answers', () => {
  it.each([
    [
      'integer division (a decimal operand: decimal division)',
      'select 7 / 2, -7 / 2, 7.0 / 2',
      [[3, -3, '3.5']],
    ],
    [
      '1-based substr and element_at',
      "select substr('abcdef', 2, 3), element_at(array[10, 20, 30], 1)",
      [['bcd', 10]],
    ],
    ['element_at on a map gives the value', "select element_at(map(array['k'], array[5]), 'k')", [[5]]],
    ['try of a failing expression is NULL', "select try(1 / 0), try(cast('x' as integer))", [[null, null]]],
    ['date_trunc of a date is a date', "select date_trunc('month', date '2024-03-05')", [['2024-03-01']]],
    [
      'date_diff counts whole units',
      "select date_diff('day', timestamp '2024-01-01 23:00:00', timestamp '2024-01-02 01:00:00')",
      [['0']],
    ],
    [
      'a timestamp literal with a zone may leave out the seconds',
      "select hour(timestamp '2024-01-01 12:00 UTC' at time zone 'America/New_York'), minute(timestamp '2024-01-01 12:30+02:00')",
      [['7', '30']],
    ],
    [
      "format's %s prints any value, as Java's does",
      "select format('%s|%s|%2$s|%<s', 1.5, 42), format('%,.2f%%', 1234567.891)",
      [['1.5|42|42|42', '1,234,567.89%']],
    ],
    [
      'extract reads the day of the week as ISO does (Sunday is 7), and every Trino field name',
      "select extract(dow from date '2021-01-03'), extract(day_of_week from date '2021-01-03'), extract(year_of_week from date '2021-01-03'), extract(day_of_month from date '2021-01-03'), extract(day_of_year from date '2021-01-03')",
      [['7', '7', '2020', '3', '3']],
    ],
    [
      'greatest, least, array_max and array_min are NULL when any value is',
      'select greatest(1, null, 3), least(2, 1), array_max(array[1, null, 3]), array_min(array[4, 2])',
      [[null, 1, null, 2]],
    ],
    [
      'from_unixtime under hour() and cast()',
      'select hour(from_unixtime(7200)), cast(cast(from_unixtime(0) as date) as varchar)',
      [['2', '1970-01-01']],
    ],
    [
      'a date plus or minus an interval stays a date; a timestamp stays a timestamp',
      "select cast(date '2024-01-31' + interval '1' month as varchar), cast(date '2024-03-01' - interval '1' day as varchar), cast(timestamp '2024-01-01 00:00:00' + interval '1' hour as varchar)",
      // The timestamp's text has its milliseconds and, as every local timestamp, the zone (README).
      [['2024-02-29', '2024-02-29', '2024-01-01 01:00:00.000 UTC']],
    ],
    [
      'from_utf8 replaces bytes that are not UTF-8',
      'select from_utf8(0x61ff62), from_utf8(0xc3a9)',
      [['a\uFFFDb', 'é']],
    ],
    [
      'substr is empty from position 0 or before the start, and counts bytes back from the end of varbinary',
      "select substr('abc', 0), substr('abc', -5), substr('abc', 0, 2), substr('abc', -2), to_hex(substr(0x010203, -2)), to_hex(substr(0x010203, 0)), to_hex(substr(0x010203, 2, 1))",
      [['', '', '', 'bc', '0203', '', '02']],
    ],
    [
      'reverse takes strings, arrays and varbinary',
      "select reverse('abc'), reverse(array[1, 2, 3]), to_hex(reverse(0x0102))",
      [['cba', [3, 2, 1], '0201']],
    ],
    [
      'json_extract_scalar is NULL for an object or array, and JSON literals parse',
      `select json_extract_scalar('{"a":{"b":1}}', '$.a'), json_extract_scalar('{"a":"x"}', '$.a'), json_format(json '{"a": 1}')`,
      [[null, 'x', '{"a":1}']],
    ],
    [
      'approx_distinct counts exactly (DuckDB estimated 1,249 for 1,000)',
      'select approx_distinct(x), approx_distinct(x, 0.01) from unnest(sequence(1, 1000)) as t (x)',
      [['1000', '1000']],
    ],
    [
      'approx_distinct as a window aggregate',
      'select max(n) from (select approx_distinct(x) over () as n from (values 1, 1, 2) as t (x))',
      [['2']],
    ],
    ['to_hex of varbinary is its bytes, upper case', 'select to_hex(0xc02aaa39)', [['C02AAA39']]],
    ['varbinary compares bytewise', "select 0xab < 0xac, 0xabcd = from_hex('abcd')", [[true, true]]],
    ['concat with NULL is NULL', "select concat('a', null), concat('a', 'b', 'c')", [[null, 'abc']]],
    [
      'exact uint256 sum',
      "select sum(cast(x as uint256)) from (values '340282366920938463463374607431768211450', '3') as t (x)",
      [['340282366920938463463374607431768211453']],
    ],
    [
      'varbinary_to_uint256 and bytearray_to_int256',
      'select varbinary_to_uint256(0x00000000000000000000000000000000000000000000000000000000000003e8), bytearray_to_int256(0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff9c)',
      [['1000', '-100']],
    ],
    [
      'NULLs sort last both ways',
      'select array_agg(x order by x desc) from (values 1, null, 3) as t (x)',
      [[[3, 1, null]]],
    ],
    [
      'date_trunc keeps the type of an aggregate argument (a typed macro cannot see it)',
      "select date_trunc('day', max(t)), date_trunc('month', max(d)) from (values (timestamp '2024-03-05 17:45:00', date '2024-03-05')) as x (t, d)",
      [['2024-03-05 00:00:00', '2024-03-01']],
    ],
    [
      'windowed uint256 sums are exact',
      "select sum(cast(x as uint256)) over (order by i) from (values (1, '340282366920938463463374607431768211450'), (2, '3')) as t (i, x) order by i",
      [['340282366920938463463374607431768211450'], ['340282366920938463463374607431768211453']],
    ],
    ['0x literals are varbinary in VALUES too', 'select a = 0xabcd from (values 0xabcd) as t (a)', [[true]]],
    [
      'UNNEST of rows gives a column per field, numbered WITH ORDINALITY',
      "select o.b, o.n from unnest(array[row(1, 'x'), row(2, 'y')]) with ordinality as o (a, b, n) order by n",
      [
        ['x', '1'],
        ['y', '2'],
      ],
    ],
    [
      'split_part past the last field and a double cast to integer',
      "select split_part('a-b', '-', 3), cast(2.5e0 as integer), cast(-2.5e0 as integer)",
      [[null, 3, -3]],
    ],
    [
      'format_datetime with a Joda pattern',
      "select format_datetime(timestamp '2024-01-02 03:04:05', 'yyyy-MM-dd HH:mm')",
      [['2024-01-02 03:04']],
    ],
    // Trino's Teradata functions (trino.io/docs/current/functions/teradata.html; answers as
    // trinodb/trino's TestTeradataDateFunctions): polyglot passed their formats to strftime
    // unread, so to_char(x, 'yyyy') answered 'yyyy'. `hh` is the hour of the half day, 0-11.
    [
      // Trino's binary functions (trino.io/docs/current/functions/binary.html), computed by the
      // engine process; Dune documents bytearray_to_decimal as varbinary_to_decimal's older name.
      'IEEE 754 bytes of a double or real, big-endian, and back; bytearray_to_decimal',
      'select to_hex(to_ieee754_64(1.5)), to_hex(to_ieee754_32(1.5)), from_ieee754_64(0x3ff8000000000000), from_ieee754_32(0x3fc00000), bytearray_to_decimal(0x0100)',
      [['3FF8000000000000', '3FC00000', 1.5, 1.5, '256']],
    ],
    // Trino's FETCH … WITH TIES and LIMIT ALL (trino.io/docs/current/sql/select.html: WITH TIES
    // keeps the rows whose ordering values equal the last row's; LIMIT ALL is no limit), which
    // DuckDB does not parse. Positions and output aliases in ORDER BY order the window too.
    [
      'fetch first n rows with ties keeps the ties of the last row, in order',
      'select x from (values 1, 2, 2, 3, 4) t(x) order by x fetch first 2 rows with ties',
      [[1], [2], [2]],
    ],
    [
      'offset m fetch next n rows with ties counts after the offset',
      `select y from (select x from (values 1, 2, 2, 3, 4) t(x) order by x offset 1 fetch next 2 rows with ties) u(y)
       order by y limit all`,
      [[2], [2]],
    ],
    [
      'with ties by a position and an alias, descending; unaliased columns keep their names',
      'select x * 10, x + 1 as y from (values 1, 2, 2, 3, 4, 4) t(x) order by 1 desc, y fetch first 1 rows with ties',
      [
        [40, 5],
        [40, 5],
      ],
    ],
    [
      "to_char formats with Teradata's lower-case specifiers",
      "select to_char(timestamp '1988-04-08 14:15:16', 'yyyy/mm/dd hh24:mi:ss'), to_char(timestamp '1988-04-08 12:03:04', 'yy.mm.dd hh'), to_char(date '1988-04-08', 'dd-mm-yyyy')",
      [['1988/04/08 14:15:16', '88.04.08 00', '08-04-1988']],
    ],
    [
      'to_date and to_timestamp parse Teradata formats; a two-digit year is 20xx',
      "select to_date('04.1988,08', 'mm.yyyy,dd'), to_date('88/04/08', 'yy/mm/dd'), date_format(to_timestamp('1988/04/08 2:3:4', 'yyyy/mm/dd hh24:mi:ss'), '%Y-%m-%d %H:%i:%s')",
      [['1988-04-08', '2088-04-08', '1988-04-08 02:03:04']],
    ],
  ])('%s', async (_, sql, rows) => {
    expect((await run(sql)).rows).toEqual(rows);
  });

  it.each([
    [
      'strpos counts overlapping occurrences; NULL in, NULL out',
      "select strpos('aaaa', 'aa', 2), strpos('abcabc', 'bc', 3), strpos(cast(null as varchar), 'a', 1), strpos('abc', '', 2)",
      [['2', '0', null, '1']],
    ],
    [
      'split_to_map ends its last entry at a trailing delimiter',
      "select split_to_map('a=1,b=2,', ',', '=')['b'], cardinality(split_to_map('', ',', '='))",
      [['2', '0']],
    ],
    [
      'json_array_contains matches by JSON type, is NULL unless given an array',
      `select json_array_contains('[2.0]', 2), json_array_contains('[[2], "2"]', 2), json_array_contains('[2.0]', 2.0),
              json_array_contains('{"a": 2}', 2), json_array_contains('not json', 2), json_array_contains('[true, "x"]', 'x')`,
      [[false, false, true, null, null, true]],
    ],
    [
      "chain utility functions link explorers by chain, Etherscan's for any other, NULL for a NULL part",
      `select get_href(get_chain_explorer_address('base', 0x00000000219ab540356cbb839cbe05303d7705fa), 'deposit'),
              get_chain_explorer_tx_hash('optimism', '0xabcd'), get_chain_explorer('nonesuch'), get_chain_explorer(null),
              get_href(null, 'x'), get_chain_explorer_address('ethereum', cast(null as varbinary)), all_evm_chains()[1]`,
      [
        [
          '<a href="https://basescan.org/address/0x00000000219ab540356cbb839cbe05303d7705fa"target ="_blank">deposit',
          'https://explorer.optimism.io/tx/0xabcd',
          'https://etherscan.io',
          'https://etherscan.io',
          null,
          null,
          'ethereum',
        ],
      ],
    ],
    [
      'unnest of a map gives its keys and values as two columns, beside a join or alone',
      `select s.x, t.k, t.v from (values 1) as s (x) cross join unnest(map(array['a', 'b'], array[1, 2])) as t (k, v)
       union all select 2, k, cast(v as integer) from unnest(split_to_map('c=3', ',', '=')) as t (k, v) order by 2`,
      [
        [1, 'a', 1],
        [1, 'b', 2],
        [2, 'c', 3],
      ],
    ],
    [
      'millisecond is the millisecond within the second',
      "select millisecond(timestamp '2024-02-29 23:59:59.999'), second(timestamp '2024-02-29 23:59:59.999')",
      [['999', '59']],
    ],
    [
      'map_agg keeps one value per key and skips NULL keys; no keys at all is NULL',
      `select map_agg(k, v)['a'], cardinality(map_agg(k, v)), map_agg(case when k = 'zz' then k end, v)
       from (values ('b', 2), ('a', 3), (null, 5), ('a', 1)) as t (k, v)`,
      [[1, '2', null]],
    ],
    [
      'array_union keeps first occurrences in order, one NULL; multimap_agg is a map',
      `select array_union(array[1, 2, null, 2], array[3, null, 1, 4, 3]), cardinality(multimap_agg(k, v))
       from (values (1, 2), (1, 3), (2, 4)) as t (k, v)`,
      [[[1, 2, null, 3, 4], '2']],
    ],
    [
      'split with a limit keeps the rest of the string in its last entry',
      "select split('a,b,c', ',', 2), split('a,,b,', ',', 3), split('a,b', ',', 5), split(cast(null as varchar), ',', 2)",
      [[['a', 'b,c'], ['a', '', 'b,'], ['a', 'b'], null]],
    ],
    [
      'contains and the match functions are NULL when a NULL could decide them, as in Trino',
      `select contains(array[1, null], 2), contains(array[1, null], 1), contains(array[1], null),
              any_match(array[1, null], x -> x > 1), any_match(array[1, null, 3], x -> x > 2), any_match(array[], x -> x > 1),
              all_match(array[2, null], x -> x > 1), all_match(array[0, null], x -> x > 1), all_match(array[], x -> x > 1),
              none_match(array[1, null], x -> x > 1), none_match(array[2, null], x -> x > 1), none_match(array[], x -> x > 1),
              any_match(cast(null as array(integer)), x -> x > 1)`,
      [[null, true, null, null, true, false, null, false, true, null, false, true, null]],
    ],
    [
      'sqrt and the logarithms answer NaN and -Infinity outside their domain, as Java does',
      'select sqrt(-1), ln(0), ln(-1), log10(0), log2(-2), sqrt(16), log10(100), ln(cast(null as double))',
      [['NaN', '-Infinity', 'NaN', '-Infinity', 'NaN', 4, 2, null]],
    ],
    [
      'try() of a varbinary conversion that may fail binds, and is NULL when it fails',
      'select try(varbinary_to_uint256(0x01)), try(varbinary_to_bigint(0x010203040506070809)), try(varbinary_to_uint256(0x010000000000000000000000000000000000))',
      [['1', null, null]],
    ],
    [
      'count of a row counts rows holding NULLs, distinct or not',
      "select count(distinct (g, v)), count((g, v)), count(distinct g) from (values ('a', 1), ('b', null), ('b', null)) as t (g, v)",
      [['2', '3', '2']],
    ],
    [
      'lpad and rpad on varbinary count bytes and cut a longer value',
      'select to_hex(lpad(0x0102, 4, 0x00)), to_hex(rpad(0x01, 4, 0xabcd)), to_hex(lpad(0x01020304, 2, 0x00))',
      [['00000102', '01ABCDAB', '0102']],
    ],
  ])('%s', async (_, sql, rows) => {
    expect((await run(sql)).rows).toEqual(rows);
  });

  it.each([
    ["strpos('abc', 'b', 0)", "'instance' must be a positive number"],
    ["split_to_map('a=1,a=2', ',', '=')", 'Map keys must be unique'],
    [
      "split_to_map('a=1,b', ',', '=')",
      "Key-value delimiter must appear exactly once in each entry. Bad input: 'b'",
    ],
    ["lpad(0x01, 4, from_hex(''))", 'Padding bytes must not be empty'],
    ['trim_array(array[1, 2], 3)', 'size must not exceed array cardinality'],
    ["split('a,b', ',', 0)", 'Limit must be positive'],
    // As Athena's Trino fails it (reproduced there by the QA pass; DuckDB answered '').
    ["split_part('a,b', ',', 0)", 'Index must be greater than zero'],
  ])('%s fails as in Trino', async (expression, message) => {
    await expect(run(`select ${expression}`)).rejects.toThrow(message);
  });

  it('fails a bigint sum that overflows, as Trino does, grouped or windowed', async () => {
    const values = '(values cast(9223372036854775807 as bigint), cast(1 as bigint)) as t (x)';
    for (const sum of ['sum(x)', 'sum(x) over (order by x)']) {
      await expect(run(`select ${sum} from ${values}`)).rejects.toThrow(/bigint addition overflow/);
    }
    expect(
      (await run('select sum(x) from (values cast(-9223372036854775807 as bigint), -1) as t (x)')).rows,
    ).toEqual([['-9223372036854775808']]);
  });

  it('says so when a uint256 sum outgrows the local engine’s 128 bits, grouped or windowed', async () => {
    const values = "(values '340282366920938463463374607431768211455', '1') as t (x)";
    for (const sum of ['sum(cast(x as uint256))', 'sum(cast(x as uint256)) over (order by x)']) {
      await expect(run(`select ${sum} from ${values}`)).rejects.toThrow(
        /sum of uint256 values exceeds the local engine's 128-bit integers.*divide raw amounts first/,
      );
    }
  });

  it('names unaliased columns _col<N> and keeps column names', async () => {
    const { columns } = await run(
      'select x, count(*), x + 1 as y, sum(x) from (values 1, 2) as t (x) group by x',
    );
    expect(columns).toEqual(['x', '_col1', 'y', '_col3']);
  });

  it('types aggregates as Trino does: count, count_if, sum of bigint and running sums are bigint', async () => {
    const translation = await translate(
      'select count(*), count_if(x > 1), sum(x), sum(count(*)) over (), sum(y) over (order by y), sum(distinct x), sum(distinct y) from (values (cast(1 as bigint), 2)) as t (x, y) group by y',
      'duckdb',
    );
    await connection.run(translation.sessionSetup);
    const prepared = await connection.prepare(translation.sql);
    const types = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnType(i).toString());
    expect(types).toEqual(['BIGINT', 'BIGINT', 'BIGINT', 'BIGINT', 'BIGINT', 'BIGINT', 'BIGINT']);
  });

  // Trino's sum of an integer type is a bigint with or without DISTINCT (DISTINCT only drops the
  // repeated values before summing: https://trino.io/docs/current/functions/aggregate.html); DuckDB's
  // sum(DISTINCT x) was a HUGEINT, shown as int256, and made `* 1.5` a decimal(38,1).
  it('sums DISTINCT values with the types of sum: bigint for integers, an exact uint256', async () => {
    const { rows } = await run(
      'select sum(distinct x), typeof(sum(distinct x)), typeof(sum(distinct x) * 1.5), sum(distinct x) / 4, ' +
        'sum(distinct x) filter (where x > 1), typeof(sum(distinct cast(x as double))) from (values 1, 2, 2, 3, null) t(x)',
    );
    expect(rows).toEqual([['6', 'bigint', 'decimal(21,1)', '1', '5', 'double']]);
    const wide = await run(
      "select sum(distinct cast(x as uint256)), typeof(sum(distinct cast(x as uint256))) from (values '340282366920938463463374607431768211454', '1', '1', null) t(x)",
    );
    expect(wide.rows).toEqual([['340282366920938463463374607431768211455', 'uint256']]);
    await expect(
      run(
        "select sum(distinct cast(x as uint256)) from (values '340282366920938463463374607431768211455', '1') t(x)",
      ),
    ).rejects.toThrow(/sum of uint256 values exceeds the local engine's 128-bit integers/);
  });
});

// A timestamp with time zone keeps its zone in Trino: a literal written with one, with_timezone
// (https://trino.io/docs/current/functions/datetime.html#with_timezone: with_timezone(TIMESTAMP
// '2020-10-31 01:00', 'America/New_York') is 2020-10-31 01:00:00.000 America/New_York) and
// from_unixtime(x, hours, minutes) (same page: hours and minutes are the zone's offset). Its hour
// and date are the zone's; compared or counted between, it is the instant.
describe('timestamps written in or given a zone', () => {
  it("read a literal's hour, date and text in its zone, an offset too", async () => {
    const { rows } = await run(
      `select hour(timestamp '2024-01-01 12:00:00 America/New_York'), cast(timestamp '2024-01-01 01:00:00 Asia/Tokyo' as date),
        cast(date_trunc('day', timestamp '2024-01-01 01:00:00 Asia/Tokyo') as varchar),
        format_datetime(timestamp '2024-01-01 12:00:00 America/New_York', 'yyyy-MM-dd HH:mm'),
        cast(timestamp '2024-01-01 12:00:00 America/New_York' as varchar), cast(timestamp '2024-01-01 00:00:00 +05:30' as varchar),
        hour(timestamp '2024-01-01 00:00:00 +0530')`,
    );
    expect(rows).toEqual([
      [
        '12',
        '2024-01-01',
        '2024-01-01 00:00:00.000 Asia/Tokyo',
        '2024-01-01 12:00',
        '2024-01-01 12:00:00.000 America/New_York',
        '2024-01-01 00:00:00.000 +05:30',
        '0',
      ],
    ]);
  });

  it('keep the wall-clock time with_timezone gives and the offset from_unixtime(x, h, m) gives', async () => {
    const { rows } = await run(
      `select cast(with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York') as varchar),
        hour(with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York')),
        cast(with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York') as date),
        cast(with_timezone(timestamp '2024-01-01 22:00:00', '-08:00') as varchar),
        cast(from_unixtime(1700000000, 2, 0) as varchar), hour(from_unixtime(1700000000, -2, -30)),
        cast(from_unixtime(1700000000, '+05:30') as varchar)`,
    );
    expect(rows).toEqual([
      [
        '2024-01-01 22:00:00.000 America/New_York',
        '22',
        '2024-01-01',
        '2024-01-01 22:00:00.000 -08:00',
        '2023-11-15 00:13:20.000 +02:00',
        '19',
        '2023-11-15 03:43:20.000 +05:30',
      ],
    ]);
  });

  it('compare, convert and count between instants', async () => {
    const { rows } = await run(
      `select timestamp '2024-01-01 12:00:00 America/New_York' = timestamp '2024-01-01 17:00:00',
        timestamp '2024-01-01 00:00:00 +05:30' < timestamp '2023-12-31 18:31:00',
        with_timezone(timestamp '2024-01-01 22:00:00', 'America/New_York') is not distinct from timestamp '2024-01-02 03:00:00 UTC',
        to_unixtime(timestamp '2024-01-01 00:00:00 +05:30'),
        cast(timestamp '2024-01-01 12:00:00 America/New_York' at time zone 'Asia/Tokyo' as varchar),
        hour(at_timezone(timestamp '2024-01-01 12:00:00 America/New_York', 'UTC')),
        date_diff('minute', timestamp '2024-01-01 00:00:00 America/New_York', timestamp '2024-01-01 00:00:00 Asia/Tokyo'),
        date_diff('day', timestamp '2024-01-01 23:00:00 Asia/Tokyo', timestamp '2024-01-02 01:00:00 Asia/Tokyo')`,
    );
    expect(rows).toEqual([
      [true, true, true, 1704047400, '2024-01-02 02:00:00.000 Asia/Tokyo', '17', '-840', '0'],
    ]);
  });

  it('are typed with their zone in the results', async () => {
    const { outputTypes } = await translate(
      `select timestamp '2024-01-01 12:00:00 America/New_York', with_timezone(timestamp '2024-01-01 22:00:00', '-08:00'),
        from_unixtime(1700000000, 2, 0), from_unixtime(1700000000, 2, x), timestamp '2024-01-01 12:00:00'
        from (values 1) t(x)`,
      'duckdb',
    );
    expect(outputTypes).toEqual([
      'TIMESTAMP AT TIME ZONE America/New_York',
      'TIMESTAMP AT TIME ZONE -08:00',
      'TIMESTAMP AT TIME ZONE +02:00',
      undefined,
      undefined,
    ]);
  });
});

// Trino's reduce folds into a state of any type (https://trino.io/docs/current/functions/array.html#reduce,
// whose example averages with a row state); DuckDB's list_reduce folds into the element type and
// failed to bind ("The initial value type must be the same as the list child type").
describe('reduce with a state of another type than the elements', () => {
  it("gives the Trino docs' answers", async () => {
    const { rows } = await run(
      `select reduce(array[5, 20, 50], cast(row(0.0, 0) as row(sum double, count integer)),
          (s, x) -> cast(row(x + s.sum, s.count + 1) as row(sum double, count integer)),
          s -> if(s.count = 0, null, s.sum / s.count)),
        reduce(array['a', 'bb', 'ccc'], 0, (s, x) -> s + length(x), s -> s),
        reduce(array[], 0, (s, x) -> s + x, s -> s),
        reduce(array[5, 6, 10, 20], 0, (s, x) -> s + x, s -> s * 10),
        reduce(array[5, null], 0, (s, x) -> s + x, s -> s)`,
    );
    expect(rows).toEqual([[25, '6', 0, 410, null]]);
  });

  it('sums a field of rows into a decimal, widens an integer state, and nests', async () => {
    const { rows } = await run(
      `select reduce(outputs, cast(0 as decimal(18,8)), (s, o) -> s + o.value, s -> s),
          reduce(array[9223372036854775807, -7], 0, (s, x) -> s + x, s -> s),
          reduce(array[array[1, 2], array[3]], 0, (s, a) -> s + reduce(a, s, (t, y) -> t + y + s, t -> t), s -> s)
        from (values (array[cast(row(1.5, 'a') as row(value decimal(18,8), address varchar)),
          cast(row(0.25, 'b') as row(value decimal(18,8), address varchar))])) t(outputs)`,
    );
    expect(rows).toEqual([['1.75000000', '9223372036854775800', 12]]);
  });
});

describe('quoted column aliases', () => {
  it('keep their quotes after VALUES, UNNEST and subqueries (polyglot reads them unquoted)', async () => {
    const result = await run(
      `select v."my col", v."a""b", u."unnested value", s."Sum-1", v."from"
       from (values (1, 2, 0x01)) as v("my col", "a""b", "from")
       cross join unnest(array[10]) as u("unnested value")
       cross join (select 3) as s("Sum-1")`,
    );
    expect(result.columns).toEqual(['my col', 'a"b', 'unnested value', 'Sum-1', 'from']);
    expect(result.rows).toEqual([[1, 2, 10, 3, '\\x01']]);
  });

  it('keep them on Athena when the statement is generated again', async () => {
    const translation = await translate(
      'select varbinary_to_uint256(0x01) as x, v."my col" from (values 1) as v("my col")',
      'athena',
    );
    expect(translation.sql).toContain('AS v("my col")');
  });
});

describe('errors point at the SQL the user wrote', () => {
  it('positions syntax errors in the user text, past rewritten literals', async () => {
    const error = await failure('select 0xc02a\n  from where');
    expect(error.kind).toBe('syntax');
    expect(error.position?.line).toBe(2);
    // A trailing comma is refused where it stands (Trino's grammar has none).
    expect((await failure('select 0xc02a,\n  from where')).position).toEqual({ line: 1, column: 14 });
  });

  it('says how many arguments a chain utility function takes', async () => {
    const error = await failure("select 1,\n  get_href('https://dune.com')");
    expect(error.message).toMatch(/get_href takes 2 arguments: get_href\(link, text\)/);
    expect(error.position).toEqual({ line: 2, column: 3 });
  });

  it('names unsupported constructs and the supported form', async () => {
    const error = await failure("select 1,\n  format_datetime(now(), 'yyyy QQQ')");
    expect(error.kind).toBe('unsupported');
    expect(error.message).toMatch(/format_datetime\(\) format 'yyyy QQQ' .* common letters/);
    expect(error.position).toEqual({ line: 2, column: 3 });
  });

  it('refuses a Teradata format Trino cannot read (upper case) or cannot be read here (not a literal)', async () => {
    const upper = await failure("select 1,\n  to_char(now(), 'YYYY-MM-DD')");
    expect(upper.message).toMatch(
      /to_char\(\) format 'YYYY-MM-DD' is not a Teradata format .* lower case.*\(write 'yyyy-mm-dd'\)/,
    );
    expect(upper.position).toEqual({ line: 2, column: 3 });
    const column = await failure("select to_date(s, f) from (values ('2024', 'yyyy')) t(s, f)");
    expect(column.message).toMatch(
      /to_date\(\) needs its format as a string literal .* to_date\(s, 'yyyy-mm-dd'\)/,
    );
    // Athena runs them as Trino does.
    await expect(translate("select to_char(now(), 'yyyy')", 'athena')).resolves.toMatchObject({
      sql: "select to_char(now(), 'yyyy')",
    });
  });

  it("words DuckDB's error for a DuneSQL function it lacks without suggesting one of DuckDB's own", async () => {
    const translation = await translate("select index('abc', 'b')", 'duckdb');
    const error = await connection.runAndReadAll(translation.sql).catch((e: unknown) => e);
    const { message } = parseDuckDbError(error);
    expect(message).toMatch(/Did you mean "list_indexof"/);
    expect(translation.userMessage(message)).toBe(
      "Function 'index' is not available here: DuneSQL has it (Athena runs it), but the local engine does not. SHOW FUNCTIONS LIKE '%…%' lists what runs locally.",
    );
  });

  it("refuses a WITH naming two queries alike at the second, in Trino's words, on both targets", async () => {
    // Trino's StatementAnalyzer: "WITH query name '%s' specified more than once" (names in lower
    // case); DuckDB said "Duplicate CTE name" without a position. A nested WITH may reuse a name.
    for (const target of ['duckdb', 'athena'] as const) {
      const error = await failure('with a as (select 1),\n  A as (select 2) select * from a', target);
      expect(error.kind).toBe('syntax');
      expect(error.message).toMatch(/^WITH query name 'a' specified more than once: give each query/);
      expect(error.position).toEqual({ line: 2, column: 3 });
      await expect(
        translate('with a as (select 1) select * from (with a as (select 2) select * from a)', target),
      ).resolves.toBeDefined();
    }
  });

  it('leaves WITH TIES and LIMIT ALL to Athena, which runs them', async () => {
    for (const sql of [
      'select x from (values 1, 2) t(x) order by x fetch first 1 rows with ties',
      'select x from (values 1, 2) t(x) order by x limit all',
    ]) {
      expect((await translate(sql, 'athena')).sql).toBe(sql);
    }
  });

  it('refuses a sketch or digest over a window, with the windowed aggregate to write', async () => {
    for (const [sql, name] of [
      ['select x,\n  cardinality(approx_set(x) over (order by x)) from t', 'approx_set'],
      ['select x,\n  cardinality(merge(s) over ()) from t', 'merge'],
      ['select x,\n  value_at_quantile(tdigest_agg(x) over (), 0.5) from t', 'tdigest_agg'],
    ] as const) {
      const error = await failure(sql);
      expect(error.kind).toBe('unsupported');
      expect(error.message).toMatch(`${name}() over a window is not supported on the local engine`);
      expect(error.message).toMatch(
        name === 'tdigest_agg' ? /approx_percentile\(x, p\) over/ : /approx_distinct\(x\) over/,
      );
      expect(error.position).toEqual({ line: 2, column: name === 'tdigest_agg' ? 21 : 15 });
    }
    // Grouped, both run (diff-70 in the corpus checks their answers).
    expect(
      (await run('select cardinality(merge(s)) from (select approx_set(x) as s from (values 1, 2) as t (x))'))
        .rows,
    ).toEqual([['2']]);
  });

  it('reads two words that are not a statement as a syntax error, not an aliased name', async () => {
    const error = await failure('selec nothing');
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(/not SELEC/);
    expect(error.position).toEqual({ line: 1, column: 1 });
    // Trino's TABLE statement is the query it stands for.
    expect((await translate('TABLE dex.trades', 'duckdb')).sql).toMatch(/^SELECT \* FROM dex\.trades/i);
  });

  it('refuses statements that are not queries', async () => {
    for (const sql of ['insert into t values (1)', 'create table x as select 1', 'explain select 1']) {
      expect((await failure(sql)).kind).toBe('not_a_query');
    }
  });

  it('refuses a varbinary compared with quoted 0x text on both targets, saying how to write it', async () => {
    const tables = athenaTableSchemas(BASE_TABLES);
    const address = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
    for (const target of ['duckdb', 'athena'] as const) {
      const refused = (sql: string) => failure(sql, target, { tables });
      const error = await refused(
        `select count(*)\nfrom tokens.transfers\nwhere  contract_address = '${address}'`,
      );
      expect(error).toBeInstanceOf(DuneSqlError);
      expect(error.kind).toBe('syntax');
      expect(error.message).toBe(
        `Cannot compare varbinary with varchar: contract_address is varbinary, and '${address}' is text. Write the value without quotes, as a 0x literal (${address}), or convert text with from_hex('${address}'). (line 3, column 8)`,
      );
      expect(error.position).toEqual({ line: 3, column: 8 });
      // IN lists, the other operand order, and a CTE's column are typed too.
      expect(
        (await refused(`select 1 from tokens.transfers t where t.contract_address in (0x01, '0x02')`))
          .message,
      ).toMatch(/t\.contract_address is varbinary, and '0x02'/);
      expect((await refused(`select 1 from tokens.transfers where '0x01' <> "to"`)).message).toMatch(
        /to is varbinary/,
      );
      expect(
        (await refused(`with x as (select "from" as a from tokens.transfers) select 1 from x where a = '0x'`))
          .message,
      ).toMatch(/a is varbinary/);
      // Text compared with text, or varbinary with a 0x literal, is fine; so is what cannot be typed.
      for (const sql of [
        `select 1 from tokens.transfers where symbol = '0xabc'`,
        `select 1 from tokens.transfers where contract_address = ${address}`,
        `select 1 from tokens.transfers where contract_address = from_hex('${address}')`,
        `select 1 from dune.alice.labels where address = '${address}'`,
      ]) {
        await expect(translate(sql, target, { tables }), sql).resolves.toBeDefined();
      }
    }
  });

  it('refuses operands Trino does not convert, on both targets, saying what to write', async () => {
    const tables = athenaTableSchemas(BASE_TABLES);
    const refusals: [sql: string, message: string | RegExp][] = [
      [
        "select count(*)\nfrom dex.trades\nwhere block_time >= '2024-01-01'",
        "Cannot compare timestamp with varchar: block_time is a timestamp, and '2024-01-01' is text. Trino reads no text as a timestamp: write timestamp '2024-01-01', or cast('2024-01-01' as timestamp). (line 3, column 7)",
      ],
      // BETWEEN, IN lists, the other operand order, a CTE's column; uint256 columns are numbers.
      [
        "select 1 from dex.trades where block_date between '2024-01-01' and date '2024-02-01'",
        /^Cannot compare date with varchar: block_date is a date, and '2024-01-01' is text\. Trino reads no text as a date: write date '2024-01-01'\./,
      ],
      [
        "select 1 from dex.trades t where t.block_number in (1, '2')",
        /t\.block_number is a number, and '2' is text\. Write the number without quotes \(2\)\./,
      ],
      ["select 1 from dex.trades where '5' < token_bought_amount_raw", /token_bought_amount_raw is a number/],
      [
        "with x as (select block_time as t from dex.trades) select 1 from x where t > 'yesterday'",
        /t is a timestamp, and 'yesterday' is text/,
      ],
      [
        'select 1 from dex.trades where version in (2, 3)',
        /^Cannot compare varchar with a number: version is text, and 2 is a number\. Quote it \('2'\)/,
      ],
      [
        'select count(*)\nfrom dex.trades\nwhere block_date > current_date - 7',
        "Cannot subtract a number from a date: Trino adds and subtracts intervals, not numbers. Write - interval '7' day, or date_add('day', -7, …).",
      ],
      [
        'select 1 + block_date from dex.trades',
        /^Cannot add a number to a date: .* Write \+ interval '1' day, or date_add\('day', 1, …\)\. \(line 1, column 12\)$/,
      ],
      ['select now() - 1', /a number from a timestamp: Trino adds and subtracts intervals/],
      ["select date_trunc('hour', block_time) + 2 from dex.trades", /a number to a timestamp/],
      [
        "select '#' || block_number\nfrom dex.trades",
        "Cannot join text with a number: Trino's || and concat take text only. Write cast(block_number as varchar). (line 1, column 15)",
      ],
      [
        "select concat('day ', block_date, '!') from dex.trades",
        /^Cannot join text with a date: .* Write cast\(block_date as varchar\)\./,
      ],
      ["select 'a' || 1", /Write cast\(1 as varchar\)\./],
      // String functions take text (trino.io/docs/current/functions/string.html; length, reverse,
      // substr, lpad and rpad varbinary too: functions/binary.html). Trino: "Unexpected parameters
      // (integer) for function length"; DuckDB answered 3, or failed in its own words on varbinary.
      [
        'select length(123)',
        'Unexpected parameters (integer) for function length: it takes varchar or varbinary. Write length(cast(123 as varchar)). (line 1, column 8)',
      ],
      [
        'select lower(taker) from dex.trades',
        'Unexpected parameters (varbinary) for function lower: it takes varchar, and taker is varbinary. Write lower(to_hex(taker)) for its hex digits, or compare varbinary values directly (taker = 0x…), which needs no lower(). (line 1, column 14)',
      ],
      [
        'select 1 from dex.trades where strpos(tx_hash, 0xab) > 0',
        /^Unexpected parameters \(varbinary\) for function strpos: .* Write varbinary_position\(tx_hash, …\) for its bytes/,
      ],
      ['select upper(block_date) from dex.trades', /Write upper\(cast\(block_date as varchar\)\)\./],
    ];
    // Text with text, typed literals, casts, intervals, and what cannot be typed are fine.
    const accepted = [
      "select 1 from dex.trades where blockchain = 'ethereum' and project in ('uniswap', 'curve')",
      "select 1 from dex.trades where block_time >= timestamp '2024-01-01' and block_date < date '2024-02-01'",
      "select 1 from dex.trades where block_time >= cast('2024-01-01' as timestamp) and block_number > 5",
      "select 1 from dex.trades where cast(block_number as varchar) = '5' and version = '3'",
      "select 1 from (values ('2024-01-01')) t(d) where d = '2024-01-01'",
      "select current_date - interval '7' day, block_number + 1, 1 - 2 from dex.trades",
      "select date_add('day', -7, current_date), day_of_week(block_date) + 1 from dex.trades",
      "select project || '-' || version, concat('0x', to_hex(tx_hash)) from dex.trades",
      "select '#' || cast(block_number as varchar), array[1] || 2, 0x01 || 0x02 from dex.trades",
      'select length(tx_hash), substr(taker, 1, 4), reverse(tx_hash), lower(project), length(to_hex(taker)) from dex.trades',
    ];
    for (const target of ['duckdb', 'athena'] as const) {
      for (const [sql, message] of refusals) {
        const error = await failure(sql, target, { tables });
        expect(error.kind, sql).toBe('syntax');
        if (typeof message === 'string') expect(error.message, sql).toBe(message);
        else expect(error.message, sql).toMatch(message);
      }
      expect((await failure(refusals[0]![0], target, { tables })).position).toEqual({ line: 3, column: 7 });
      for (const sql of accepted)
        await expect(translate(sql, target, { tables }), sql).resolves.toBeDefined();
    }
  });

  it("refuses an uploaded table's text column compared with a varbinary, on both targets", async () => {
    const tables = athenaTableSchemas(BASE_TABLES);
    const labels = (type: string) => [
      {
        schema: 'alice',
        name: 'labels',
        columns: [
          { name: 'address', type },
          { name: 'label', type: 'varchar' },
        ],
      },
    ];
    const join =
      'select l.label, count(*)\nfrom tokens.transfers t\njoin dune.alice.labels l on l.address = t.contract_address\ngroup by 1';
    for (const target of ['duckdb', 'athena'] as const) {
      const error = (await translate(join, target, { tables, uploads: labels('varchar') }).catch(
        (e: unknown) => e,
      )) as DuneSqlError;
      expect(error).toBeInstanceOf(DuneSqlError);
      expect(error.message).toMatch(
        /^Cannot compare varbinary with varchar: t\.contract_address is varbinary and l\.address is varchar\. If l\.address holds 0x text, compare from_hex\(l\.address\)/,
      );
      expect(error.position).toEqual({ line: 3, column: 41 });
      for (const [sql, type] of [
        [join, 'varbinary'],
        [join.replace('on l.address', 'on from_hex(l.address)'), 'varchar'],
        ["select * from dune.alice.labels where label = 'x' and address = '0xab'", 'varchar'],
      ]) {
        await expect(translate(sql!, target, { tables, uploads: labels(type!) }), sql).resolves.toBeDefined();
      }
    }
  });

  it('maps an engine error position back to the user token', async () => {
    // `nope` comes from UNNEST, whose columns the translator leaves to the engine.
    const sql =
      "select 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2 as a,\n  date_add('day', 1, nope)\nfrom unnest(array[1]) as u (nope)";
    const translation = await translate(sql, 'duckdb');
    const offset = Buffer.byteLength(translation.sql.slice(0, translation.sql.indexOf('nope')));
    expect(await translation.userPosition(offset, 'bytes')).toEqual({ line: 2, column: 22 });
    expect(translation.userMessage('Macro DUNESQL_DATE_ADD() failed')).toBe('Macro DATE_ADD() failed');
    // uint256 and int256 are DuckDB's 128-bit integers locally: messages name Dune's types.
    expect(translation.userMessage("Could not convert string 'abc' to UINT128")).toBe(
      "Could not convert string 'abc' to uint256",
    );
    expect(translation.userMessage('Overflow in HUGEINT addition; (UHUGEINT -> BLOB)')).toBe(
      'Overflow in int256 addition; (uint256 -> varbinary)',
    );
    // So do DuckDB's physical type names; UINT64 and the like are left as they are.
    expect(
      translation.userMessage('Overflow in multiplication of INT32 (26300008 * 1000000)! INT64 UINT64'),
    ).toBe('Overflow in multiplication of integer (26300008 * 1000000)! bigint UINT64');
  });
});

describe('the athena target', () => {
  it.each([
    ['select cast(amount as uint256), cast(delta as int256) from t', /DECIMAL\(38, 0\).*DECIMAL\(38, 0\)/],
    ['select varbinary_to_uint256(data) from t', /REDUCE\(SEQUENCE/],
    [
      'select bytearray_substring(data, 1, 4), varbinary_length(data) from t',
      /SUBSTR\(data, 1, 4\), LENGTH\(data\)/,
    ],
    ['select * from t where "to" = 0xc02a and from_hex(\'0xab\') = x', /x'c02a'.*FROM_HEX\(REGEXP_REPLACE/],
  ])('rewrites Dune extensions into Trino that parses: %s', async (sql, pattern) => {
    const { sql: trino } = await translate(sql, 'athena');
    expect(trino).toMatch(pattern);
    expect(trino).not.toMatch(/uint256|int256|varbinary_|bytearray_/i);
    expect(parse(trino, Dialect.Trino).success).toBe(true);
  });

  it.each([
    ['select project, count(*) from dex.trades group by 1', true],
    ["select * from dex.trades where block_time > now() - interval '1' day", false],
    ['select current_date, 1', false],
    ['select * from t where x > (select max(y) from u where z = rand())', false],
    ['select uuid()', false],
  ])('knows whether %s answers the same over the same data', async (sql, deterministic) => {
    expect((await translate(sql, 'athena')).deterministic).toBe(deterministic);
  });

  it.each([
    ['varbinary_position(0x0aa0aa, 0xaa)', '3'],
    ['varbinary_position(0x0aa0, 0xaa)', '0'],
    ['bytearray_position(0x01aaaa, 0xaaaa)', '2'],
    ["varbinary_position(0xaabb, from_hex(''))", '1'],
    ['to_hex(varbinary_replace(0x0aa0aabbaa, 0xaa, 0xcc))', '0AA0CCBBCC'],
    ['to_hex(bytearray_replace(0xaaaaaa, 0xaaaa, 0x01))', '01AA'],
    ["to_hex(varbinary_replace(0xaabbaa, 0xbb, from_hex('')))", 'AAAA'],
  ])('finds and replaces bytes at byte boundaries only: %s', async (expression, expected) => {
    // Both targets run here on DuckDB: the Athena one with the Trino functions it uses spelled as
    // DuckDB's (hex text, byte length, integer division, global regexp_replace with \1).
    const local = await run(`select ${expression} as v`);
    const { sql: trino } = await translate(`select ${expression} as v`, 'athena');
    const athena = (
      await connection.runAndReadAll(
        trino
          .replace(/\bTO_HEX\(/g, 'hex(')
          .replace(/\bFROM_HEX\(/g, 'unhex(')
          .replace(/\bLENGTH\(/g, 'octet_length(')
          .replace(/\bx'([0-9a-f]*)'/g, "unhex('$1')")
          .replace(/'\|\$1'\)/g, "'|\\1', 'g')")
          .replace(/\) \/ 3\)/g, ') // 3)'),
      )
    ).getRowsJson();
    expect(local.rows).toEqual([[expected]]);
    expect(athena).toEqual([[expected]]);
  });

  it("writes Dune's chain utility functions as plain SQL, a varbinary address as its 0x hex", async () => {
    const tables = [
      {
        schema: 'ethereum',
        name: 'transactions',
        columns: [
          { name: 'hash', type: 'varbinary' },
          { name: 'from', type: 'varbinary' },
          { name: 'chain', type: 'varchar' },
        ],
      },
    ];
    const { sql: trino } = await translate(
      `select get_href(get_chain_explorer_address('ethereum', "from"), 'sender'), get_chain_explorer_tx_hash(chain, hash),
              get_chain_explorer(chain), all_evm_chains() from ethereum.transactions`,
      'athena',
      { tables },
    );
    expect(trino).not.toMatch(/get_|all_evm/i);
    expect(trino).toMatch(/'\/address\/' \|\| '0x' \|\| LOWER\(TO_HEX\("from"\)\)/);
    expect(trino).toMatch(/'\/tx\/' \|\| '0x' \|\| LOWER\(TO_HEX\(hash\)\)/);
    expect(parse(trino, Dialect.Trino).success).toBe(true);
  });

  it('refuses keccak, which Athena lacks', async () => {
    const error = await translate('select keccak(data) from t', 'athena').catch((e: unknown) => e);
    expect((error as DuneSqlError).message).toMatch(/keccak\(\) is not available on Athena/);
  });

  describe('materialized views: a reference reads the version table, cast back to its types', () => {
    const relation = {
      catalog: 'mv',
      schema: 'alice',
      name: 'result_flows',
      columns: [
        { name: 'n', type: 'bigint' },
        { name: 'Addr', type: 'varbinary' },
        { name: 'ts', type: 'timestamp' },
        { name: 'amount', type: 'decimal(38,0)' },
        { name: 'tags', type: 'array' },
      ],
      table: { database: 'svc_views', name: 'v_0123456789abcdef_01hkzj' },
    };
    const athena = (sql: string) =>
      translate(sql, 'athena', { relations: [relation], relationCatalogs: { mv: 'materialized view' } });
    const derived =
      '(SELECT CAST(c0 AS BIGINT) AS "n", FROM_HEX(REGEXP_REPLACE(c1, \'^0x| \', \'\')) AS "Addr", CAST(c2 AS TIMESTAMP(3)) AS "ts", CAST(c3 AS DECIMAL(38, 0)) AS "amount", c4 AS "tags" FROM "svc_views"."v_0123456789abcdef_01hkzj")';

    it.each([
      ['select t.n from mv.alice.result_flows as t', `FROM ${derived} AS t`],
      // Unaliased: named as the view, so `result_flows.n` still resolves; names match case-insensitively.
      ['select result_flows.n from MV.Alice.RESULT_FLOWS', `FROM ${derived} AS RESULT_FLOWS`],
      ['select * from mv.alice.result_flows x(a, b, c, d, e)', `FROM ${derived} AS x(a, b, c, d, e)`],
      ['with w as (select * from mv.alice.result_flows) select * from w', `FROM ${derived} AS result_flows)`],
      ['select 1 from dex.trades d join mv.alice.result_flows f on true', `JOIN ${derived} AS f ON TRUE`],
    ])('%s', async (sql, expected) => {
      const { sql: trino } = await athena(sql);
      expect(trino).toContain(expected);
      expect(trino).not.toMatch(/mv\.alice/i);
      expect(parse(trino, Dialect.Trino).success).toBe(true);
    });

    it('leaves other tables alone, and a one-part name equal to a view name too', async () => {
      const { sql } = await athena('select * from result_flows join alice.result_flows on true');
      expect(sql).toBe('select * from result_flows join alice.result_flows on true');
    });

    it('refuses a view the account may not read (absent or private) where it is named', async () => {
      const error = (await athena('select *\nfrom mv.bob.result_secret').catch(
        (e: unknown) => e,
      )) as DuneSqlError;
      expect(error).toBeInstanceOf(DuneSqlError);
      expect(error.message).toMatch(
        /^Table mv\.bob\.result_secret does not exist: no materialized view of that name is readable by this account/,
      );
      expect(error.position).toEqual({ line: 2, column: 13 });
    });

    it('suggests the views the account may read with the closest names', async () => {
      for (const [sql, suggested] of [
        ['select * from mv.alice.result_flow', 'Did you mean mv.alice.result_flows?'],
        ['select * from mv.bob.result_flows', 'Did you mean mv.alice.result_flows?'],
      ]) {
        const error = (await athena(sql!).catch((e: unknown) => e)) as DuneSqlError;
        expect(error.message).toContain(suggested);
      }
      const unrelated = (await athena('select * from mv.bob.result_zzz').catch(
        (e: unknown) => e,
      )) as DuneSqlError;
      expect(unrelated.message).not.toContain('Did you mean');
    });
  });
});

describe('output types DuckDB cannot tell (local results)', () => {
  const hints = async (sql: string) => (await translate(sql, 'duckdb')).outputTypes;

  it('names a zone-moved timestamp and a year-to-month interval by position, and nothing else', async () => {
    expect(
      await hints(
        "select block_time at time zone 'Asia/Tokyo' as a, max(block_time at time zone 'UTC'), " +
          "date_add('hour', 2, at_timezone(block_time, '+05:30')) - interval '1' minute, block_time, " +
          "interval '1' year + interval '3' month, 2 * interval '1' month, interval '1' day from dex.trades",
      ),
    ).toEqual([
      'TIMESTAMP AT TIME ZONE Asia/Tokyo',
      'TIMESTAMP AT TIME ZONE UTC',
      'TIMESTAMP AT TIME ZONE +05:30',
      undefined,
      'INTERVAL YEAR TO MONTH',
      'INTERVAL YEAR TO MONTH',
      undefined,
    ]);
  });

  it('follows them through CTEs, subqueries (their column aliases too) and stored views', async () => {
    expect(
      await hints(
        "with t as (select block_time at time zone 'America/New_York' as ny, interval '1' month as m from dex.trades) " +
          "select date_trunc('day', ny) as day, max(t.ny), m * 2, x.z, s.tokyo, ny + interval '1' hour " +
          "from t cross join (select interval '2' year as z) x " +
          "cross join (select block_time at time zone 'Asia/Tokyo' from dex.trades) s (tokyo)",
      ),
    ).toEqual([
      'TIMESTAMP AT TIME ZONE America/New_York',
      'TIMESTAMP AT TIME ZONE America/New_York',
      'INTERVAL YEAR TO MONTH',
      'INTERVAL YEAR TO MONTH',
      'TIMESTAMP AT TIME ZONE Asia/Tokyo',
      'TIMESTAMP AT TIME ZONE America/New_York',
    ]);
    const storedTypes = [
      {
        schema: 'local',
        name: 'result_v',
        columns: [
          { name: 'tokyo', type: 'TIMESTAMP AT TIME ZONE Asia/Tokyo' },
          { name: 'later', type: 'INTERVAL YEAR TO MONTH' },
          { name: 'plain', type: 'TIMESTAMP' },
        ],
      },
    ];
    const sql = "select date_trunc('hour', v.tokyo), later, plain from mv.local.result_v v";
    expect((await translate(sql, 'duckdb', { storedTypes })).outputTypes).toEqual([
      'TIMESTAMP AT TIME ZONE Asia/Tokyo',
      'INTERVAL YEAR TO MONTH',
      undefined,
    ]);
  });

  it('places the items after a star by the columns of what it stands for', async () => {
    const tables = [
      {
        schema: 'dex',
        name: 'trades',
        columns: [
          { name: 'block_time', type: 'timestamp(3) with time zone' },
          { name: 'amount_usd', type: 'double' },
        ],
      },
    ];
    const storedTypes = [
      { schema: 'local', name: 'result_v', columns: [{ name: 'm', type: 'INTERVAL YEAR TO MONTH' }] },
    ];
    const withTables = async (sql: string) =>
      (await translate(sql, 'duckdb', { tables, storedTypes })).outputTypes;
    expect(await withTables("select *, block_time at time zone 'UTC' from dex.trades")).toEqual([
      undefined,
      undefined,
      'TIMESTAMP AT TIME ZONE UTC',
    ]);
    // A derived table's zone and a view's interval come through the star; a qualified star too.
    expect(
      await withTables(
        "select s.*, v.*, interval '1' month from (select block_time at time zone 'Asia/Tokyo' as t, 1 as n " +
          'from dex.trades) s cross join mv.local.result_v v',
      ),
    ).toEqual([
      'TIMESTAMP AT TIME ZONE Asia/Tokyo',
      undefined,
      'INTERVAL YEAR TO MONTH',
      'INTERVAL YEAR TO MONTH',
    ]);
    expect(
      await withTables("with c (a, b) as (select interval '1' year, 2) select *, interval '1' month from c"),
    ).toEqual(['INTERVAL YEAR TO MONTH', undefined, 'INTERVAL YEAR TO MONTH']);
  });

  it('follows set operations whose branches agree, first branch naming the columns', async () => {
    expect(
      await hints(
        "select block_time at time zone 'Asia/Tokyo' as t, interval '1' month as m, 1 from dex.trades " +
          "union all select block_time at time zone 'Asia/Tokyo', interval '2' year, 2 from dex.trades",
      ),
    ).toEqual(['TIMESTAMP AT TIME ZONE Asia/Tokyo', 'INTERVAL YEAR TO MONTH', undefined]);
    // Branches in different zones: Trino keeps each row's zone, one column here holds one.
    expect(
      await hints(
        "select block_time at time zone 'Asia/Tokyo' from dex.trades union " +
          "select block_time at time zone 'UTC' from dex.trades",
      ),
    ).toEqual([undefined]);
    expect(
      await hints(
        "with u as (select interval '1' month as m union select interval '1' year except select interval '2' year) " +
          'select m, m * 2 from u',
      ),
    ).toEqual(['INTERVAL YEAR TO MONTH', 'INTERVAL YEAR TO MONTH']);
  });

  it('tells nothing past a star over what it cannot list, on Athena, or for a zone that is no name', async () => {
    expect(await hints("select interval '1' month, *, interval '2' month from dex.trades")).toEqual([
      'INTERVAL YEAR TO MONTH',
    ]);
    const known = [{ schema: 'dex', name: 'trades', columns: [{ name: 'k', type: 'bigint' }] }];
    for (const from of [
      'dex.trades t join dex.trades u using (k)',
      'dex.trades natural join dex.trades u',
      'dex.trades cross join unnest(array[1]) as x (n)',
    ]) {
      const sql = `select interval '1' month, *, interval '2' month from ${from}`;
      expect((await translate(sql, 'duckdb', { tables: known })).outputTypes).toEqual([
        'INTERVAL YEAR TO MONTH',
      ]);
    }
    expect((await translate("select interval '1' month", 'athena')).outputTypes).toEqual([]);
    expect(await hints("select block_time at time zone 'Bad Zone; --' from dex.trades")).toEqual([undefined]);
  });
});

describe('aggregate arguments of helpers that pick an overload by type', () => {
  const values = `(VALUES (timestamp '2024-03-01 12:34:56', date '2024-03-01', 0xabcd)) AS t(ts, d, b)`;

  it('are typed through a lambda, so a timestamp keeps its time and a date stays a date', async () => {
    const { rows } = await run(
      `select max(ts) - interval '1' day, max(d) + interval '1' day, to_iso8601(max(d)), reverse(max(b)) from ${values}`,
    );
    expect(rows).toEqual([['2024-02-29 12:34:56', '2024-03-02', '2024-03-01', '\\xCD\\xAB']]);
  });

  it('also over a window, and with two aggregate arguments', async () => {
    const windowed = await run(`select to_iso8601(max(ts) over ()) from ${values}`);
    expect(windowed.rows).toEqual([['2024-03-01T12:34:56.000']]);
    const { rows } = await run(
      `select cardinality(sequence(min(d), max(d) + interval '2' day)) from ${values}`,
    );
    expect(rows).toEqual([['3']]);
  });

  it('leave a column argument as it was: no lambda where DuckDB can type the argument', async () => {
    const plain = await translate(`select to_iso8601(ts), ts - interval '1' day from ${values}`, 'duckdb');
    expect(plain.sql).not.toContain('list_transform');
    const bound = await translate(`select to_iso8601(max(ts)) from ${values}`, 'duckdb');
    expect(bound.sql).toMatch(
      /LIST_TRANSFORM\(\[MAX\(ts\)\], dunesql_bound_\d+ -> DUNESQL_TO_ISO8601\(dunesql_bound_\d+\)\)\[1\]/i,
    );
  });
});

// Trino's SQL/JSON functions (https://trino.io/docs/current/functions/json.html): json_exists is
// true when the path finds an item, JSON's null too, and FALSE ON ERROR by default (malformed JSON).
describe('SQL/JSON paths on the local engine', () => {
  it('json_exists finds members and elements in lax and strict mode', async () => {
    const { rows } = await run(
      `select json_exists('{"a":1}', 'lax $.a'), json_exists('{"a":1}', 'strict $.a'), json_exists('[1,2]', 'lax $[1]'),
        json_exists('{"a":{"b":null}}', 'lax $.a.b'), json_exists('{"a":1}', 'lax $.b'), json_exists('[1,2]', 'lax $[last]'),
        json_exists('{"a":[1,2]}', 'lax $.a[*]'), json_exists('{"a":[]}', 'lax $.a[*]'), json_exists('{"a b":1}', 'lax $."a b"'),
        json_exists('not json', 'lax $'), json_exists(null, 'lax $')`,
    );
    expect(rows).toEqual([[true, true, true, true, false, true, true, false, true, false, null]]);
    // In WHERE it keeps the rows that have the member (it matched none before).
    const matched = await run(
      `select j from (values '{"a":1}', '{"b":1}') t(j) where json_exists(j, 'lax $.a')`,
    );
    expect(matched.rows).toEqual([['{"a":1}']]);
  });

  // json_query returns the one item found, a scalar too ('"nice"' in the docs' KEEP QUOTES example);
  // WITH ARRAY WRAPPER the items as an array, CONDITIONAL unless one array or object; json_value's
  // RETURNING converts its text. Nothing found, or an error, is NULL (the default ON EMPTY and ON ERROR).
  it('json_query wraps items as Trino does and json_value returns the type asked for', async () => {
    const { rows } = await run(
      `select json_query('{"a":"x"}', 'lax $.a' WITH ARRAY WRAPPER), json_query('{"a":{"b":1}}', 'lax $.a' WITH ARRAY WRAPPER),
        json_query('{"a":[1,2]}', 'lax $.a[*]' WITH ARRAY WRAPPER), json_query('{"a":[1,2]}', 'lax $.a' WITH CONDITIONAL ARRAY WRAPPER),
        json_query('{"a":"x"}', 'lax $.a' WITH CONDITIONAL ARRAY WRAPPER), json_query('{"a":"x"}', 'strict $.a'),
        json_query('{"a":"x"}', 'lax $.a' OMIT QUOTES), json_query('{"a":[1,2]}', 'lax $.a[*]'), json_query('{"a":[2]}', 'lax $.a[*]'),
        json_query('{"a":1}', 'lax $.b' WITH ARRAY WRAPPER), json_query('not json', 'lax $')`,
    );
    expect(rows).toEqual([
      ['["x"]', '[{"b":1}]', '[1,2]', '[1,2]', '["x"]', '"x"', 'x', null, '2', null, null],
    ]);
    const values = await run(
      `select json_value('{"a":1}', 'lax $.a' RETURNING bigint), typeof(json_value('{"a":1}', 'lax $.a' RETURNING bigint)),
        json_value('{"a":1}', 'lax $.a'), json_value('{"a":"x"}', 'lax $.a' RETURNING bigint), json_value('{"a":{"b":1}}', 'lax $.a'),
        json_value('{"a":null}', 'lax $.a'), json_value('{"a":true}', 'strict $.a' RETURNING boolean),
        json_value('{"a":[1,2]}', 'lax $.a[last]' NULL ON ERROR)`,
    );
    expect(values.rows).toEqual([['1', 'bigint', '1', null, null, null, true, '2']]);
  });

  it('refuses the ON EMPTY and ON ERROR clauses the parser cannot read, saying what to write', async () => {
    const error = await failure(`select json_value('{"a":[1]}', 'lax $.b' DEFAULT 'none' ON EMPTY)`);
    expect(error.kind).toBe('unsupported');
    expect(error.message).toBe(
      "json_value: the local engine cannot read DEFAULT 'none' ON EMPTY (it reads RETURNING, the ARRAY WRAPPER and QUOTES options and NULL ON ERROR); leave it out: where nothing is found or it fails, json_value is NULL, so coalesce(json_value(…), <default>) gives a default. (line 1, column 42)",
    );
    expect((await failure(`select json_exists('1', 'lax $' TRUE ON ERROR)`)).message).toMatch(
      /^json_exists: the local engine cannot read TRUE ON ERROR .* json_exists is false/,
    );
    expect((await failure(`select json_query('1', 'lax $' ERROR ON ERROR)`)).message).toMatch(
      /^json_query: ERROR ON ERROR is not supported on the local engine/,
    );
  });

  it('refuses a path DuckDB cannot read, naming it, instead of answering false', async () => {
    const error = await failure(`select 1,\n  json_exists('{"a":1}', 'lax $.a?(@ > 1)')`);
    expect(error.kind).toBe('unsupported');
    expect(error.message).toMatch(
      /json_exists: the local engine reads JSON paths .*"lax \$\.a\?\(@ > 1\)".*line 2, column 3/,
    );
  });
});
