import { describe, expect, it } from 'vitest';
import { DuneSqlError, translate } from '../../functions/dunesql';
import { DUNESQL_CATALOG } from '../../functions/dunesql/function-catalog';
import { isDuneSqlFunction } from '../../functions/dunesql/function-names';

const refusal = (sql: string) =>
  translate(sql, 'duckdb').then(
    () => undefined,
    (error: unknown) => error as DuneSqlError,
  );

/** DuckDB would run its own functions; Athena and Dune refuse them ("Function … not registered"). */
describe('functions DuneSQL does not have', () => {
  it.each([
    ['select txid_current() as t', 'txid_current', 1, 8],
    ['select list_resize(array[1], 2) as l', 'list_resize', 1, 8],
    ['select 1 as one,\n  make_timestamp(0) as t', 'make_timestamp', 2, 3],
    ["select error('boom') as never", 'error', 1, 8],
    ["select * from read_csv('/etc/passwd')", 'read_csv', 1, 15],
    ["select * from glob('/*')", 'glob', 1, 15],
    ['select block_time from dex.trades where hash(tx_hash) > 0', 'hash', 1, 41],
  ])('%s is refused locally, naming %s where it was written', async (sql, name, line, column) => {
    const error = await refusal(sql);
    expect(error).toBeInstanceOf(DuneSqlError);
    expect(error!.kind).toBe('syntax');
    expect(error!.message).toMatch(
      new RegExp(`^Function '${name}' not registered: it is not a Trino function`),
    );
    expect(error!.message).toContain('query-engine-functions-and-operators');
    expect(error!.position).toEqual({ line, column });
  });

  it('names the closest functions it has for a misspelt one, and where to list them', async () => {
    for (const [sql, suggested] of [
      ['select approx_percentil(x, 0.5) as p from (values 1) t(x)', 'Did you mean approx_percentile?'],
      ['select bytearray_to_uint265(0x01) as n', 'Did you mean bytearray_to_uint256,'],
    ]) {
      const error = await refusal(sql!);
      expect(error!.message, sql).toContain(suggested);
      expect(error!.message, sql).toContain("SHOW FUNCTIONS LIKE '%…%'");
    }
    expect((await refusal('select txid_current() as t'))!.message).not.toContain('Did you mean');
  });

  it("says so of Dune's own functions this service does not have", async () => {
    for (const sql of [
      "select http_get('https://example.com') as body",
      'select to_tron_address(0x41) as a',
    ]) {
      const error = await refusal(sql);
      expect(error!.kind, sql).toBe('syntax');
      expect(error!.message, sql).toMatch(
        /^Function '(http_get|to_tron_address)' not registered: it is one of Dune's own functions, which this service does not have/,
      );
      expect(error!.position, sql).toEqual({ line: 1, column: 8 });
    }
  });

  it('leaves them to Athena on the Athena target (it says "not registered" itself)', async () => {
    await expect(translate('select txid_current() as t', 'athena')).resolves.toMatchObject({
      target: 'athena',
    });
  });

  it.each([
    'select row(1, 2) as r',
    'select cast(row(1, 2) as row(a integer, b integer)) as r',
    'select blockchain, project, count(*) as n from dex.trades group by rollup(blockchain, project)',
    'select blockchain, count(*) as n from dex.trades group by cube(blockchain)',
    'select blockchain, grouping(blockchain) as g from dex.trades group by grouping sets ((blockchain), ())',
    'select * from table(sequence(start => 1, stop => 3))',
    "select \"left\"('123456', 2) as l, \"right\"('123456', 2) as r, left('abc', 1) as a",
    'select current_schema as s, current_catalog as c, current_date as d, localtimestamp as t',
    "select keccak(to_utf8('a')) as k, varbinary_to_uint256(0x01) as u, get_href('https://dune.com', 'Dune') as h",
    "select json_value('{\"a\": 1}', 'lax $.a') as v, json_object('a': 1) as o, json_array(1, 2) as a",
    "select listagg(x, ',') within group (order by x) as l from (values 'a', 'b') as t(x)",
    'select transform(array[1], x -> x + 1) as t, try(1 / 0) as z, if(true, 1, 0) as i',
  ])('%s still translates', async (sql) => {
    await expect(translate(sql, 'duckdb')).resolves.toMatchObject({ target: 'duckdb' });
  });

  it('knows every function of the functions reference', () => {
    const names = DUNESQL_CATALOG.flatMap((category) => category.entries.map((entry) => entry.name))
      // Operators, keywords and type names (`||`, `like`, `uint256`) are not calls.
      .filter((name) => /^[a-z_][a-z0-9_]*$/.test(name))
      .filter(
        (name) =>
          !['interval', 'uint256', 'int256', 'between', 'in', 'like', 'and', 'exists', 'case'].includes(name),
      );
    expect(names.length).toBeGreaterThan(200);
    expect(names.filter((name) => !isDuneSqlFunction(name))).toEqual([]);
  });
});
