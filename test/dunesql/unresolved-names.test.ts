import { describe, expect, it } from 'vitest';
import { athenaTableSchemas } from '../../functions/aws/catalog/glue-tables';
import { BASE_TABLES } from '../../functions/datasets/base-tables';
import { DuneSqlError, listedTables, type TableSchema, translate } from '../../functions/dunesql';

const TARGETS = ['duckdb', 'athena'] as const;
/** What both engines translate with: the public tables, typed, and the catalog of readable tables. */
const TABLES = athenaTableSchemas(BASE_TABLES);
const VIEW: TableSchema = {
  schema: 'alice',
  name: 'result_daily',
  columns: [
    { name: 'day', type: 'timestamp(3)' },
    { name: 'volume_usd', type: 'double' },
  ],
};
const CATALOG = listedTables(BASE_TABLES, [{ catalog: 'mv', ...VIEW }]);

const translateFor = (sql: string, target: (typeof TARGETS)[number]) =>
  translate(sql, target, {
    tables: target === 'duckdb' ? [...TABLES, VIEW] : TABLES,
    catalog: CATALOG,
    ...(target === 'duckdb'
      ? { storedTypes: [VIEW] }
      : {
          relations: [
            { catalog: 'mv', ...VIEW, table: { database: 'views', name: 'alice_result_daily_v1' } },
          ],
        }),
  });

const refusal = (sql: string, target: (typeof TARGETS)[number]) =>
  translateFor(sql, target).then(
    () => undefined,
    (error: unknown) => error as DuneSqlError,
  );

describe('tables and columns that do not exist', () => {
  it.each([
    [
      'select count(*) as n\nfrom dex.trade',
      /^Table 'dex\.trade' does not exist\. Did you mean dex\.trades\? SHOW TABLES FROM dex lists its tables; searchTables finds tables by keyword\. \(line/,
      2,
      6,
    ],
    [
      'select * from trades',
      /^Table 'trades' does not exist: public tables are named with their schema\. Did you mean dex\.trades\?/,
      1,
      15,
    ],
    [
      'select * from dex_ethereum.trades',
      /^Schema 'dex_ethereum' does not exist\. Did you mean dex\.trades\? SHOW SCHEMAS lists the schemas/,
      1,
      15,
    ],
    [
      'select amount_usd2, blockchain from dex.trades',
      /^Column 'amount_usd2' cannot be resolved\. Did you mean amount_usd\? DESCRIBE dex\.trades lists its columns\. \(line/,
      1,
      8,
    ],
    [
      'select t.amount\nfrom dex.trades t join prices.usd p on p.contract_address = t.token_bought_address',
      /^Column 't\.amount' cannot be resolved\. Did you mean amount_usd, token_sold_amount or token_bought_amount\? DESCRIBE dex\.trades lists its columns\. \(line/,
      1,
      8,
    ],
    [
      'select d.blockchain from dex.trades d join prices.usd p on p.symbol = d.symbol',
      /^Column 'd\.symbol' cannot be resolved\. Did you mean token_sold_symbol or token_bought_symbol\?/,
      1,
      71,
    ],
    [
      "select blockchain from dex.trades\nwhere block_day > date '2026-01-01'",
      /^Column 'block_day' cannot be resolved\. Did you mean block_date\?/,
      2,
      7,
    ],
    [
      'select blockchain, count(*) as n from dex.trades group by blockchain having max(amount) > 1',
      /^Column 'amount' cannot be resolved\./,
      1,
      81,
    ],
    [
      'select number from ethereum.blocks b\nwhere exists (select 1 from ethereum.transactions t where t.block_number = b.number and value2 > 0)',
      /^Column 'value2' cannot be resolved\. Did you mean value\?/,
      2,
      89,
    ],
    [
      'select volume from mv.alice.result_daily',
      /^Column 'volume' cannot be resolved\. Did you mean volume_usd\? DESCRIBE mv\.alice\.result_daily lists its columns\. \(line/,
      1,
      8,
    ],
    [
      'with c as (select 1 as total) select totl from c',
      /^Column 'totl' cannot be resolved\. Did you mean total\? \(line/,
      1,
      38,
    ],
    // No name is close to one letter that differs from every other.
    ['select z from (select 1 as a union all select 2) u', /^Column 'z' cannot be resolved\. \(line/, 1, 8],
  ])(
    "%j is refused on both hosts, in Trino's words, with the closest names",
    async (sql, message, line, column) => {
      for (const target of TARGETS) {
        const error = await refusal(sql, target);
        expect(error, target).toBeInstanceOf(DuneSqlError);
        expect(error!.kind, target).toBe('unresolved');
        expect(error!.message, target).toMatch(message);
        expect(error!.position, target).toEqual({ line, column });
      }
    },
  );

  // Where a FROM item's columns are not known, or a name may be something else, the engine decides.
  it.each([
    'select Block_Number, "hash" from ETHEREUM.Transactions',
    'select hash from delta_prod.ethereum.transactions',
    'select * from dex.trades a join dex.trades b using (tx_hash)',
    'select number from ethereum.blocks natural join ethereum.transactions',
    'select blockchain, count(*) as n from dex.trades group by rollup(blockchain)',
    'select blockchain, project, count(*) as n from dex.trades group by grouping sets ((blockchain), (project))',
    'select row_number() over (partition by blockchain order by block_time) as r from dex.trades',
    'select blockchain, count(*) filter (where amount_usd > 100) as big from dex.trades group by 1',
    'select transform(array[1, 2], x -> x + 1) as t',
    "select * from dex.trades t where t.block_time > now() - interval '1' day",
    'select (select max(number) from ethereum.blocks) as m',
    'select tx_hash from dex.trades where tx_hash in (select hash from ethereum.transactions)',
    'with c (a, b) as (select 1, 2) select a, b from c',
    'select t.r.a from (select cast(row(1) as row(a integer)) as r) t',
    'select r.a from (select cast(row(1) as row(a integer)) as r)',
    'select tx_hash from (select * from dex.trades)',
    'select x from dex.trades cross join unnest(array[1]) as u (x)',
    'select nope from dex.trades cross join unnest(array[1]) as u (x)',
    'select * from dex.trades t, lateral (select t.amount_usd * 2 as twice)',
    "select table_name from information_schema.columns where column_name = 'x'",
    "select date_trunc('day', block_time) as day, count(*) as n from dex.trades group by 1 order by day",
    'select b.number, count(t.hash) as n from ethereum.blocks b left join ethereum.transactions t on t.block_number = b.number group by 1',
    "select extract(year from current_date) as y, position('a' in 'abc') as p, trim(both ' ' from ' a ') as t",
    'select day, volume_usd from mv.alice.result_daily',
    'select symbol from mv.alice.result_nope',
  ])('%s is left to the engine', async (sql) => {
    for (const target of TARGETS) {
      const error = await refusal(sql, target);
      expect(error?.kind, `${target}: ${error?.message}`).not.toBe('unresolved');
    }
  });

  it('checks tables only against a catalog: without one, the engine decides', async () => {
    await expect(translate('select * from dex.trade', 'duckdb')).resolves.toBeDefined();
  });
});
