import { DuckDBInstance, intervalValue } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { intervalFromText, intervalText } from '../../functions/dunesql/duckdb-target';
import { encodeValue } from '../../functions/local/engine/result-values';
import { engineForTheseTests, runRequest } from './fixture';

/** Intervals as Trino writes them: `D HH:MM:SS.mmm` (day to second) and `Y-M` (year to month). */
const WRITTEN: [string, string][] = [
  ["INTERVAL '3' DAY", '3 00:00:00.000'],
  ["INTERVAL '2' HOUR", '0 02:00:00.000'],
  ["TIMESTAMP '2024-01-05 02:00:00' - TIMESTAMP '2024-01-01 12:00:00'", '3 14:00:00.000'],
  ["-(INTERVAL '90' MINUTE)", '-0 01:30:00.000'],
  ["INTERVAL '1.5' SECOND", '0 00:00:01.500'],
  ["INTERVAL '0' SECOND", '0 00:00:00.000'],
  ["INTERVAL '14' MONTH", '1-2'],
  ["-(INTERVAL '14' MONTH)", '-1-2'],
];

describe('intervals', () => {
  const setup = engineForTheseTests({ rawDuckDbForEngineTests: true });

  it('are stored and read back as the text Trino writes, a negative one included', async () => {
    const request = runRequest(`SELECT ${WRITTEN.map(([sql], i) => `${sql} AS i${i}`).join(', ')}`);
    await setup.engine.run(request);
    const page = await setup.store.readPage({ executionId: request.executionId, limit: 1, offset: 0 });
    expect(Object.values(page.rows[0]!)).toEqual(WRITTEN.map(([, text]) => text));
    expect(page.columns[0]).toEqual({ name: 'i0', type: 'INTERVAL' });
  });

  it('written as text (SQL and results alike) read back as the same interval', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    try {
      const connection = await instance.connect();
      for (const [sql, text] of [...WRITTEN, ["INTERVAL '1 month 2 days'", '1 month 2 days'] as const]) {
        const reader = await connection.runAndReadAll(
          `SELECT ${intervalText('i')} AS text, ${intervalFromText(intervalText('i'))} = i AS same, i FROM (SELECT ${sql} AS i)`,
        );
        const [written, same, value] = reader.getRows()[0]!;
        expect({ sql, written, same }).toEqual({ sql, written: text, same: true });
        expect(encodeValue(value!)).toBe(text);
      }
    } finally {
      instance.closeSync();
    }
  });

  it('of both kinds at once (which Trino has not) keep DuckDB text; days and time of opposite signs add up', () => {
    expect(encodeValue(intervalValue(1, 2, 0n))).toBe('1 month 2 days');
    expect(encodeValue(intervalValue(0, -1, 3_600_000_000n))).toBe('-0 23:00:00.000');
  });
});
