import { describe, expect, it } from 'vitest';
import type { FilterExpression } from '../../functions/core/engine';
import { BadRequestError } from '../../functions/core/errors';
import { checkFilterLiteral, intervalMillis } from '../../functions/core/filter-literals';
import {
  MAX_FILTER_DEPTH,
  MAX_FILTER_LENGTH,
  parseColumns,
  parseResultFilter,
  parseSortBy,
} from '../../functions/core/result-filter';
import type { ValueKind } from '../../functions/core/sql-types';

const compare = (column: string, operator: string, value: string | number) => ({
  kind: 'compare',
  column,
  operator,
  value,
});

function rejection(parse: () => unknown): BadRequestError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error('expected a BadRequestError');
}

describe('parseResultFilter accepts the Dune filter grammar', () => {
  it.each(['=', '!=', '<>', '<', '<=', '>', '>='])('compares a column with a number using %s', (operator) => {
    expect(parseResultFilter(`amount_usd ${operator} 1000`)).toEqual(compare('amount_usd', operator, 1000));
  });

  it('compares with a string literal, dates included', () => {
    expect(parseResultFilter("block_time > '2024-03-05'")).toEqual(compare('block_time', '>', '2024-03-05'));
  });

  it.each([
    ['-5', -5],
    ['1.25', 1.25],
    ['.5', 0.5],
    ['1e6', 1_000_000],
    ['-2.5E-3', -0.0025],
    ['0', 0],
  ])('reads the number %s', (text, value) => {
    expect(parseResultFilter(`x >= ${text}`)).toEqual(compare('x', '>=', value));
  });

  it("unescapes '' inside strings and allows the empty string", () => {
    expect(parseResultFilter("name = 'O''Brien'")).toEqual(compare('name', '=', "O'Brien"));
    expect(parseResultFilter("name = ''")).toEqual(compare('name', '=', ''));
    expect(parseResultFilter("name = 'a AND b OR (c)'")).toEqual(compare('name', '=', 'a AND b OR (c)'));
  });

  it('reads double-quoted column names with "" escaping', () => {
    expect(parseResultFilter('"weird col" = 1')).toEqual(compare('weird col', '=', 1));
    expect(parseResultFilter('"say ""hi""" = 1')).toEqual(compare('say "hi"', '=', 1));
    expect(parseResultFilter('"select" = 1')).toEqual(compare('select', '=', 1));
  });

  it('reads LIKE with a quoted pattern', () => {
    expect(parseResultFilter("project LIKE 'uniswap%'")).toEqual({
      kind: 'like',
      column: 'project',
      pattern: 'uniswap%',
    });
  });

  it('reads IN lists of strings and numbers', () => {
    expect(parseResultFilter("project IN ('uniswap', 'curve', 3, -1.5)")).toEqual({
      kind: 'in',
      column: 'project',
      values: ['uniswap', 'curve', 3, -1.5],
    });
    expect(parseResultFilter('x in (1)')).toEqual({ kind: 'in', column: 'x', values: [1] });
  });

  it('reads IS NULL and IS NOT NULL', () => {
    expect(parseResultFilter('taker IS NULL')).toEqual({ kind: 'null', column: 'taker', negated: false });
    expect(parseResultFilter('taker is not null')).toEqual({ kind: 'null', column: 'taker', negated: true });
  });

  it('binds AND tighter than OR', () => {
    expect(parseResultFilter('a = 1 OR b = 2 AND c = 3')).toEqual({
      kind: 'or',
      left: compare('a', '=', 1),
      right: { kind: 'and', left: compare('b', '=', 2), right: compare('c', '=', 3) },
    });
  });

  it('lets parentheses override precedence', () => {
    expect(parseResultFilter('(a = 1 OR b = 2) AND c = 3')).toEqual({
      kind: 'and',
      left: { kind: 'or', left: compare('a', '=', 1), right: compare('b', '=', 2) },
      right: compare('c', '=', 3),
    });
  });

  it('chains AND left to right', () => {
    const parsed = parseResultFilter('a=1 AND b=2 AND c=3') as Extract<
      FilterExpression,
      { kind: 'and' | 'or' }
    >;
    expect(parsed.kind).toBe('and');
    expect(parsed.right).toEqual(compare('c', '=', 3));
    expect(parsed.left).toEqual({ kind: 'and', left: compare('a', '=', 1), right: compare('b', '=', 2) });
  });

  it('treats keywords case-insensitively and tolerates any whitespace', () => {
    expect(parseResultFilter("a=1\n\tAnD b LiKe 'x%'  oR  c Is NoT nUlL")).toEqual({
      kind: 'or',
      left: { kind: 'and', left: compare('a', '=', 1), right: { kind: 'like', column: 'b', pattern: 'x%' } },
      right: { kind: 'null', column: 'c', negated: true },
    });
  });

  it(`accepts nesting up to ${MAX_FILTER_DEPTH} parentheses`, () => {
    const nested = `${'('.repeat(MAX_FILTER_DEPTH)}a = 1${')'.repeat(MAX_FILTER_DEPTH)}`;
    expect(parseResultFilter(nested)).toEqual(compare('a', '=', 1));
  });

  it(`accepts input of exactly ${MAX_FILTER_LENGTH} characters`, () => {
    const text = `name = '${'x'.repeat(MAX_FILTER_LENGTH - 9)}'`;
    expect(text).toHaveLength(MAX_FILTER_LENGTH);
    expect(parseResultFilter(text)).toMatchObject({ kind: 'compare', column: 'name' });
  });
});

describe('parseResultFilter rejects everything else with the problem and its position', () => {
  it('names a function call and its position', () => {
    expect(rejection(() => parseResultFilter("lower(project) = 'x'")).message).toBe(
      'filters: unexpected "(" at position 6; functions are not allowed — compare a column with a literal, e.g. block_time > \'2024-03-05\'',
    );
    expect(rejection(() => parseResultFilter("block_time > now() - interval '1' day")).message).toMatch(
      /^filters: unexpected "\(" at position 17; functions are not allowed/,
    );
  });

  it.each([
    ['NOT a = 1', /NOT is not allowed \(position 1\)/],
    ['a NOT IN (1, 2)', /NOT IN is not allowed \(position 3\)/],
    ["a NOT LIKE 'x%'", /NOT LIKE is not allowed \(position 3\)/],
    ['a = 1 AND NOT b = 2', /NOT is not allowed \(position 11\)/],
  ])('rejects NOT: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it.each([
    ['a + 1 = 2', /unexpected "\+" at position 3; expressions are not allowed/],
    ['a = 1 + 2', /unexpected "\+" at position 7; expressions are not allowed/],
    ['a = 5 - 3', /unexpected "-" at position 7; expressions are not allowed/],
    ['a = 5-3', /unexpected "-" at position 6; expressions are not allowed/],
    ['a * 2 > 1', /unexpected "\*" at position 3; expressions are not allowed/],
    ["a || 'x' = 'y'", /unexpected "\|" at position 3; expressions are not allowed/],
    ['a = (1)', /unexpected "\(" at position 5; expressions are not allowed/],
    ["block_time > interval '1' day", /INTERVAL at position 14 is not allowed/],
    ["block_time > timestamp '2024-01-01'", /TIMESTAMP at position 14 is not allowed/],
  ])('rejects expressions: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it.each([
    ['a IN (SELECT x FROM t)', /subqueries are not allowed \(SELECT at position 7\)/],
    ['(SELECT 1) = 1', /subqueries are not allowed \(SELECT at position 2\)/],
    ['a = (SELECT 1)', /subqueries are not allowed \(SELECT at position 6\)/],
    ['EXISTS (SELECT 1)', /EXISTS is not allowed \(position 1\)/],
  ])('rejects subqueries: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it.each([
    ["name = 'abc", /unterminated string starting at position 8/],
    ['"weird col = 1', /unterminated quoted column name starting at position 1/],
    ['"" = 1', /empty column name "" at position 1/],
  ])('rejects unterminated quotes: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it.each([
    ['a = 1 b', /unexpected "b" at position 7; expected AND, OR or the end/],
    ['a = 1; DROP TABLE t', /unexpected ";" at position 6/],
    ['a = 1)', /unexpected "\)" at position 6; it closes no "\("/],
    ["a = 1 'x'", /unexpected string 'x' at position 7/],
    ['a = 1 AND', /unexpected end of the expression; expected a column name/],
    ['(a = 1', /missing "\)" for the "\(" at position 1/],
    ['(a = 1 b', /unexpected "b" at position 8; expected AND, OR or "\)"/],
    ['a IN (1, 2', /missing "\)" for the IN list at position 6/],
    ['a IN ()', /expected a literal/],
    ['a IN 1', /expected "\(" after IN/],
    ['a', /unexpected end of the expression; expected an operator/],
    ['a == 1', /unexpected "==" at position 3; use = to compare/],
    ['a ! 1', /unexpected "!" at position 3/],
    ['a BETWEEN 1 AND 2', /BETWEEN is not supported \(position 3\)/],
    ["a ILIKE 'x'", /ILIKE is not supported/],
    ['t.a = 1', /unexpected "\." at position 2; column names are not qualified/],
    ['a IS 1', /expected NULL or NOT NULL after IS/],
    ['a IS NOT 1', /expected NULL after IS NOT/],
    ['1abc = 1', /malformed number "1a" at position 1/],
  ])('rejects malformed or trailing input: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it.each([
    ['a = b', /found "b"; comparing two columns is not allowed/],
    ['a = "b"', /found column "b"; string literals use single quotes/],
    ["'x' = a", /expected a column name at position 1, found string 'x'; put the column first/],
    ['5 < a', /expected a column name at position 1, found "5"/],
    ['a = NULL', /NULL is not a comparable literal \(position 5\); use IS NULL or IS NOT NULL/],
    ['success = true', /write booleans as strings, e.g. success = 'true'/],
    ['a LIKE 5', /expected a quoted pattern after LIKE/],
    ['select = 1', /subqueries are not allowed/],
    ['and = 1', /found keyword AND; double-quote a column with that name/],
    ['tx_hash = 0xabc', /unquoted hex literal at position 11; quote it as a string/],
  ])('rejects non-literal operands: %s', (text, message) => {
    expect(rejection(() => parseResultFilter(text)).message).toMatch(message);
  });

  it('rejects empty input', () => {
    expect(rejection(() => parseResultFilter('')).message).toMatch(/^filters: empty expression/);
    expect(rejection(() => parseResultFilter('  \n ')).message).toMatch(/^filters: empty expression/);
  });

  it(`rejects input longer than ${MAX_FILTER_LENGTH} characters`, () => {
    const text = `name = '${'x'.repeat(MAX_FILTER_LENGTH)}'`;
    expect(rejection(() => parseResultFilter(text)).message).toBe(
      `filters: too long (${text.length} characters; at most ${MAX_FILTER_LENGTH})`,
    );
  });

  it(`rejects nesting deeper than ${MAX_FILTER_DEPTH} parentheses`, () => {
    const depth = MAX_FILTER_DEPTH + 1;
    const nested = `${'('.repeat(depth)}a = 1${')'.repeat(depth)}`;
    expect(rejection(() => parseResultFilter(nested)).message).toBe(
      `filters: nesting deeper than ${MAX_FILTER_DEPTH} parentheses at position ${depth}`,
    );
  });
});

describe('parseSortBy', () => {
  it('reads columns with optional directions, asc by default', () => {
    expect(parseSortBy('amount_usd desc, block_time')).toEqual([
      { column: 'amount_usd', direction: 'desc' },
      { column: 'block_time', direction: 'asc' },
    ]);
    expect(parseSortBy('a ASC,"weird col" DESC')).toEqual([
      { column: 'a', direction: 'asc' },
      { column: 'weird col', direction: 'desc' },
    ]);
  });

  it.each([
    ['', /^sort_by: empty/],
    ['a,', /expected a column name after ","/],
    ['a, ,b', /unexpected "," at position 4; expected a column name/],
    ['lower(a)', /unexpected "\(" at position 6; functions are not allowed/],
    ['a desc nulls first', /NULLS FIRST\/LAST is not supported \(position 8\)/],
    ['a sideways', /unexpected "sideways" at position 3; expected ASC, DESC, "," or the end/],
    ['1', /expected a column name/],
    [`a${' '.repeat(MAX_FILTER_LENGTH)}`, /too long/],
  ])('rejects %j', (text, message) => {
    expect(rejection(() => parseSortBy(text)).message).toMatch(message);
  });
});

describe('parseColumns', () => {
  it('reads comma-separated names, spaces around them ignored', () => {
    expect(parseColumns('project,block_time,amount_usd')).toEqual(['project', 'block_time', 'amount_usd']);
    expect(parseColumns(' a , b ')).toEqual(['a', 'b']);
  });

  it('reads double-quoted names with special characters', () => {
    expect(parseColumns('"amount (usd)",project,"a,b","say ""hi"""')).toEqual([
      'amount (usd)',
      'project',
      'a,b',
      'say "hi"',
    ]);
  });

  it.each([
    ['', /^columns: empty/],
    ['a,,b', /empty column name at position 3/],
    ['a,', /empty column name at position 3/],
    ['amount usd', /column name "amount usd" at position 1 has special characters; double-quote it/],
    ['"a', /unterminated quoted column name starting at position 1/],
    ['"a"b', /unexpected "b" at position 4; expected ","/],
    ['a"b"', /quote the whole column name/],
    ['""', /empty column name ""/],
  ])('rejects %j', (text, message) => {
    expect(rejection(() => parseColumns(text)).message).toMatch(message);
  });
});

describe('checkFilterLiteral: which literals a column of each type takes (the same on both hosts)', () => {
  const check =
    (type: string, kind: ValueKind, value: string | number, name = 'c') =>
    () =>
      checkFilterLiteral({ name, type }, kind, value);

  it.each<[string, ValueKind, (string | number)[]]>([
    [
      'bigint',
      'integer',
      [42, -1.5, '42', ' 42 ', '+7', '1.5', '.5', '5.', '1e3', '-12345678901234567890123'],
    ],
    ['decimal(38,0)', 'integer', ['100000000000000000000']],
    ['UHUGEINT', 'integer', ['340282366920938463463374607431768211455']],
    ['double', 'number', [1.5, '1.5', '-2e-3', 'NaN', 'Infinity', '-inf']],
    ['decimal(10,2)', 'number', ['0.1', 3]],
    ['boolean', 'boolean', ['true', 'FALSE', '1', '0', 1, 0]],
    ['date', 'date', ['2024-03-05', '2024-02-29', ' 2024-03-05 ', '2024-03-05 12:00:00']],
    [
      'timestamp(3)',
      'timestamp',
      [
        '2024-03-05',
        '2024-03-05 12:00',
        '2024-03-05 12:00:00',
        '2024-03-05T12:00:00.123456Z',
        '2024-03-05 12:00:00 UTC',
        '2024-03-05 12:00:00.000 America/New_York',
        '2024-03-05 12:00:00+02:00',
        '2024-03-05 12:00:00+0200',
      ],
    ],
    [
      'interval day to second',
      'interval',
      ['1 02:00:00.000', '-1 02:00:00', '0 00:00:01.5', '26 hours', '1 day 2h'],
    ],
    ['interval year to month', 'interval', ['1-6', '-2-0', '18 months', '1 year']],
    ['varbinary', 'binary', ['0x', '0x00AB', '0xdeadbeef']],
    ['varchar', 'text', ['anything', 42, '']],
    ['array(bigint)', 'nested', ['[1,2]', 3]],
  ])('%s takes %j', (type, kind, values) => {
    for (const value of values) expect(check(type, kind, value), String(value)).not.toThrow();
  });

  it.each<[string, ValueKind, string | number, string]>([
    ['double', 'number', 'abc', "filters: 'abc' is not a double (column c); write a number, e.g. c > 1.5"],
    ['bigint', 'integer', '', "filters: '' is not a bigint (column c); write a number, e.g. c > 100"],
    ['bigint', 'integer', 'NaN', "filters: 'NaN' is not a bigint (column c); write a number, e.g. c > 100"],
    ['bigint', 'integer', '0x10', "filters: '0x10' is not a bigint (column c); write a number, e.g. c > 100"],
    [
      'UHUGEINT',
      'integer',
      'lots',
      "filters: 'lots' is not a uint256 (column c); write a number, e.g. c > 100",
    ],
    [
      'HUGEINT',
      'integer',
      '1_000',
      "filters: '1_000' is not an int256 (column c); write a number, e.g. c > 100",
    ],
    [
      'decimal(10,2)',
      'number',
      'Infinity',
      "filters: 'Infinity' is not a decimal(10,2) (column c); write a number, e.g. c > 1.5",
    ],
    [
      'boolean',
      'boolean',
      'yes',
      "filters: 'yes' is not a boolean (column c); write true or false in quotes, e.g. c = 'true'",
    ],
    [
      'boolean',
      'boolean',
      2,
      "filters: 2 is not a boolean (column c); write true or false in quotes, e.g. c = 'true'",
    ],
    [
      'date',
      'date',
      20240305,
      "filters: 20240305 is not a date (column c); write a date in quotes, e.g. c >= '2024-03-05'",
    ],
    [
      'DATE',
      'date',
      '2023-02-29',
      "filters: '2023-02-29' is not a date (column c); write a date in quotes, e.g. c >= '2024-03-05'",
    ],
    [
      'timestamp(3)',
      'timestamp',
      'yesterday',
      "filters: 'yesterday' is not a timestamp(3) (column c); write a timestamp or a date in quotes, e.g. c >= '2024-03-05 12:00:00'",
    ],
    [
      'TIMESTAMP',
      'timestamp',
      '2024-03-05 24:00:00',
      "filters: '2024-03-05 24:00:00' is not a timestamp(3) (column c); write a timestamp or a date in quotes, e.g. c >= '2024-03-05 12:00:00'",
    ],
    [
      'timestamp(3) with time zone',
      'timestamp',
      1709640000,
      "filters: 1709640000 is not a timestamp(3) with time zone (column c); write a timestamp or a date in quotes, e.g. c >= '2024-03-05 12:00:00'",
    ],
    [
      'INTERVAL',
      'interval',
      'soon',
      "filters: 'soon' is not an interval day to second (column c); write days hours:minutes:seconds as results show them, in quotes, e.g. c > '1 02:00:00.000' (or '26 hours')",
    ],
    [
      'interval year to month',
      'interval',
      5,
      "filters: 5 is not an interval year to month (column c); write years-months as results show them, in quotes, e.g. c >= '1-6' (or '18 months')",
    ],
    [
      'varbinary',
      'binary',
      'abc',
      "filters: 'abc' is not a varbinary (column c); write 0x and pairs of hex digits in quotes, e.g. c = '0x00ab'",
    ],
    [
      'BLOB',
      'binary',
      '0xabc',
      "filters: '0xabc' is not a varbinary (column c); write 0x and pairs of hex digits in quotes, e.g. c = '0x00ab'",
    ],
  ])('%s (%s) refuses %j', (type, kind, value, message) => {
    expect(rejection(check(type, kind, value)).message).toBe(message);
  });

  it('names the column as a filter would (double-quoted when it must be) and keeps long values short', () => {
    const message = rejection(check('double', 'number', `it's ${'x'.repeat(60)}`, 'amount (usd)')).message;
    expect(message).toBe(
      `filters: 'it''s ${'x'.repeat(32)}...' is not a double (column "amount (usd)"); write a number, e.g. "amount (usd)" > 1.5`,
    );
    expect(rejection(check('date', 'date', 'x', 'end')).message).toMatch(
      /\(column "end"\); .* e\.g\. "end" >= /,
    );
  });

  it('reads intervals as Trino writes them and as quantities with units, a month as 30 days', () => {
    expect(intervalMillis('1 02:00:00.000')).toBe(93_600_000);
    expect(intervalMillis('-0 00:00:01.5')).toBe(-1500);
    expect(intervalMillis('1-6')).toBe(18 * 30 * 86_400_000);
    expect(intervalMillis('1 day 2 hours')).toBe(93_600_000);
    expect(intervalMillis('26h')).toBe(93_600_000);
    expect(intervalMillis('1.5 min')).toBe(90_000);
    expect(intervalMillis('1 year')).toBe(360 * 86_400_000);
    for (const text of ['', '1', 'soon', '2 fortnights', '1 day,', '+2 hours'])
      expect(intervalMillis(text), text).toBeUndefined();
  });
});
