import { BadRequestError } from './errors';
import type { QueryViewOccurrence } from './query-views';

/**
 * Lineage (DESIGN §4): the tables a query's SQL reads, found by parsing the dialect users write
 * (DuneSQL, with polyglot's Trino parser on both hosts: functions/dunesql/table-references.ts).
 */

/** A table (or view, or materialized view) that a statement reads, as named in the SQL. */
export interface TableReference {
  catalog?: string;
  schema?: string;
  table: string;
  /** As written, e.g. "dex.trades". */
  text: string;
}

/**
 * Finds every table a single SELECT statement reads: in FROM and JOINs, subqueries anywhere, CTE
 * bodies, set operations, PIVOT/UNPIVOT, ... Names of CTEs in scope are not tables and are left out.
 * The result has no duplicates (names compared as by normalizeTableName) and is in order of first
 * appearance in the SQL.
 *
 * SQL the parser cannot read (a syntax error, an empty text, several statements, a statement that
 * is not a SELECT) throws a BadRequestError saying why (see unreadableSqlError); it never returns
 * an empty list in place of an error.
 */
export interface SqlTableReferenceParser {
  tablesReadBy(sql: string): Promise<TableReference[]>;
  /**
   * Every place a one-part table name calls a query view (`query_<id>`, not shadowed by a CTE),
   * in document order; unreadable SQL throws as `tablesReadBy` does.
   */
  queryViewsCalledBy(sql: string): Promise<QueryViewOccurrence[]>;
}

/** Lower-case `table`, `schema.table` or `catalog.schema.table`: one name per table, as SQL identifiers compare. */
export function normalizeTableName(ref: Pick<TableReference, 'catalog' | 'schema' | 'table'>): string {
  return [ref.catalog, ref.schema, ref.table]
    .filter((part): part is string => part !== undefined && part !== '')
    .join('.')
    .toLowerCase();
}

export const UNREADABLE_SQL_PREFIX = "Cannot read the query's SQL to find its tables";

/**
 * The error for SQL a parser cannot read, e.g.
 * `Cannot read the query's SQL to find its tables: Parser Error: syntax error at or near "FORM" (line 1, column 10)`.
 */
export function unreadableSqlError(
  detail: string,
  position?: { line: number; column: number },
  options?: { cause?: unknown },
): BadRequestError {
  const where = position ? ` (line ${position.line}, column ${position.column})` : '';
  return new BadRequestError(`${UNREADABLE_SQL_PREFIX}: ${detail}${where}`, options);
}
