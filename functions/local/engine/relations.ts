import type { ReadableRelation } from '../../core/engine';
import { normalizeTableName } from '../../core/lineage';
import { DuneSqlTableReferenceParser } from '../../dunesql/table-references';
import { resultFilePath, sqlIdentifier, sqlString } from './result-files';
import { isBigIntegerType } from './storage-types';

/** A stored result the run may read, as plain data for the engine process: where its file is. */
export interface RelationFile extends Omit<ReadableRelation, 'executionId'> {
  path: string;
}

export function relationFiles(resultsDir: string, relations: readonly ReadableRelation[]): RelationFile[] {
  return relations.map(({ executionId, ...relation }) => ({
    ...relation,
    path: resultFilePath(resultsDir, executionId),
  }));
}

export interface RelationSetup {
  /** Files the sandbox must be allowed to read (the results the views read). */
  files: string[];
  /** Statements that create the views: each catalog attached in memory, its schemas, the views. */
  statements: string[];
  /** The catalogs attached (a reusable sandbox detaches them after the run). */
  catalogs: string[];
}

const parser = new DuneSqlTableReferenceParser();

/**
 * Exposes the stored results (materialized views) a run's SQL names as `<catalog>.<schema>.<name>`:
 * views in an in-memory catalog of the run's own DuckDB instance over the result files, created
 * before the sandbox locks. Only the relations the SQL reads are set up (found by the lineage
 * parser, which the engine process has loaded for translation anyway); SQL the parser cannot read
 * gets all of them, and the engine reports what is wrong with it. Results store 128-bit integers as
 * exact text (Parquet has no such type); the views cast them back.
 */
export async function relationSetup(
  sql: string,
  relations: readonly RelationFile[],
  dialect: 'dunesql' | 'duckdb' = 'dunesql',
): Promise<RelationSetup> {
  const used = dialect === 'dunesql' ? await referencedBy(sql, relations) : relations;
  if (used.length === 0) return { files: [], statements: [], catalogs: [] };
  const statements: string[] = [];
  for (const catalog of new Set(used.map((relation) => relation.catalog))) {
    // The instance is read-only (access_mode): the run's own catalog is attached writable.
    statements.push(`ATTACH ':memory:' AS ${sqlIdentifier(catalog)} (READ_WRITE)`);
    const members = used.filter((relation) => relation.catalog === catalog);
    for (const schema of new Set(members.map((relation) => relation.schema))) {
      statements.push(`CREATE SCHEMA ${sqlIdentifier(catalog)}.${sqlIdentifier(schema)}`);
    }
    for (const relation of members) {
      const name = [catalog, relation.schema, relation.name].map(sqlIdentifier).join('.');
      statements.push(
        `CREATE VIEW ${name} AS SELECT ${projection(relation)} FROM read_parquet(${sqlString(relation.path)})`,
      );
    }
  }
  const catalogs = [...new Set(used.map((relation) => relation.catalog))];
  return { files: used.map((relation) => relation.path), statements, catalogs };
}

async function referencedBy(
  sql: string,
  relations: readonly RelationFile[],
): Promise<readonly RelationFile[]> {
  if (relations.length === 0) return relations;
  let names: Set<string>;
  try {
    names = new Set((await parser.tablesReadBy(sql)).map(normalizeTableName));
  } catch {
    return relations;
  }
  return relations.filter((relation) =>
    names.has(
      normalizeTableName({ catalog: relation.catalog, schema: relation.schema, table: relation.name }),
    ),
  );
}

function projection(relation: RelationFile): string {
  if (relation.columns.length === 0) return '*';
  return relation.columns
    .map((column) => {
      const name = sqlIdentifier(column.name);
      return isBigIntegerType(column.type) ? `CAST(${name} AS ${column.type}) AS ${name}` : name;
    })
    .join(', ');
}
