import { didYouMean as suggestion } from '../core/name-suggestions';
import { visitFreeColumns } from './alias-references';
import { nodeType } from './ast';
import { type ListedTable, PUBLIC_CATALOG } from './information-schema';
import type { AstNode } from './polyglot';
import { collectTables } from './table-references';

/**
 * Public tables and columns that do not exist, found before a run with the names that come
 * closest: the most common mistake in SQL written from memory (by people and agents alike), and
 * one the engines report in their own words only once the query runs (DuckDB's "Binder Error:
 * Referenced column … not found in FROM clause!", Athena's "Column '…' cannot be resolved"). Both
 * hosts refuse alike, in Trino's words, so a query saved through MCP is warned about at once.
 *
 * Only what is known for certain is refused: a table of the public catalog (stored relations, in
 * the `mv` and `dune` catalogs, are checked where they are read), and a column only where every
 * FROM item's columns are known (output-types.ts' scope): never past a table function, UNNEST,
 * VALUES or LATERAL, and a qualified name only when its qualifier is one FROM item (`r.field` may
 * be a field of a row column).
 */

/** A name the query cannot resolve, with what to write instead. */
export interface UnresolvedName {
  /** Code-point offset of the name in the text translated. */
  offset: number | undefined;
  message: string;
}

const lower = (name: unknown) => String(name ?? '').toLowerCase();

/** The public tables named in `statement` that the catalog does not have. */
export function unresolvedTables(statement: AstNode, catalog: readonly ListedTable[]): UnresolvedName[] {
  const tables = catalog
    .filter((table) => table.catalog === PUBLIC_CATALOG)
    .map((table) => `${lower(table.schema)}.${lower(table.name)}`);
  const known = new Set(tables);
  const schemas = [...new Set(tables.map((name) => name.split('.')[0]!))];
  const found: UnresolvedName[] = [];
  collectTables(statement, new Set(), (table, ctes) => {
    const catalogName = table.catalog ? lower(table.catalog.name) : PUBLIC_CATALOG;
    const name = lower(table.name?.name);
    const schema = table.schema ? lower(table.schema.name) : undefined;
    if (catalogName !== PUBLIC_CATALOG || !name || schema === 'information_schema') return;
    if (schema === undefined ? ctes.has(name) : known.has(`${schema}.${name}`)) return;
    const sameName = tables.filter((qualified) => qualified.endsWith(`.${name}`));
    const offset = (table.schema ?? table.name).span?.start;
    if (schema === undefined) {
      found.push({
        offset,
        message: `Table '${name}' does not exist: public tables are named with their schema.${suggestion(name, sameName, tables)} searchTables finds tables by keyword.`,
      });
    } else if (schemas.includes(schema)) {
      const inSchema = tables.filter((qualified) => qualified.startsWith(`${schema}.`));
      found.push({
        offset,
        message: `Table '${schema}.${name}' does not exist.${suggestion(`${schema}.${name}`, sameName, inSchema)} SHOW TABLES FROM ${schema} lists its tables; searchTables finds tables by keyword.`,
      });
    } else {
      found.push({
        offset,
        message: `Schema '${schema}' does not exist.${suggestion(`${schema}.${name}`, sameName, tables)} SHOW SCHEMAS lists the schemas; searchTables finds tables by keyword.`,
      });
    }
  });
  return found;
}

/** A FROM item as output-types.ts scopes it. */
export interface ScopedItem {
  /** Its name in the query: the alias, else the table's name. */
  alias: string;
  columns?: { name?: string }[];
  complete: boolean;
  /** The table it reads, as written, when it is one (for the advice to DESCRIBE it). */
  table?: string;
}

/**
 * Adds the column references in `select`'s select list, WHERE, GROUP BY, HAVING and join
 * conditions that name no column of its FROM items, nor of an enclosing query's (`outer`: undefined
 * where not known), nor one of its own select-list aliases (alias-references.ts says what is wrong
 * with those). ORDER BY, which may also name the outputs, is left to the engine.
 */
export function collectUnresolvedColumns(
  select: AstNode,
  scope: readonly ScopedItem[],
  outer: readonly (ReadonlySet<string> | undefined)[],
  found: UnresolvedName[],
): void {
  if (scope.some((item) => !item.complete) || outer.some((names) => names === undefined)) return;
  const columnsOf = (item: ScopedItem) => item.columns!.map((column) => lower(column.name));
  const fromColumns = [...new Set(scope.flatMap(columnsOf))];
  const outerColumns = outer.flatMap((names) => [...names!]);
  const aliases = new Set(
    (select.expressions ?? [])
      .filter((item: AstNode) => nodeType(item) === 'alias')
      .map((item: AstNode) => lower(item.alias.alias?.name)),
  );
  const describe = (items: readonly ScopedItem[]) => {
    const tables = items.flatMap((item) => (item.table ? [`DESCRIBE ${item.table}`] : []));
    if (tables.length === 0) return '';
    return tables.length === 1
      ? ` ${tables[0]} lists its columns.`
      : ` ${tables.slice(0, -1).join(', ')} and ${tables.at(-1)} list their columns.`;
  };
  const check = (column: AstNode) => {
    const name = lower(column.column.name?.name);
    if (!name || name === '*') return;
    const offset = column.column.span?.start;
    if (column.column.table) {
      const qualifier = lower(column.column.table.name);
      const items = scope.filter((item) => item.alias === qualifier);
      if (items.length !== 1) return;
      const own = columnsOf(items[0]!);
      if (own.includes(name)) return;
      found.push({
        offset,
        message: `Column '${qualifier}.${name}' cannot be resolved.${suggestion(name, [], own)}${describe(items)}`,
      });
      return;
    }
    if (fromColumns.includes(name) || outerColumns.includes(name) || aliases.has(name)) return;
    found.push({
      offset,
      message: `Column '${name}' cannot be resolved.${suggestion(name, [], fromColumns)}${describe(scope)}`,
    });
  };
  const joinConditions = (select.joins ?? []).map((join: AstNode) => join.on);
  for (const clause of [
    select.expressions,
    select.where_clause,
    select.group_by,
    select.having,
    joinConditions,
  ]) {
    visitFreeColumns(clause, check);
  }
}
