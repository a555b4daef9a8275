/**
 * SoleWriterCache.updating keeps a record with its write's known change, and never when another
 * write of the record (or of all records) overlapped it or the write failed. A read keeps what it
 * loaded unless a write of its record (or of all) overlapped it.
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

describe('SoleWriterCache.read', () => {
  /** A read whose load waits until released, so writes can land while it is in flight. */
  function slowRead(cache: SoleWriterCache<Row>, stored: Map<string, Row>, key: string) {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done = cache.read(key, async () => {
      const value = structuredClone(stored.get(key));
      await released;
      return value;
    });
    return { done, release };
  }

  it('keeps what it loaded while other records were written', async () => {
    const { cache, read, stored, loads } = setup();
    const reading = slowRead(cache, stored, 'a');
    await cache.writing(['b'], async () => {
      stored.get('b')!.n = 20;
    });
    reading.release();
    expect(await reading.done).toEqual({ n: 1, tags: [] });
    // Served from memory: the read's record was not written meanwhile.
    stored.get('a')!.n = 99; // what only a new load would see
    expect(await read('a')).toEqual({ n: 1, tags: [] });
    expect(loads()).toBe(0);
  });

  it('keeps nothing when its record, or every record, was written while it was in flight', async () => {
    const { cache, read, stored, loads } = setup();
    const first = slowRead(cache, stored, 'a');
    await cache.writing(['a'], async () => {
      stored.get('a')!.n = 2;
    });
    first.release();
    // The read answers what it loaded before the write landed, but does not keep it.
    expect(await first.done).toEqual({ n: 1, tags: [] });
    expect(await read('a')).toEqual({ n: 2, tags: [] });
    expect(loads()).toBe(1);

    const second = slowRead(cache, stored, 'b');
    await cache.writing(undefined, async () => {
      stored.get('b')!.n = 11;
    });
    second.release();
    expect(await second.done).toEqual({ n: 10, tags: [] });
    expect(await read('b')).toEqual({ n: 11, tags: [] });
    expect(loads()).toBe(2);
  });

  it('keeps nothing when an update of its record landed while it was in flight', async () => {
    const { cache, read, stored, slowAdd, loads } = setup();
    const reading = slowRead(cache, stored, 'a');
    const add = slowAdd('a', 5);
    add.release();
    await add.done;
    reading.release();
    expect(await reading.done).toEqual({ n: 1, tags: [] });
    expect(await read('a')).toEqual({ n: 6, tags: [] });
    expect(loads()).toBe(1);
  });
});
