import { describe, expect, it } from 'vitest';
import { DuneSqlError, translate } from '../../functions/dunesql';
import { isDuneSqlFunction } from '../../functions/dunesql/function-names';
import { FOREIGN_FUNCTIONS } from '../../functions/dunesql/other-dialects';

async function refusal(sql: string, target: 'duckdb' | 'athena'): Promise<DuneSqlError> {
  const error = await translate(sql, target).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${sql} translated for ${target}`).toBeInstanceOf(DuneSqlError);
  return error as DuneSqlError;
}

/**
 * Forms of MySQL, Postgres, DuckDB, BigQuery or Spark SQL that polyglot parses and DuckDB runs, but
 * Trino (Athena, Dune) refuses: each is refused on both hosts, at the construct, with what to write.
 */
describe("other dialects' forms are not DuneSQL", () => {
  it.each([
    [
      'select count(*) from dex.trades where block_time > now() - interval 7 day',
      "interval's value as a string: interval '7' day",
      60,
    ],
    ["select now() - interval '7 days'", "value and unit apart: interval '7' day", 16],
    ["select now() - interval '2' hours", "unit in the singular: interval '2' hour", 16],
    ['select amount_usd::varchar from dex.trades', 'no :: cast: write cast(x as varchar)', 18],
    ["select count(*) from dex.trades where project ilike 'UNI%'", 'no ILIKE', 47],
    ['select `project` from dex.trades', 'write "project" (double quotes)', 8],
    ['select project from dex.trades limit 2 offset 1', 'OFFSET before LIMIT: … OFFSET 1 LIMIT 2', 40],
    ['select top 3 project from dex.trades', 'no SELECT TOP: write LIMIT 3', 8],
    ['select blockchain, count(*) from dex.trades group by all', 'no GROUP BY ALL', 54],
    ['select * exclude (amount_usd) from dex.trades', 'no SELECT * EXCLUDE', 10],
    ['select t.* replace (1 as x) from dex.trades t', 'no SELECT * REPLACE', 12],
    ['select 7 // 2', 'no // operator', 10],
    ['from dex.trades select project', 'starts with SELECT', 1],
    ["select {'a': 1}", 'no { } literals', 8],
    ['select [1, 2, 3]', 'array[1, 2, 3], not [1, 2, 3]', 8],
    ['select x from (values 1) t(x) where x in [1, 2]', 'array[1, 2, 3], not [1, 2, 3]', 42],
    [
      'select project from dex.trades order by amount_usd desc limit 1 with ties',
      'FETCH FIRST 1 ROWS WITH TIES',
      65,
    ],
    ['select cast(amount_usd as int64) from dex.trades', 'int64 is not a DuneSQL type: write bigint', 27],
    ['select try_cast(round(amount_usd, 2) as string) from dex.trades', 'write varchar', 41],
    [
      "select strftime(block_time, '%Y') from dex.trades",
      "strftime() is not a DuneSQL function: write date_format(x, '%Y-%m-%d')",
      8,
    ],
    ['select len(project) from dex.trades', 'len() is not a DuneSQL function: write length(s)', 8],
    ["select string_agg(project, ',') from dex.trades", 'write array_join(array_agg(x)', 8],
    ['select median(amount_usd) from dex.trades', 'approx_percentile(x, 0.5)', 8],
    ['select ifnull(amount_usd, 0) from dex.trades', 'coalesce(x, y)', 8],
    // DuckDB's list functions, which its habits bring (and the local engine would run).
    ['select list_value(1, 2)', 'list_value() is not a DuneSQL function: write array[1, 2, 3]', 8],
    ['select 1 + array_append(array[1], 2)[1]', 'concat(array, array[x]) or array || x', 12],
    ["select list_extract(split('a,b', ','), 1)", 'element_at(array, i) or array[i] (counted from 1)', 8],
    ['select * from generate_series(1, 3)', 'unnest(sequence(1, 10))', 15],
    [
      "select datediff('day', min(block_time), max(block_time)) from dex.trades",
      "date_diff('day', start, end)",
      8,
    ],
    // PostgreSQL's and DuckDB's unnest() in a select list (it crashed the DuckDB translation).
    [
      'select -unnest(x) as y from (values (array[1, 2])) t(x)',
      'UNNEST is not a function in DuneSQL: it turns an array into rows in FROM',
      9,
    ],
    // Trino's grammar has no trailing comma in a list ("mismatched input 'from'"), nor MySQL's
    // LIMIT offset, count, nor ** and == (trino.io/docs/current/sql/select.html; functions/comparison, math).
    [
      'select block_time, from dex.trades limit 2',
      'no comma after its last item: remove the comma before FROM',
      18,
    ],
    ['select project from dex.trades group by 1, order by 1', 'remove the comma before ORDER', 42],
    ['select coalesce(amount_usd, 0,) from dex.trades', 'remove the comma before ")"', 30],
    ['select project from dex.trades limit 0, 5', 'no LIMIT offset, count: write … OFFSET 0 LIMIT 5', 39],
    [
      'select iff(amount_usd > 0, 1, 0) from dex.trades',
      'iff() is not a DuneSQL function: write if(condition, a, b)',
      8,
    ],
    ['select 2 ** 3', 'no ** operator: write power(2, 3)', 10],
    ['select 1 from dex.trades where 1 == 1', 'compares with a single =: write 1 = 1', 34],
    // Before a syntax error: the other dialect's form is why, so it is what the message names.
    ['select x::int from t where', 'no :: cast', 9],
    [
      'select blockchain, amount_usd from dex.trades qualify row_number() over (partition by blockchain order by amount_usd desc) = 1',
      'no QUALIFY: compute the window function in a subquery',
      47,
    ],
  ])('%s', async (sql, message, column) => {
    for (const target of ['duckdb', 'athena'] as const) {
      const error = await refusal(sql, target);
      expect(error.kind).toBe('syntax');
      expect(error.message).toContain(message);
      expect(error.position).toEqual({ line: 1, column });
    }
  });

  it("names only other dialects' functions, and only DuneSQL functions in what to write instead", () => {
    const foreign = Object.keys(FOREIGN_FUNCTIONS);
    // FIRST and LAST are Trino's only as MATCH_RECOGNIZE's navigation (refused anywhere else).
    expect(foreign.filter(isDuneSqlFunction)).toEqual(['first', 'last']);
    const suggested = Object.values(FOREIGN_FUNCTIONS).flatMap((advice) =>
      [...advice.matchAll(/([a-z_][a-z0-9_]*)\(/g)].map((call) => call[1]!),
    );
    // `row(…)` builds a row value and `array[…]` an array; both are syntax, not calls.
    expect(suggested.filter((name) => name !== 'row' && !isDuneSqlFunction(name))).toEqual([]);
  });

  it('positions the construct in the SQL as written, past comments, multi-byte text and 0x literals', async () => {
    const sql = "-- a comment\nselect 'é', 0xab,\n  len(project) from dex.trades";
    expect((await refusal(sql, 'duckdb')).position).toEqual({ line: 3, column: 3 });
  });

  it.each([
    // Trino's own forms these must not be mistaken for.
    "select now() - interval '7' day, interval '1 00:00:00' day to second, interval '2' month",
    'select project from dex.trades order by amount_usd offset 1 limit 2',
    'select project from dex.trades order by amount_usd fetch first 1 rows with ties',
    'select blockchain, project, count(*) from dex.trades group by all blockchain, project',
    "select array[1, 2][1], map(array['k'], array[1])['k'], X'0102', 0xab, uint256 '5'",
    "select 2 * replace('3', 'x', '') as n",
    'with list (n) as (select 1) select n from list',
    'select u.first, u.left from (values (1, 2)) as u(first, left)',
    // LIMIT, OFFSET and WINDOW are not reserved in Trino: a column may be called so.
    'select x, offset from (values (1, 2)) as t(x, offset)',
    // Dune's own varchar utilities, written as Dune's docs do (LEFT is a keyword).
    `select "left"('123456', 2), "right"('123456', 2)`,
    "select cast(amount_usd as varchar), try_cast('1' as bigint) from dex.trades",
    "select date_add('day', -7, now()), date_diff('day', now(), now()), length('x'), coalesce(1, 2)",
    'select "project", listagg(project, \',\') within group (order by project) from dex.trades group by 1',
    // A column may be called qualify.
    'select qualify from (values 1) as t(qualify)',
    // Trino's UNNEST in FROM, and its TABLE t query (polyglot parses neither TABLE form).
    'select u.v from (values (array[1, 2])) t(x) cross join unnest(x) as u(v)',
    'select count(*) from dex.trades where blockchain in (table dex.trades_chains)',
    'with c as (select 1 as n) table c union all table c',
    'TABLE dex.trades',
    // `/*+ … */` is a comment in Trino (polyglot read it as an optimizer hint and refused it).
    'select count(*) from dex.trades t join dex.trades u on t.tx_hash /*+ same tx */ = u.tx_hash',
  ])('%s still translates', async (sql) => {
    await expect(translate(sql, 'duckdb')).resolves.toMatchObject({ target: 'duckdb' });
    await expect(translate(sql, 'athena')).resolves.toMatchObject({ target: 'athena' });
  });

  it("leaves FIRST and LAST to MATCH_RECOGNIZE, where they are Trino's (Athena runs it)", async () => {
    const sql = `select * from dex.trades match_recognize (
      order by block_time measures first(a.amount_usd) as opening, last(a.amount_usd) as closing
      pattern (a+) define a as a.amount_usd > 0)`;
    const refused = await translate(sql, 'athena').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String(refused ?? '')).not.toMatch(/is not a DuneSQL function/);
  });
});
