/**
 * copyPlainData: the copy the caches hand out on every read (functions/core/plain-data.ts). It
 * must equal structuredClone's copy of what a store returns and share nothing with the original.
 */
import { describe, expect, it } from 'vitest';
import { copyPlainData } from '../../functions/core/plain-data';

const execution = {
  executionId: '01M8JSY33YG8DQV6A3J52XKYFH',
  queryId: 12,
  state: 'QUERY_STATE_COMPLETED',
  cancelled: false,
  error: null,
  result: {
    columns: [
      { name: 'day', type: 'date' },
      { name: 'trades', type: 'bigint' },
    ],
    rowCount: 840,
  },
  parameters: { chain: 'ethereum', since: undefined },
  nestedColumns: [],
};

describe('copyPlainData', () => {
  it('copies records deeply, equal to structuredClone and sharing no object with the original', () => {
    const copy = copyPlainData(execution);
    expect(copy).toStrictEqual(structuredClone(execution));
    expect(copy).not.toBe(execution);
    expect(copy.result).not.toBe(execution.result);
    expect(copy.result.columns).not.toBe(execution.result.columns);
    expect(copy.result.columns[0]).not.toBe(execution.result.columns[0]);
    copy.result.columns[0]!.name = 'changed';
    copy.result.columns.push({ name: 'added', type: 'varchar' });
    expect(execution.result.columns).toEqual([
      { name: 'day', type: 'date' },
      { name: 'trades', type: 'bigint' },
    ]);
    expect(Object.hasOwn(copy.parameters, 'since')).toBe(true);
  });

  it('keeps a prototype-less object prototype-less', () => {
    const bare = Object.assign(Object.create(null), { a: { b: 1 } });
    const copy = copyPlainData(bare);
    expect(Object.getPrototypeOf(copy)).toBeNull();
    expect(copy.a).toEqual({ b: 1 });
    expect(copy.a).not.toBe(bare.a);
  });

  it('copies what is not plain data as structuredClone does (sets, dates, bytes)', () => {
    const record = { tags: new Set(['a', 'b']), at: new Date(0), bytes: new Uint8Array([1, 2]) };
    const copy = copyPlainData(record);
    expect(copy).toStrictEqual(structuredClone(record));
    expect(copy.tags).not.toBe(record.tags);
    expect(copy.at).not.toBe(record.at);
    expect(copy.bytes).not.toBe(record.bytes);
  });

  it('returns values that are not objects as they are', () => {
    for (const value of ['text', 1, true, null, undefined]) expect(copyPlainData(value)).toBe(value);
  });
});
