import { describe, expect, it } from 'vitest';
import { duckDbTypeOf, duneSqlTypeName } from '../../functions/core/sql-types';

describe('DuneSQL type names', () => {
  it('map to the DuckDB types of the local warehouse', () => {
    expect(duckDbTypeOf('varbinary')).toBe('BLOB');
    expect(duckDbTypeOf('uint256')).toBe('UHUGEINT');
    expect(duckDbTypeOf('int256')).toBe('HUGEINT');
    expect(duckDbTypeOf('varchar')).toBe('VARCHAR');
    expect(duckDbTypeOf('timestamp')).toBe('TIMESTAMP');
    expect(duckDbTypeOf('timestamp(3)')).toBe('TIMESTAMP');
    expect(duckDbTypeOf('timestamp(3) with time zone')).toBe('TIMESTAMP WITH TIME ZONE');
    expect(duckDbTypeOf('decimal(18,8)')).toBe('DECIMAL(18,8)');
    expect(duckDbTypeOf('array(varbinary)')).toBe('BLOB[]');
    expect(duckDbTypeOf('map(varchar, array(bigint))')).toBe('MAP(VARCHAR, BIGINT[])');
    expect(duckDbTypeOf('array(row(index integer, "spent tx" varbinary, value decimal(18,8)))')).toBe(
      'STRUCT("index" INTEGER, "spent tx" BLOB, "value" DECIMAL(18,8))[]',
    );
  });

  it('refuse names they do not know, so a typo in the registry fails the build', () => {
    expect(() => duckDbTypeOf('address')).toThrow(/Unknown DuneSQL type: address/);
    expect(() => duckDbTypeOf('decimal(x,1)')).toThrow(/Unknown DuneSQL type/);
    expect(() => duckDbTypeOf('row(1 bigint)')).toThrow(/row field/);
  });

  it('name result columns as Trino does, from DuckDB types', () => {
    expect(duneSqlTypeName('BLOB')).toBe('varbinary');
    expect(duneSqlTypeName('UHUGEINT')).toBe('uint256');
    expect(duneSqlTypeName('HUGEINT')).toBe('int256');
    expect(duneSqlTypeName('BIGINT')).toBe('bigint');
    expect(duneSqlTypeName('DOUBLE')).toBe('double');
    expect(duneSqlTypeName('VARCHAR')).toBe('varchar');
    expect(duneSqlTypeName('TIMESTAMP')).toBe('timestamp(3)');
    expect(duneSqlTypeName('TIMESTAMP WITH TIME ZONE')).toBe('timestamp(3) with time zone');
    expect(duneSqlTypeName('DECIMAL(38,0)')).toBe('decimal(38,0)');
    expect(duneSqlTypeName('VARCHAR[]')).toBe('array(varchar)');
    expect(duneSqlTypeName('BLOB[3]')).toBe('array(varbinary)');
    expect(duneSqlTypeName('MAP(VARCHAR, BIGINT)')).toBe('map(varchar, bigint)');
    expect(duneSqlTypeName('STRUCT("index" INTEGER, spent_tx_id BLOB, "Value" DECIMAL(18,8))[]')).toBe(
      'array(row(index integer, spent_tx_id varbinary, Value decimal(18,8)))',
    );
  });

  it('pass Trino names through unchanged (what Athena reports)', () => {
    for (const name of ['varchar', 'timestamp(3) with time zone', 'array(row(a varbinary))', 'uint256']) {
      expect(duneSqlTypeName(name)).toBe(name);
    }
  });

  it('round-trip every registry-style name through DuckDB', () => {
    for (const name of ['varbinary', 'uint256', 'int256', 'bigint', 'integer', 'double', 'boolean', 'date']) {
      expect(duneSqlTypeName(duckDbTypeOf(name))).toBe(name);
    }
    expect(duneSqlTypeName(duckDbTypeOf('array(row(index integer, type varchar))'))).toBe(
      'array(row(index integer, type varchar))',
    );
  });
});
