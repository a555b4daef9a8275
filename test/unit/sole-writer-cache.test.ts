/**
 * SoleWriterCache.updating keeps a record with its write's known change, and never when another
 * write of the record (or of all records) overlapped it or the write failed.
 */
import { describe, expect, it } from 'vitest';
import { SoleWriterCache } from '../../functions/core/sole-writer-cache';

interface Row {
  n: number;
  tags: string[];
}

/** A store of one record with a write that waits until released, to overlap writes on purpose. */
function setup() {
  const stored = new Map<string, Row>([
    ['a', { n: 1, tags: [] }],
    ['b', { n: 10, tags: [] }],
  ]);
  let loads = 0;
  const cache = new SoleWriterCache<Row>(100);
  const read = (key: string) =>
    cache.read(key, async () => {
      loads++;
      return structuredClone(stored.get(key));
    });
  /** Adds to `n` in the store once `release` is called; answers the new value. */
  const slowAdd = (key: string, by: number) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = cache.updating(
      key,
      async () => {
        await released;
        const row = stored.get(key)!;
        row.n += by;
        return row.n;
      },
      (row, n) => ({ ...row, n }),
    );
    return { done, release };
  };
  return { stored, cache, read, slowAdd, loads: () => loads };
}

describe('SoleWriterCache.updating', () => {
  it('keeps a cached record with the change applied: the next read needs no load', async () => {
    const { read, slowAdd, loads } = setup();
    await read('a');
    const add = slowAdd('a', 5);
    add.release();
    expect(await add.done).toBe(6);
    expect(await read('a')).toEqual({ n: 6, tags: [] });
    expect(loads()).toBe(1);
  });

  it('does not cache a record that was not cached before the write', async () => {
    const { read, slowAdd, loads } = setup();
    const add = slowAdd('a', 5);
    add.release();
    await add.done;
    expect(await read('a')).toEqual({ n: 6, tags: [] });
    expect(loads()).toBe(1);
  });

  it('drops the record when another write of it overlapped, and keeps it when only other records were written', async () => {
    const { cache, read, slowAdd, stored, loads } = setup();
    await Promise.all([read('a'), read('b')]);
    const first = slowAdd('a', 5);
    const second = cache.writing(['a'], async () => {
      stored.get('a')!.tags.push('x');
    });
    const other = slowAdd('b', 1);
    await second;
    first.release();
    other.release();
    await Promise.all([first.done, other.done]);
    // 'a' was written twice at once: read from the store, both changes there.
    expect(await read('a')).toEqual({ n: 6, tags: ['x'] });
    expect(await read('b')).toEqual({ n: 11, tags: [] });
    expect(loads()).toBe(3);
  });

  it('drops the record when all records were written meanwhile, or when the write failed', async () => {
    const { cache, read, slowAdd, loads } = setup();
    await read('a');
    const add = slowAdd('a', 5);
    await cache.writing(undefined, async () => undefined);
    add.release();
    await add.done;
    expect(await read('a')).toEqual({ n: 6, tags: [] });
    expect(loads()).toBe(2);
    await expect(
      cache.updating(
        'a',
        async () => {
          throw new Error('refused');
        },
        (row) => ({ ...row, n: 0 }),
      ),
    ).rejects.toThrow('refused');
    expect(await read('a')).toEqual({ n: 6, tags: [] });
    expect(loads()).toBe(3);
  });

  it('keeps a copy: what the change or a caller does to its objects later does not reach the cache', async () => {
    const { cache, read } = setup();
    await read('a');
    const tags = ['kept'];
    await cache.updating(
      'a',
      async () => undefined,
      (row) => ({ ...row, tags }),
    );
    tags.push('changed later');
    const answer = await read('a');
    answer!.tags.push('changed by a reader');
    expect(await read('a')).toEqual({ n: 1, tags: ['kept'] });
  });
});
