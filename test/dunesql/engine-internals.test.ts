import { describe, expect, it } from 'vitest';
import { DuneSqlError, translate } from '../../functions/dunesql';

/** DuckDB's introspection describes the host (paths, settings, databases), not the data. */
describe('engine-internal names are not DuneSQL', () => {
  it.each([
    ['select name, value from duckdb_settings()', 'duckdb_settings', 25],
    ["select current_setting('allowed_paths')", 'current_setting', 8],
    ['select path from duckdb_databases()', 'duckdb_databases', 18],
    ['select * from table(duckdb_settings())', 'duckdb_settings', 21],
    ["select getenv('HOME')", 'getenv', 8],
    ['select * from pragma_database_list', 'pragma_database_list', 15],
    ['select * from system.main.duckdb_settings', 'duckdb_settings', 27],
    ['select * from pg_catalog.pg_tables', 'pg_catalog', 15],
    ['select * from test_all_types()', 'test_all_types', 15],
  ])('%s is refused, naming %s where it was written', async (sql, construct, column) => {
    for (const target of ['duckdb', 'athena'] as const) {
      const error = await translate(sql, target).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(DuneSqlError);
      expect((error as DuneSqlError).kind).toBe('unsupported');
      expect((error as DuneSqlError).message).toContain(`${construct} is an engine-internal name`);
      expect((error as DuneSqlError).message).toContain('information_schema');
      expect((error as DuneSqlError).position).toEqual({ line: 1, column });
    }
  });

  it.each([
    'select table_name, table_schema from information_schema.tables',
    'select count(*) from ethereum.transactions',
  ])('%s still translates', async (sql) => {
    await expect(translate(sql, 'duckdb')).resolves.toMatchObject({ target: 'duckdb' });
  });
});
