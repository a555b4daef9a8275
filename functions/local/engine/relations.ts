import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { ReadableRelation } from '../../core/engine';
import { resultFilePath, sqlIdentifier, sqlString } from './result-files';
import { isBigIntegerType } from './storage-types';

export interface RelationSetup {
  /** Files the sandbox must be allowed to read (the catalog files and the results they view). */
  files: string[];
  /** Statements that attach the catalogs, run before the sandbox is locked. */
  statements: string[];
}

/**
 * Exposes stored results (materialized views) to a sandboxed run as `<catalog>.<schema>.<name>`.
 * The sandbox's own database is read-only, so the views live in a small DuckDB file built outside
 * the sandbox (one per distinct set of versions, reused) and attached read-only. Results store
 * 128-bit integers as exact text (Parquet has no such type); the views cast them back.
 */
export async function relationSetup(
  resultsDir: string,
  relations: readonly ReadableRelation[],
): Promise<RelationSetup> {
  if (relations.length === 0) return { files: [], statements: [] };
  const files: string[] = [];
  const statements: string[] = [];
  const byCatalog = Map.groupBy(relations, (relation) => relation.catalog);
  for (const [catalog, members] of byCatalog) {
    const catalogFile = await ensureCatalogFile(resultsDir, members);
    files.push(catalogFile, ...members.map((relation) => resultFilePath(resultsDir, relation.executionId)));
    statements.push(`ATTACH ${sqlString(catalogFile)} AS ${sqlIdentifier(catalog)} (READ_ONLY)`);
  }
  return { files, statements };
}

async function ensureCatalogFile(
  resultsDir: string,
  relations: readonly ReadableRelation[],
): Promise<string> {
  const key = createHash('sha256')
    .update(JSON.stringify(relations.map((r) => [r.schema, r.name, r.executionId])))
    .digest('hex')
    .slice(0, 32);
  const directory = join(resultsDir, '.catalogs');
  const file = join(directory, `${key}.duckdb`);
  if (existsSync(file)) return file;
  await mkdir(directory, { recursive: true });
  const building = `${file}.${process.pid}.${Date.now()}.building`;
  const instance = await DuckDBInstance.create(building);
  try {
    const connection = await instance.connect();
    for (const schema of new Set(relations.map((relation) => relation.schema))) {
      await connection.run(`CREATE SCHEMA ${sqlIdentifier(schema)}`);
    }
    for (const relation of relations) {
      await connection.run(
        `CREATE VIEW ${sqlIdentifier(relation.schema)}.${sqlIdentifier(relation.name)} AS SELECT ${projection(relation)} FROM read_parquet(${sqlString(resultFilePath(resultsDir, relation.executionId))})`,
      );
    }
    await connection.run('CHECKPOINT');
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
  await rm(`${building}.wal`, { force: true });
  await rename(building, file);
  return file;
}

function projection(relation: ReadableRelation): string {
  if (relation.columns.length === 0) return '*';
  return relation.columns
    .map((column) => {
      const name = sqlIdentifier(column.name);
      return isBigIntegerType(column.type) ? `CAST(${name} AS ${column.type}) AS ${name}` : name;
    })
    .join(', ');
}
