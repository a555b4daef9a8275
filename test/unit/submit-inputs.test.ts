import { describe, expect, it } from 'vitest';
import type { Execution } from '../../functions/core/executions';
import { submitInputs } from '../../functions/executions/query-run';
import type { Services } from '../../functions/services';

/** The reads a submit makes: the account's readable views only for SQL that could name one. */
describe('what a submit reads', () => {
  const services = { usage: { getStorageBytes: async () => 1234 } } as unknown as Services;
  const execution = (sql: string) => ({ accountId: 'acct', sql }) as Execution;

  it.each([
    ['select * from mv.alice.result_flows', true],
    ['select * from MV . alice.result_flows', true],
    ['select * from "mv"."alice"."result_flows"', true],
    ['with x as (select 1) select * from x join mv.bob.result_y on true', true],
    ['select count(*) from dex.trades', false],
    ["select 'mvp' as label, mv_count from stats.mv", false],
  ])('%s → looks views up: %s', async (sql, looksUp) => {
    let lookups = 0;
    const view = { catalog: 'mv', schema: 'alice', name: 'result_flows', executionId: 'e', columns: [] };
    const [relations, storage] = await submitInputs(services, execution(sql), async () => {
      lookups++;
      return [view];
    });
    expect(lookups).toBe(looksUp ? 1 : 0);
    expect(relations).toEqual(looksUp ? [view] : []);
    expect(storage).toBe(1234);
  });
});
