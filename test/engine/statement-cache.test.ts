import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../functions/local/engine/statement-cache';
import { failureOf, oneProcessEngine, runRequest } from './fixture';

/**
 * The engine process keeps each DuneSQL text's translation and each statement's columns for the
 * next run of the same text (statement-cache.ts). What must hold: the same answers as without it,
 * failures never kept, and SQL that reads a view described again on every run, since a view's
 * columns change with its versions.
 */
const engine = oneProcessEngine();
const run = engine.run;

describe('statements known from an earlier run', () => {
  it('give the same answers run after run, for every account', async () => {
    const sql = "SELECT 0x01 AS address, CAST(2 AS uint256) AS amount, 'a' || 'b' AS text";
    const first = await run(sql);
    for (const accountId of ['account-1', 'someone-else']) {
      expect(await run(sql, { accountId })).toEqual(first);
    }
    expect(first.rows).toEqual([{ address: '0x01', amount: '2', text: 'ab' }]);
  });

  it('are never failures: SQL that failed fails again, and runs once it can', async () => {
    const source = runRequest('SELECT 42 AS answer', { accountId: 'erin' });
    const { columns } = await engine.engine.run(source);
    const sql = 'SELECT * FROM mv.erin.result_answer';
    // Not readable without the view: refused every time, then read once the run may read it.
    for (let i = 0; i < 2; i++) {
      expect((await failureOf(engine.engine.run(runRequest(sql, { accountId: 'erin' })))).message).toMatch(
        /result_answer|mv/,
      );
    }
    const relations = [
      { catalog: 'mv', schema: 'erin', name: 'result_answer', executionId: source.executionId, columns },
    ];
    expect((await run(sql, { accountId: 'erin', relations })).rows).toEqual([{ answer: 42 }]);
  });

  it('are described again when they read a view, whose columns change with its versions', async () => {
    const sql = 'SELECT * FROM mv.erin.result_changing';
    const version = async (versionSql: string) => {
      const request = runRequest(versionSql, { accountId: 'erin' });
      const { columns } = await engine.engine.run(request);
      return [
        { catalog: 'mv', schema: 'erin', name: 'result_changing', executionId: request.executionId, columns },
      ];
    };
    const before = await run(sql, { accountId: 'erin', relations: await version('SELECT 1 AS a') });
    const after = await run(sql, {
      accountId: 'erin',
      relations: await version("SELECT 'x' AS b, 2 AS c"),
    });
    expect(before.rows).toEqual([{ a: 1 }]);
    expect(after.columns.map((c) => c.name)).toEqual(['b', 'c']);
    expect(after.rows).toEqual([{ b: 'x', c: 2 }]);
  });
});

describe('BoundedCache', () => {
  it('keeps at most its capacity, dropping the least recently used first', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.size]).toEqual([1, 3, 2]);
  });
});
