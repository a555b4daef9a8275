import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ResultColumn } from '../../functions/core/engine';
import { registerDuneFunctions } from '../../functions/local/engine/dune-functions';
import { COLUMNS_METADATA_KEY } from '../../functions/local/engine/result-files';
import { storageExpression } from '../../functions/local/engine/storage-types';

/**
 * Writes one result twice with DuckDB: as the CSV Athena writes for a SELECT (header, every value
 * double-quoted, NULL as an empty unquoted field, timestamps `yyyy-MM-dd HH:mm:ss.SSS`,
 * varbinary as space-separated hex pairs; see docs/aws.md) and as the Parquet file the local
 * store reads, so both stores can be compared on the same rows.
 */
export async function writeResultFiles(options: {
  dir: string;
  executionId: string;
  /** A DuckDB SELECT over columns aliased as in `columns`. */
  sql: string;
  /** What the SELECT needs run first on its connection (a translation's settings and macros). */
  setup?: string;
  /** Athena's column types (GetQueryResults ColumnInfo.Type with precision/scale). */
  columns: ResultColumn[];
}): Promise<{ csvPath: string; parquetPath: string }> {
  await mkdir(options.dir, { recursive: true });
  const csvPath = join(options.dir, `${options.executionId}.csv`);
  const parquetPath = join(options.dir, `${options.executionId}.parquet`);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    if (options.setup) {
      // A translation's macros may call the functions the engine registers in its sandboxes.
      await registerDuneFunctions(connection);
      await connection.run(options.setup);
    }
    // Stored as the local engine stores results (storage-types.ts), e.g. unnamed row fields named.
    const prepared = await connection.prepare(options.sql);
    const names = Array.from({ length: prepared.columnCount }, (_, i) => prepared.columnName(i));
    const stored = names
      .map((name, i) => {
        const column = `"${name.replaceAll('"', '""')}"`;
        return `${storageExpression(prepared.columnType(i), column) ?? column} AS ${column}`;
      })
      .join(', ');
    // The engine's column types, which the local store reads back (e.g. an interval stored as text).
    const engineColumns = JSON.stringify(
      names.map((name, i) => ({ name, type: prepared.columnType(i).toString() })),
    );
    prepared.destroySync();
    await connection.run(`CREATE TEMP TABLE result AS SELECT ${stored} FROM (${options.sql})`);
    const asAthenaText = options.columns
      .map(({ name, type }) => {
        const column = `"${name}"`;
        if (type === 'timestamp') return `strftime(${column}, '%Y-%m-%d %H:%M:%S.%g') AS ${column}`;
        if (type === 'varbinary') {
          return `rtrim(regexp_replace(lower(hex(${column})), '(..)', '\\1 ', 'g')) AS ${column}`;
        }
        return column;
      })
      .join(', ');
    await connection.run(`COPY (SELECT ${asAthenaText} FROM result) TO '${csvPath}' (HEADER, FORCE_QUOTE *)`);
    await connection.run(
      `COPY result TO '${parquetPath}' (FORMAT parquet, ROW_GROUP_SIZE 4096, ` +
        `KV_METADATA {${COLUMNS_METADATA_KEY}: '${engineColumns.replaceAll("'", "''")}'})`,
    );
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  return { csvPath, parquetPath };
}
