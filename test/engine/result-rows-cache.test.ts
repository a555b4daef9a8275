import type { DuckDBValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { ResultRowsCache } from '../../functions/local/engine/result-rows-cache';

/** n rows of one 100-character text: 116 estimated bytes each (100 stored + 16 per value). */
const rowsOf = (n: number): DuckDBValue[][] => Array.from({ length: n }, () => ['x'.repeat(100)]);

describe('the rows of small results, read at their end', () => {
  it('gives the rows once read, and nothing for a result never loaded, deleted or whose read failed', async () => {
    const cache = new ResultRowsCache();
    cache.load('a', async () => rowsOf(3));
    cache.load('b', async () => {
      throw new Error('gone');
    });
    expect(await cache.get('a')).toHaveLength(3);
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('c')).toBeUndefined();
    cache.delete('a');
    expect(await cache.get('a')).toBeUndefined();
  });

  it('forgets a result deleted while its rows were being read', async () => {
    const cache = new ResultRowsCache();
    let finish: (rows: DuckDBValue[][]) => void = () => undefined;
    cache.load('a', () => new Promise((resolve) => (finish = resolve)));
    const pending = cache.get('a');
    cache.delete('a');
    finish(rowsOf(2));
    expect(await pending).toBeUndefined();
    expect(await cache.get('a')).toBeUndefined();
  });

  it('drops the oldest results past its byte bound, and a result too big alone', async () => {
    const cache = new ResultRowsCache(116 * 10);
    cache.load('old', async () => rowsOf(4));
    await cache.get('old');
    cache.load('mid', async () => rowsOf(4));
    await cache.get('mid');
    cache.load('new', async () => rowsOf(4));
    expect(await cache.get('new')).toHaveLength(4);
    expect(await cache.get('old')).toBeUndefined();
    expect(await cache.get('mid')).toHaveLength(4);
    cache.load('huge', async () => rowsOf(11));
    expect(await cache.get('huge')).toBeUndefined();
    expect(await cache.get('mid')).toHaveLength(4);
    expect(await cache.get('new')).toHaveLength(4);
  });
});
