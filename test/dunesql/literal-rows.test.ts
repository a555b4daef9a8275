import { describe, expect, it, vi } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { type DuneSqlError, listedTables, type Translation, translate } from '../../functions/dunesql';
import { compactLiteralRows } from '../../functions/dunesql/literal-rows';
import { prepareSource } from '../../functions/dunesql/source-text';
import { DuneSqlTableReferenceParser } from '../../functions/dunesql/table-references';
import { addressList } from './large-statements';

/**
 * Long VALUES lists of literals are translated by the rows that type them (literal-rows.ts): the
 * answer must be exactly the whole list's translation, only faster. What polyglot is asked to
 * parse is recorded, to show the list was cut.
 */
const parsed = vi.hoisted(() => ({ longest: 0 }));
vi.mock('@polyglot-sql/sdk', async (importOriginal) => {
  const real = await importOriginal<typeof import('@polyglot-sql/sdk')>();
  return {
    ...real,
    parse: (sql: string, dialect?: Parameters<typeof real.parse>[1]) => {
      parsed.longest = Math.max(parsed.longest, sql.length);
      return real.parse(sql, dialect);
    },
  };
});

const OPTIONS = { tables: athenaTableSchemas(BASE_TABLES), catalog: listedTables(BASE_TABLES) };
const TARGETS = ['duckdb', 'athena'] as const;

/** n rows made by `row(i)`, comma-separated. */
const rows = (n: number, row: (i: number) => string, separator = ', ') =>
  Array.from({ length: n }, (_, i) => row(i)).join(separator);

const hex = (i: number) => `0x${(i * 7919 + 1).toString(16).padStart(40, '0')}`;

/** What a caller sees of a translation (its functions aside). */
function seen(translation: Translation) {
  const { userPosition: _position, userMessage: _message, ...rest } = translation;
  return rest;
}

async function bothWays(sql: string, target: 'duckdb' | 'athena') {
  parsed.longest = 0;
  const cut = await translate(sql, target, OPTIONS);
  const longestParsed = parsed.longest;
  const whole = await translate(sql, target, { ...OPTIONS, wholeLiteralRows: true });
  return { cut, whole, longestParsed };
}

/** Strings and numbers a generator might write differently: each must come back as written. */
const ODD_STRINGS = [
  "'a\\b'",
  "'line\ntwo'",
  "'tab\tx'",
  "'ü😀'",
  "''",
  "'--not a comment'",
  "'/* nor this */'",
];
const ODD_NUMBERS = [
  '2147483648',
  '-2147483648',
  '9223372036854775808',
  '1.50',
  '1E5',
  '-0.0',
  '1.5e+3',
  '007',
];

/** Statements with long literal lists: every kind of literal, and every place a VALUES goes. */
const LISTS: Record<string, string> = {
  'addresses, labels and ranks in a CTE': addressList(200),
  'every kind of literal': `select * from (values ${rows(
    120,
    (i) =>
      `(${hex(i)}, 'it''s ü ${i}', ${i % 7 === 0 ? 'null' : i}, ${i}.${i % 10}5, -.${i + 1}, ${i}e-3, ${
        i % 2 ? 'true' : 'FALSE'
      }, ${i % 3 ? -i * 1_000_000_000_000 : 12}, X'0a${(i % 16).toString(16)}', ${i % 5 ? 'NULL' : `'x'`}, ${
        ODD_STRINGS[i % ODD_STRINGS.length]
      }, ${ODD_NUMBERS[i % ODD_NUMBERS.length]})`,
  )}) as t(a, b, c, d, e, f, g, h, i, j, k, l)`,
  'one-column rows without parentheses, with comments between': `select count(*) as n, min(x) as lo from (values ${rows(
    100,
    (i) => hex(i),
    ', -- a wallet\n',
  )}\n) as t(x)`,
  'a statement of its own': `values ${rows(60, (i) => `(${i}, '${i}')`)}`,
  'a list in a subquery, and a second list in a union': `select x from (values ${rows(40, (i) => `(${i})`)}) as t(x)
    where x in (select y from (values ${rows(50, (i) => `${i * 2 + 500}`)}) as v(y))
    union all select x from (values ${rows(45, (i) => `(${i + 1000})`)}) as u(x)`,
  'an IN list of addresses': `select count(*) as n from tokens.transfers where "from" in (${rows(300, hex, ',\n')}) and "to" not in (${rows(
    40,
    (i) => hex(i + 1000),
  )})`,
  'an IN list of numbers and one of strings': `select * from (values ${rows(40, (i) => `(${i}, 'a${i}')`)}) as t(n, s)
    where n in (${rows(100, (i) => `${i * 3}`)}) or s in (${rows(50, (i) => `'b${i}'`)})`,
  'a list a Dune function is called on': `select bytearray_to_uint256(a) as n, upper(b) as b from (values ${rows(
    64,
    (i) => `(${hex(i)}, 'a${i}')`,
  )}) as t(a, b)`,
};

describe('long lists of literal rows', () => {
  for (const [name, sql] of Object.entries(LISTS)) {
    it.each(TARGETS)(
      `translate exactly as the whole list does, having parsed only a few rows: ${name} (%s)`,
      async (target) => {
        const { cut, whole, longestParsed } = await bothWays(sql, target);
        expect(seen(cut)).toEqual(seen(whole));
        expect(longestParsed).toBeLessThan(sql.length / 4);
      },
    );
  }

  it('keep the rows that type each column: every kind of literal, and the widest decimals', () => {
    const sql = `select * from (values ${rows(
      40,
      (i) =>
        `(${i === 7 ? 'null' : i}, ${i === 20 ? '123.4' : i === 30 ? '1.23456' : '1.5'}, ${i === 35 ? `'s'` : `'t'`})`,
    )}) as t(a, b, c)`;
    const compacted = compactLiteralRows(prepareSource(sql))!;
    expect(compacted.source.text).toBe(
      "select * from (values (0, 1.5, 't'), (null, 1.5, 't'), (20, 123.4, 't'), (30, 1.23456, 't')) as t(a, b, c)",
    );
  });

  it.each([
    ['an expression after the last row', `values ${rows(40, (i) => `${i}`)} + 1`],
    ['an expression in a row', `select * from (values ${rows(40, (i) => `(${i}, ${i} + 1)`)}) as t(a, b)`],
    [
      'rows of different lengths',
      `select * from (values ${rows(40, (i) => (i === 39 ? '(1)' : '(1, 2)'))}) as t(a, b)`,
    ],
    [
      'a typed literal',
      `select * from (values ${rows(40, (i) => `(date '2024-01-${(i % 28) + 1}')`)}) as t(a)`,
    ],
    ['a list too short to matter', `select * from (values ${rows(20, (i) => `(${i})`)}) as t(a)`],
    ['an IN list with an expression', `select 1 where 1 in (${rows(40, (i) => `${i}`)}, 1 + 1)`],
    ['an IN subquery', `select 1 where 1 in (select x from (values ${rows(10, (i) => `(${i})`)}) as t(x))`],
    [
      'the word in a string or a quoted name',
      `select 'values (1), (2)' as "values" from (values ${rows(10, (i) => `(${i})`)}) as t(a)`,
    ],
  ])('are left whole when they are not plain literal rows: %s', (_name, sql) => {
    expect(compactLiteralRows(prepareSource(sql))).toBeUndefined();
  });

  it.each(TARGETS)(
    'fail as the whole list fails, at the same place in what the user wrote (%s)',
    async (target) => {
      const sql = `with a(x) as (values ${rows(50, (i) => `(${i})`, ',\n')})\nselect x from a join dex.nosuch n on true`;
      const failure = async (options: object) =>
        translate(sql, target, { ...OPTIONS, ...options }).then(
          () => undefined,
          (error: DuneSqlError) => ({ message: error.message, position: error.position }),
        );
      const cut = await failure({});
      expect(cut).toEqual(await failure({ wholeLiteralRows: true }));
      expect(cut?.message).toMatch(/dex\.nosuch/);
      expect(cut?.position).toEqual({ line: 51, column: 22 });
    },
  );

  it.each(TARGETS)('come back twice where the same list is written twice (%s)', async (target) => {
    const list = `(${rows(40, hex)})`;
    const sql = `select count(*) as n from tokens.transfers where "from" in ${list} or "to" in ${list}`;
    const { cut, whole, longestParsed } = await bothWays(sql, target);
    expect(seen(cut)).toEqual(seen(whole));
    expect(longestParsed).toBeLessThan(sql.length / 4);
  });

  it.each(TARGETS)(
    'are translated whole where two lists keep the same rows, so where each goes back is not known (%s)',
    async (target) => {
      const sql = `select * from (values ${rows(40, (i) => `(${i})`)}) as a(x)
        join (values ${rows(40, (i) => `(${i * 2})`)}) as b(y) on x = y`;
      const { cut, whole, longestParsed } = await bothWays(sql, target);
      expect(seen(cut)).toEqual(seen(whole));
      if (target === 'duckdb') expect(longestParsed).toBe(prepareSource(sql).text.length);
    },
  );

  it('leave what the statement reads, and where it names a query view, as they are', async () => {
    const parser = new DuneSqlTableReferenceParser();
    const sql = `with a(x) as (values ${rows(50, (i) => `(${hex(i)})`, ',\n')})\nselect * from a join query_42 q on q.x = a.x join dex.trades t on t.tx_hash = a.x`;
    parsed.longest = 0;
    expect(await parser.tablesReadBy(sql)).toEqual([
      { table: 'query_42', text: 'query_42' },
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
    expect(parsed.longest).toBeLessThan(sql.length / 4);
    const [view] = await parser.queryViewsCalledBy(sql);
    expect(sql.slice(view!.start, view!.end)).toBe('query_42');
  });
});
