import type { ReadableRelation } from '../../core/engine';
import { QueryFailure } from '../../core/engine';
import { normalizeTableName } from '../../core/lineage';
import { duckDbTypeOf, isIntervalType } from '../../core/sql-types';
import {
  mayNameCatalog,
  missingRelationMessage,
  STORED_RELATION_CATALOGS,
} from '../../core/stored-relations';
import { intervalFromText } from '../../dunesql/duckdb-target';
import { DuneSqlTableReferenceParser } from '../../dunesql/table-references';
import { resultFilePath, sqlIdentifier, sqlString, uploadFilePath } from './result-files';
import { isBigIntegerType } from './storage-types';

/**
 * A relation the run may read, as plain data for the engine process: where its files are (a stored
 * result's Parquet file, or an uploaded table's text files).
 */
export interface RelationFile extends Omit<ReadableRelation, 'executionId' | 'uploadFiles'> {
  paths: string[];
  format: 'result' | 'upload';
}

export function relationFiles(resultsDir: string, relations: readonly ReadableRelation[]): RelationFile[] {
  return relations.map(({ executionId, uploadFiles, ...relation }) =>
    uploadFiles
      ? {
          ...relation,
          format: 'upload',
          paths: uploadFiles.map((fileId) =>
            uploadFilePath(
              resultsDir,
              `${relation.catalog}.${relation.schema}.${relation.name}`,
              executionId,
              fileId,
            ),
          ),
        }
      : { ...relation, format: 'result', paths: [resultFilePath(resultsDir, executionId)] },
  );
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
      statements.push(`CREATE VIEW ${name} AS ${relationQuery(relation)}`);
    }
  }
  const catalogs = [...new Set(used.map((relation) => relation.catalog))];
  return { files: used.flatMap((relation) => relation.paths), statements, catalogs };
}

/**
 * The relations the SQL names. A name in a stored relations' catalog that is not among them (absent,
 * or another account's private table) fails here, as on Athena, rather than as DuckDB's unknown catalog.
 */
async function referencedBy(
  sql: string,
  relations: readonly RelationFile[],
): Promise<readonly RelationFile[]> {
  if (relations.length === 0 && !mayNameCatalog(sql, Object.keys(STORED_RELATION_CATALOGS))) return relations;
  let names: Set<string>;
  try {
    names = new Set((await parser.tablesReadBy(sql)).map(normalizeTableName));
  } catch {
    return relations;
  }
  const byName = new Map(
    relations.map((relation) => [
      normalizeTableName({ catalog: relation.catalog, schema: relation.schema, table: relation.name }),
      relation,
    ]),
  );
  for (const name of names) {
    const holds = STORED_RELATION_CATALOGS[name.split('.')[0]!];
    if (holds && name.split('.').length === 3 && !byName.has(name)) {
      const catalog = name.split('.')[0]!;
      const readable = [...byName.keys()].filter((known) => known.startsWith(`${catalog}.`));
      throw new QueryFailure('execution_error', missingRelationMessage(name, holds, readable));
    }
  }
  return [...names].flatMap((name) => byName.get(name) ?? []);
}

function relationQuery(relation: RelationFile): string {
  if (relation.format === 'upload') return uploadQuery(relation);
  return `SELECT ${projection(relation)} FROM read_parquet(${sqlString(relation.paths[0]!)})`;
}

function projection(relation: RelationFile): string {
  if (relation.columns.length === 0) return '*';
  return relation.columns
    .map((column) => {
      const name = sqlIdentifier(column.name);
      if (isBigIntegerType(column.type)) return `CAST(${name} AS ${column.type}) AS ${name}`;
      // Stored as the text Trino writes (storage-types.ts).
      if (isIntervalType(column.type)) return `${intervalFromText(name)} AS ${name}`;
      return name;
    })
    .join(', ');
}

/**
 * An uploaded table: its files' text values (`c0`, `c1`, …) cast to the declared DuneSQL types, as
 * the local translation types them; no files (an empty table) reads no rows of the same columns.
 */
function uploadQuery(relation: RelationFile): string {
  const typed = (value: (i: number) => string) =>
    relation.columns
      .map((column, i) => {
        const text = value(i);
        const typedValue =
          column.type === 'varbinary'
            ? `from_hex(substr(${text}, 3))`
            : column.type === 'varchar'
              ? text
              : `CAST(${text} AS ${duckDbTypeOf(column.type)})`;
        return `${typedValue} AS ${sqlIdentifier(column.name)}`;
      })
      .join(', ');
  if (relation.paths.length === 0) return `SELECT ${typed(() => 'CAST(NULL AS VARCHAR)')} WHERE false`;
  const textColumns = relation.columns.map((_, i) => `${sqlString(`c${i}`)}: 'VARCHAR'`).join(', ');
  const files = `[${relation.paths.map(sqlString).join(', ')}]`;
  return `SELECT ${typed((i) => `c${i}`)} FROM read_json(${files}, format = 'newline_delimited', columns = {${textColumns}})`;
}
