import { describe, expect, it } from 'vitest';
import { BadRequestError } from '../../functions/core/errors';
import { normalizeTableName } from '../../functions/core/lineage';
import { DuneSqlTableReferenceParser } from '../../functions/dunesql/table-references';

const parser = new DuneSqlTableReferenceParser();

/** The normalized names of the tables `sql` reads, in order of first appearance. */
async function tables(sql: string): Promise<string[]> {
  return (await parser.tablesReadBy(sql)).map(normalizeTableName);
}

async function rejection(sql: string): Promise<BadRequestError> {
  try {
    await parser.tablesReadBy(sql);
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestError);
    return error as BadRequestError;
  }
  throw new Error(`expected a BadRequestError for: ${sql}`);
}

describe('normalizeTableName', () => {
  it('lower-cases and joins the parts that are present', () => {
    expect(normalizeTableName({ schema: 'Dex', table: 'Trades' })).toBe('dex.trades');
    expect(normalizeTableName({ catalog: 'MV', schema: 'local', table: 'result_X' })).toBe(
      'mv.local.result_x',
    );
    expect(normalizeTableName({ table: 'T' })).toBe('t');
  });
});

describe('DuneSQL lineage parser: FROM and joins', () => {
  it('reads a plain FROM and keeps the parts and the text as written', async () => {
    expect(await parser.tablesReadBy('SELECT * FROM dex.trades')).toEqual([
      { schema: 'dex', table: 'trades', text: 'dex.trades' },
    ]);
    expect(await tables('SELECT 1 FROM trades')).toEqual(['trades']);
  });

  it.each([
    ['comma', 'SELECT * FROM a.x, b.y'],
    ['inner join', 'SELECT * FROM a.x JOIN b.y ON x.k = y.k'],
    ['left join', 'SELECT * FROM a.x LEFT JOIN b.y ON x.k = y.k'],
    ['full join', 'SELECT * FROM a.x FULL OUTER JOIN b.y ON x.k = y.k'],
    ['cross join', 'SELECT * FROM a.x CROSS JOIN b.y'],
    ['using', 'SELECT * FROM a.x JOIN b.y USING (k)'],
    ['lateral', 'SELECT * FROM a.x, LATERAL (SELECT * FROM b.y WHERE y.k = x.k)'],
  ])('reads both sides of a %s', async (_kind, sql) => {
    expect(await tables(sql)).toEqual(['a.x', 'b.y']);
  });

  it('keeps the catalog of three-part names (materialized views) and unquotes quoted identifiers', async () => {
    expect(
      await parser.tablesReadBy('select * from mv.local.result_daily join "Dex"."Trades" on true'),
    ).toEqual([
      { catalog: 'mv', schema: 'local', table: 'result_daily', text: 'mv.local.result_daily' },
      { schema: 'Dex', table: 'Trades', text: '"Dex"."Trades"' },
    ]);
  });
});

describe('subqueries and expressions', () => {
  it('reads subqueries in FROM, WHERE (IN, EXISTS, scalar), SELECT, HAVING and ORDER BY', async () => {
    const sql = `
      select (select max(price) from prices.usd) as top, t.*
      from (select * from dex.trades) t
      where t.taker in (select address from a.labels)
        and exists (select 1 from b.flags f where f.x = t.x)
      group by 1, 2 having count(*) > (select count(*) from c.mins)
      order by (select 1 from d.order_keys limit 1)`;
    expect(await tables(sql)).toEqual([
      'prices.usd',
      'dex.trades',
      'a.labels',
      'b.flags',
      'c.mins',
      'd.order_keys',
    ]);
  });

  it('reads subqueries inside CASE and function arguments; table functions and UNNEST are not tables', async () => {
    expect(
      await tables(`select case when x > 0 then (select 1 from a.t) end, coalesce((select 2 from b.t), 0)
                    from unnest(sequence(1, 3)) as u(x)`),
    ).toEqual(['a.t', 'b.t']);
    expect(await tables('select * from (values (1), (2)) as v(x)')).toEqual([]);
  });
});

describe('CTEs', () => {
  it('leaves out CTE names and reads the CTE bodies, following CTEs that read other CTEs', async () => {
    expect(
      await tables(`with a as (select * from dex.trades), b as (select * from a join prices.usd p on true)
                    select * from b`),
    ).toEqual(['dex.trades', 'prices.usd']);
  });

  it('compares CTE names case-insensitively; a qualified name is never a CTE', async () => {
    expect(await tables('with Recent as (select 1) select * from RECENT, x.recent')).toEqual(['x.recent']);
  });

  it('a CTE named like a table hides the table, but its own body reads the table', async () => {
    expect(await tables('with trades as (select * from trades) select * from trades')).toEqual(['trades']);
    expect(await tables('with t as (select 1) select * from t')).toEqual([]);
  });

  it('a recursive CTE sees itself in its own body', async () => {
    expect(
      await tables(`with recursive t(n) as (select 1 from a.seed union all select n + 1 from t where n < 3)
                    select * from t`),
    ).toEqual(['a.seed']);
  });

  it('an inner WITH shadows only inside its own query', async () => {
    expect(await tables('select * from (with x as (select 1) select * from x) s join x on true')).toEqual([
      'x',
    ]);
  });
});

describe('set operations, windows and Dune syntax', () => {
  it.each(['union', 'union all', 'intersect', 'except'])('reads both sides of %s', async (op) => {
    expect(await tables(`select k from a.x ${op} select k from b.y`)).toEqual(['a.x', 'b.y']);
  });

  it('reads window queries and varbinary literals without trouble', async () => {
    expect(
      await tables(`select block_time, sum(amount_usd) over (partition by blockchain order by block_time) as running
                    from dex.trades where taker = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2`),
    ).toEqual(['dex.trades']);
  });

  it('lists each table once, in order of first appearance, with the first text seen', async () => {
    const refs = await parser.tablesReadBy(
      'select * from b.y join A.X on true join a.x on true join b.y on true',
    );
    expect(refs.map((ref) => ref.text)).toEqual(['b.y', 'A.X']);
  });

  it('accepts a trailing semicolon and comments', async () => {
    expect(await tables('-- daily volume\nselect * /* all */ from dex.trades;')).toEqual(['dex.trades']);
  });
});

describe('the catalog', () => {
  it('is not a table: information_schema views and SHOW or DESCRIBE statements read none', async () => {
    expect(
      await tables(
        'select c.column_name from information_schema.columns c join mv.information_schema.tables t using (table_name) join dex.trades on true',
      ),
    ).toEqual(['dex.trades']);
    for (const sql of [
      'describe dex.trades',
      '-- its tables\nSHOW TABLES FROM mv.alice',
      'show schemas from dune;',
      "SHOW FUNCTIONS LIKE 'array\\_%' ESCAPE '\\'",
    ]) {
      expect(await tables(sql)).toEqual([]);
    }
    expect((await rejection('show create table dex.trades')).message).toMatch(/only a query/);
    // The public catalog's name is the public table itself.
    expect(await tables('select * from DELTA_PROD.ethereum.blocks join dex.trades on true')).toEqual([
      'ethereum.blocks',
      'dex.trades',
    ]);
  });
});

describe('SQL that cannot be read', () => {
  it('reports a syntax error with its line and column in the SQL as written', async () => {
    const error = await rejection('select *\nfrom dex.trades\nwher x = 0xab');
    expect(error.message).toMatch(/^Cannot read the query's SQL to find its tables: syntax error/);
    expect(error.message).toMatch(/\(line 3, column \d+\)$/);
  });

  it.each([
    ['empty', ''],
    ['only comments and semicolons', '-- nothing\n;;'],
    ['several statements', 'select 1; select 2'],
    ['not a query', 'insert into a.x values (1)'],
    ['a bare expression (a misspelled SELECT)', 'selec nothing'],
    ['an unterminated comment', 'select 1 /* oops'],
  ])('refuses %s', async (_case, sql) => {
    expect((await rejection(sql)).message).toMatch(/^Cannot read the query's SQL to find its tables/);
  });
});
