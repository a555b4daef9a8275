import { describe, expect, it } from 'vitest';
import type { MaterializedViewStore } from '../../functions/core/materialized-views';
import type { UploadStore } from '../../functions/core/uploads';
import { DuneSqlTableReferenceParser } from '../../functions/dunesql/table-references';
import { readableRelations } from '../../functions/executions/readable-relations';

/** The reads a submit makes: readable views and uploads only for SQL that could name one of each. */
describe('what a submit reads', () => {
  it.each([
    ['select * from mv.alice.result_flows', 'views'],
    ['select * from MV . alice.result_flows', 'views'],
    ['select * from "mv"."alice"."result_flows"', 'views'],
    ['with x as (select 1) select * from x join mv.bob.result_y on true', 'views'],
    ['select * from dune.alice.labels', 'uploads'],
    ['select * from "DUNE".alice.labels l join mv.alice.result_flows v on true', 'views,uploads'],
    ['select count(*) from dex.trades', ''],
    ["select 'mvp' as label, mv_count from stats.mv", ''],
    ["select 'dune' as label, dune_count from stats.dune", ''],
  ])('%s → looks up: %s', async (sql, expected) => {
    const lookups: string[] = [];
    const stores = {
      materializedViews: {
        listReadableBy: async () => {
          lookups.push('views');
          return [
            {
              ownerHandle: 'alice',
              name: 'result_flows',
              currentExecutionId: 'e1',
              columns: [{ name: 'n', type: 'BIGINT' }],
            },
          ];
        },
      } as unknown as MaterializedViewStore,
      uploads: {
        listReadableBy: async () => {
          lookups.push('uploads');
          return [
            {
              namespace: 'alice',
              tableName: 'labels',
              generation: 'g1',
              columns: [{ name: 'label', type: 'varchar', nullable: true }],
              files: [{ id: 'f1', rows: 1, bytes: 10 }],
            },
          ];
        },
      } as unknown as UploadStore,
      sqlParser: new DuneSqlTableReferenceParser(),
    };
    const relations = await readableRelations(stores, 'acct', sql);
    expect(lookups.join(',')).toBe(expected);
    expect(relations.map((relation) => `${relation.catalog}.${relation.schema}.${relation.name}`)).toEqual([
      ...(expected.includes('views') ? ['mv.alice.result_flows'] : []),
      ...(expected.includes('uploads') ? ['dune.alice.labels'] : []),
    ]);
    if (expected.includes('uploads')) {
      expect(relations.at(-1)).toMatchObject({
        executionId: 'g1',
        columns: [{ name: 'label', type: 'varchar' }],
        uploadFiles: ['f1'],
      });
    }
  });
});
