import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { generateSampleData } from '../../functions/local/sample-data/generate';

export interface SampleDb {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
}

/**
 * The build date of the tests' sample databases: fixed, so tests never depend on the wall clock.
 * Its window is 2026-10-02 to 2026-11-01 (exclusive).
 */
export const SAMPLE_BUILD_DATE = '2026-11-01';
export const SAMPLE_WINDOW = { start: '2026-10-02 00:00:00', end: '2026-11-01 00:00:00' };

/** A fresh in-memory DuckDB with the sample data at a small scale. */
export async function sampleDb(
  options: { scale?: number; seed?: number; threads?: number; buildDate?: string } = {},
): Promise<SampleDb> {
  const instance = await DuckDBInstance.create(
    ':memory:',
    options.threads ? { threads: String(options.threads) } : undefined,
  );
  const connection = await instance.connect();
  await generateSampleData(connection, {
    scale: options.scale ?? 0.02,
    seed: options.seed ?? 42,
    buildDate: options.buildDate ?? SAMPLE_BUILD_DATE,
  });
  return { instance, connection };
}

export function closeSampleDb(db: SampleDb | undefined): void {
  db?.connection.closeSync();
  db?.instance.closeSync();
}

/** Rows as plain JSON-able objects (big integers as strings). */
export async function rows(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJson() as Record<string, unknown>[];
}

/** The single value of a one-row, one-column query, as a number. */
export async function num(connection: DuckDBConnection, sql: string): Promise<number> {
  const reader = await connection.runAndReadAll(sql);
  const value = reader.getRows()[0]?.[0];
  if (value === undefined) throw new Error(`no value from: ${sql}`);
  return Number(value);
}
