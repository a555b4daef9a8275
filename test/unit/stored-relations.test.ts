import { describe, expect, it } from 'vitest';
import { mayListRelations, mayNameCatalog } from '../../functions/core/stored-relations';

describe('which stored relations a run resolves', () => {
  it('lists them all for information_schema and catalog statements, even after comments', () => {
    for (const sql of [
      'select * from dune.information_schema.tables',
      'SELECT table_name FROM INFORMATION_SCHEMA.COLUMNS',
      'show tables from dune.alice',
      '-- what does it hold?\n/* a view */ DESCRIBE mv.alice.result_x',
      '  desc dex.trades',
    ]) {
      expect(mayListRelations(sql), sql).toBe(true);
    }
  });

  it('does not for queries that only sort descending or mention SHOW later', () => {
    for (const sql of [
      'select * from dex.trades order by block_time desc',
      "select 'show tables' as s",
      'select describe from t',
    ]) {
      expect(mayListRelations(sql), sql).toBe(false);
    }
  });

  it('reads a catalog only where SQL names one of its tables', () => {
    expect(mayNameCatalog('select * from "MV" . alice.result_x', ['mv'])).toBe(true);
    expect(mayNameCatalog('select mv from t', ['mv'])).toBe(false);
  });
});
