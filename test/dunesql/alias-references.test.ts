import { describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { DuneSqlError, translate } from '../../functions/dunesql';

/** The base tables with their columns, as the local engine translates with them. */
const tables = athenaTableSchemas(BASE_TABLES);

/**
 * Trino reads WHERE, GROUP BY, HAVING and the select list against FROM's columns only; DuckDB falls
 * back to the select list's aliases. The local host refuses what Athena and Dune refuse.
 */
describe("select-list aliases where Trino reads only FROM's columns", () => {
  it.each([
    [
      "select date_trunc('day', block_time) as day, count(*) as trades from dex.trades group by day",
      "Column 'day' cannot be resolved: GROUP BY reads the columns of FROM, not the select list's aliases (DuneSQL is Trino). Write GROUP BY 1",
      90,
    ],
    [
      'select blockchain as chain, count(*) as n from dex.trades group by 1 having n > 10',
      "Column 'n' cannot be resolved: HAVING",
      77,
    ],
    [
      'select amount_usd * 2 as doubled from dex.trades where doubled > 100',
      "Column 'doubled' cannot be resolved: WHERE",
      56,
    ],
    [
      'select amount_usd as usd, usd / 2 as half from dex.trades',
      "Column 'usd' cannot be resolved: a select list cannot use its own aliases",
      27,
    ],
    [
      "with d as (select block_time as t, date_trunc('day', block_time) as day from dex.trades group by day, 1) select * from d",
      "Column 'day' cannot be resolved: GROUP BY",
      98,
    ],
  ])('%s', async (sql, message, column) => {
    const error = await translate(sql, 'duckdb', { tables }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DuneSqlError);
    expect((error as DuneSqlError).message).toContain(message);
    expect((error as DuneSqlError).position).toEqual({ line: 1, column });
  });

  it.each([
    // ORDER BY may name an alias; an alias that is also a FROM column is that column.
    "select date_trunc('day', block_time) as day, count(*) as n from dex.trades group by 1 order by day, n",
    'select t.blockchain as blockchain, count(*) from dex.trades t group by blockchain',
    'select block_date, count(*) as n from dex.trades group by block_date having count(*) > 1',
    // Aliases of an inner query are the outer query's FROM columns.
    'select b, n from (select blockchain as b, count(*) as n from dex.trades group by 1) where n > 5 group by b, n',
    "with d as (select date_trunc('day', block_time) as day from dex.trades) select day, count(*) from d group by day",
    // A correlated subquery may name the enclosing query's column (dex.trades' project).
    "select (select max(symbol) as project from tokens.erc20 e where e.blockchain = 'base' and project = 'uniswap') from dex.trades",
    // A lambda's parameter is not a column, whatever the select list calls its columns.
    'select transform(array[1], x -> x + 1) as x from dex.trades',
    // FROM items whose columns are not known here: left to the engine.
    'select x as y from unnest(array[1, 2]) as t(x) group by y',
  ])('%s still translates', async (sql) => {
    await expect(translate(sql, 'duckdb', { tables })).resolves.toMatchObject({ target: 'duckdb' });
  });
});
