import { describe, expect, it } from 'vitest';
import { QueryFailure } from '../../functions/core/engine';
import {
  mayListRelations,
  mayNameCatalog,
  missingRelationMessage,
} from '../../functions/core/stored-relations';
import { type RelationFile, relationSetup } from '../../functions/local/engine/relations';

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

describe('a stored relation SQL names but may not read', () => {
  const upload = (schema: string, name: string): RelationFile => ({
    catalog: 'dune',
    schema,
    name,
    columns: [{ name: 'n', type: 'integer' }],
    paths: [],
    format: 'upload',
  });
  const readable = [upload('alice', 'labels'), upload('carol', 'labels_v2'), upload('alice', 'prices')];

  it('fails the run naming the closest tables the account may read', async () => {
    const refusal = async (sql: string): Promise<QueryFailure> => {
      const failure = await relationSetup(sql, readable).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(QueryFailure);
      return failure as QueryFailure;
    };
    const misspelt = await refusal('select * from dune.alice.label');
    expect(misspelt.message).toBe(
      'Table dune.alice.label does not exist: no uploaded table of that name is readable by this account. Did you mean dune.alice.labels or dune.carol.labels_v2?',
    );
    // The same name under another owner comes first.
    expect((await refusal('select * from dune.bob.prices')).message).toMatch(
      /Did you mean dune\.alice\.prices\?$/,
    );
    expect((await refusal('select * from dune.alice.zz')).message).toMatch(/readable by this account\.$/);
    // Dune's name of a materialized view gets the name it has here.
    expect((await refusal('select * from DUNE.Alice.Result_Flows')).message).toBe(
      'Table dune.alice.result_flows does not exist: no uploaded table of that name is readable by this account. Materialized views are named mv.<owner>.result_<name> here, not dune.<owner>.result_<name> as on Dune: did you mean mv.alice.result_flows?',
    );
    expect(missingRelationMessage('mv.alice.result_x', 'materialized view')).not.toMatch(/as on Dune/);
  });
});
