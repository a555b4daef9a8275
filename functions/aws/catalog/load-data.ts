/**
 * Loads the local sample warehouse into a deployed stack's data lake: every base table is exported
 * by DuckDB as Snappy Parquet in the layout the Glue catalog expects (glue-tables.ts: Hive-style
 * `<date column>=YYYY-MM-DD/` directories, the partition column left out of the files, uint256
 * as decimal(38,0)) and uploaded to the data bucket. Runs on a workstation, never in Lambda.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { TableDefinition } from '../../core/catalog';
import { BASE_TABLES } from '../../datasets/base-tables';
import { glueType, partitionKey, tablePrefix } from './glue-tables';

export interface LoadDataOptions {
  warehousePath: string;
  s3: S3Client;
  bucket: string;
  prefix?: string;
  tables?: readonly TableDefinition[];
  log?: (message: string) => void;
}

export interface LoadedTable {
  table: string;
  files: number;
  bytes: number;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The SELECT list: columns in registry order, uint256/int256 narrowed to Athena's decimal(38,0). */
function exportColumns(table: TableDefinition): string {
  return table.columns
    .map((column) =>
      glueType(column.type) === 'decimal(38,0)'
        ? // Past 38 digits the value cannot be stored in Athena's type: it becomes NULL.
          `TRY_CAST(${quote(column.name)} AS DECIMAL(38,0)) AS ${quote(column.name)}`
        : quote(column.name),
    )
    .join(', ');
}

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export async function loadData(options: LoadDataOptions): Promise<LoadedTable[]> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(options.warehousePath, { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  const workDir = await mkdtemp(join(tmpdir(), 'load-data-'));
  const loaded: LoadedTable[] = [];
  try {
    for (const table of options.tables ?? BASE_TABLES) {
      const out = join(workDir, table.schema, table.table);
      await mkdir(out, { recursive: true });
      const key = partitionKey(table);
      const source = `SELECT ${exportColumns(table)} FROM ${quote(table.schema)}.${quote(table.table)}`;
      await connection.run(
        key
          ? `COPY (${source}) TO '${out}' (FORMAT parquet, COMPRESSION snappy, PARTITION_BY (${quote(key.name)}), OVERWRITE_OR_IGNORE)`
          : `COPY (${source}) TO '${out}/data_0.parquet' (FORMAT parquet, COMPRESSION snappy)`,
      );
      const files = await filesUnder(out);
      let bytes = 0;
      for (const file of files) {
        const body = await readFile(file);
        bytes += body.length;
        const name = relative(out, file).split(sep).join('/');
        await options.s3.send(
          new PutObjectCommand({
            Bucket: options.bucket,
            Key: `${tablePrefix(table, options.prefix)}${key ? name.replace(/^[^=/]+=/, `${key.name.toLowerCase()}=`) : name}`,
            Body: body,
            ContentType: 'application/vnd.apache.parquet',
          }),
        );
      }
      loaded.push({ table: table.fullName, files: files.length, bytes });
      options.log?.(`${table.fullName}: ${files.length} file(s), ${bytes} bytes`);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(workDir, { recursive: true, force: true });
  }
  return loaded;
}
