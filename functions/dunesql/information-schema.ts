import type { TableDefinition } from '../core/catalog';
import { duckDbTypeOf, duneSqlTypeName } from '../core/sql-types';
import { STORED_RELATION_CATALOGS } from '../core/stored-relations';
import { rewrite } from './ast';
import { DuneSqlError, UnsupportedConstruct } from './errors';
import type { AstNode } from './polyglot';

/**
 * Trino's catalog views and SHOW statements over the service's own table catalog.
 *
 * `information_schema.{schemata,tables,columns}` are answered from the listed tables (the public
 * catalog's definitions, functions/datasets/base-tables.ts, and the stored relations the account
 * may read), not from the engine's own schema: DuckDB's would show its type names (BLOB, UHUGEINT)
 * and its internal catalogs, Athena's the Glue databases and their storage types (uint256 as
 * decimal(38,0)). So both hosts answer alike, in DuneSQL type names, with the catalog's column
 * descriptions as comments. As in Trino, each catalog has its own information_schema:
 * `information_schema.tables` lists the public tables, `dune.information_schema.tables` the
 * uploaded ones, `mv.information_schema.tables` the materialized views. `SHOW CATALOGS`, `SHOW SCHEMAS`,
 * `SHOW TABLES`, `SHOW COLUMNS` and `DESCRIBE` are rewritten to queries over the rows of those
 * views they list, with Trino's output columns.
 */

/** The catalog Dune's public tables live in, as Trino names it (`delta_prod.ethereum.blocks`). */
export const PUBLIC_CATALOG = 'delta_prod';

/** A table information_schema lists. */
export interface ListedTable {
  catalog: string;
  schema: string;
  name: string;
  description?: string;
  columns: readonly { name: string; type: string; description?: string; nullable?: boolean }[];
}

/**
 * What information_schema lists: the public tables, and the stored relations the account may read
 * (materialized views with their engine types, uploads with their declared ones). Each column is
 * typed as a query's result types it: the catalog's `timestamp` is `timestamp(3)`, as both engines
 * read it.
 */
export function listedTables(
  publicTables: readonly TableDefinition[],
  storedRelations: readonly {
    catalog: string;
    schema: string;
    name: string;
    columns: readonly { name: string; type: string }[];
  }[] = [],
): ListedTable[] {
  return [
    ...publicTables.map((table) => ({
      catalog: PUBLIC_CATALOG,
      schema: table.schema,
      name: table.table,
      description: table.description,
      columns: table.columns.map((column) => ({
        ...column,
        type: duneSqlTypeName(duckDbTypeOf(column.type)),
      })),
    })),
    ...storedRelations.map(({ catalog, schema, name, columns }) => ({
      catalog,
      schema,
      name,
      columns: columns.map((column) => ({ name: column.name, type: duneSqlTypeName(column.type) })),
    })),
  ];
}

const CATALOGS = [PUBLIC_CATALOG, ...Object.keys(STORED_RELATION_CATALOGS)];

const SCHEMA_NAME = 'information_schema';

type ViewName = 'schemata' | 'tables' | 'columns';

/** Each view's columns (Trino's) with their types, in order. */
const VIEW_COLUMNS: Record<ViewName, readonly [string, string][]> = {
  schemata: [
    ['catalog_name', 'varchar'],
    ['schema_name', 'varchar'],
  ],
  tables: [
    ['table_catalog', 'varchar'],
    ['table_schema', 'varchar'],
    ['table_name', 'varchar'],
    ['table_type', 'varchar'],
    ['table_comment', 'varchar'],
  ],
  columns: [
    ['table_catalog', 'varchar'],
    ['table_schema', 'varchar'],
    ['table_name', 'varchar'],
    ['column_name', 'varchar'],
    ['ordinal_position', 'bigint'],
    ['column_default', 'varchar'],
    ['is_nullable', 'varchar'],
    ['data_type', 'varchar'],
    ['comment', 'varchar'],
    ['extra_info', 'varchar'],
  ],
};

const isView = (name: string): name is ViewName => Object.hasOwn(VIEW_COLUMNS, name);

const literal = (value: string | number | null) =>
  value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${value.replaceAll("'", "''")}'`;

/** Trino folds unquoted names to lower case, and lists every name so. */
const lower = (name: string) => name.toLowerCase();

function viewRows(
  view: ViewName,
  catalog: string,
  tables: readonly ListedTable[],
): (string | number | null)[][] {
  const listed = tables.filter((table) => table.catalog === catalog);
  switch (view) {
    case 'schemata':
      return [...new Set([SCHEMA_NAME, ...listed.map((table) => lower(table.schema))])]
        .sort()
        .map((schema) => [catalog, schema]);
    case 'tables':
      return listed.map((table) => [
        catalog,
        lower(table.schema),
        lower(table.name),
        catalog === PUBLIC_CATALOG ? 'BASE TABLE' : 'VIEW',
        table.description || null,
      ]);
    case 'columns':
      return listed.flatMap((table) =>
        table.columns.map((column, index) => [
          catalog,
          lower(table.schema),
          lower(table.name),
          lower(column.name),
          index + 1,
          null,
          column.nullable === false ? 'NO' : 'YES',
          column.type,
          column.description || null,
          null,
        ]),
      );
  }
}

/** One catalog's view as a query over literal rows, its columns typed as Trino types them. */
function informationSchemaQuery(view: ViewName, catalog: string, tables: readonly ListedTable[]): string {
  const columns = VIEW_COLUMNS[view];
  const rows = viewRows(view, catalog, tables).map((row) => `(${row.map(literal).join(', ')})`);
  const names = columns.map((_, i) => `c${i}`);
  const select = columns.map(([name, type], i) => `CAST(c${i} AS ${type}) AS ${name}`).join(', ');
  // VALUES needs a row: an empty view is one row of NULLs filtered out.
  const values = rows.length ? rows.join(', ') : `(${names.map(() => 'NULL').join(', ')})`;
  return `SELECT ${select} FROM (VALUES ${values}) AS v(${names.join(', ')})${rows.length ? '' : ' WHERE false'}`;
}

const unknownCatalog = (catalog: string) =>
  `Catalog ${catalog} does not exist: the catalogs are ${CATALOGS.join(', ')} (public tables, uploaded tables, materialized views).`;

/**
 * Replaces each `[catalog.]information_schema.<view>` the statement reads with that catalog's rows.
 * Throws UnsupportedConstruct for a view or catalog there is not.
 */
export function readInformationSchema(
  statement: AstNode,
  tables: readonly ListedTable[],
  derivedTable: (sql: string, table: AstNode) => AstNode,
): boolean {
  let changed = false;
  rewrite(statement, (node, type) => {
    if (type !== 'table') return undefined;
    const table = node.table;
    if (!table.schema || lower(String(table.schema.name)) !== SCHEMA_NAME) return undefined;
    const catalog = table.catalog ? lower(String(table.catalog.name)) : PUBLIC_CATALOG;
    if (!CATALOGS.includes(catalog))
      throw new UnsupportedConstruct(table.catalog.name, unknownCatalog(catalog));
    const view = lower(String(table.name.name));
    if (!isView(view)) {
      throw new UnsupportedConstruct(
        table.name.name,
        `information_schema.${table.name.name} is not available; information_schema has schemata, tables and columns.`,
      );
    }
    changed = true;
    return derivedTable(informationSchemaQuery(view, catalog, tables), table);
  });
  return changed;
}

/**
 * Drops the public catalog from the tables the statement names: `delta_prod.ethereum.blocks`, as
 * Dune's Spellbook writes it, is `ethereum.blocks` (the engines have no catalog of that name).
 */
export function dropPublicCatalog(statement: AstNode): boolean {
  let changed = false;
  rewrite(statement, (node, type) => {
    if (type !== 'table' || !node.table.catalog || !node.table.schema) return undefined;
    if (lower(String(node.table.catalog.name)) !== PUBLIC_CATALOG) return undefined;
    if (lower(String(node.table.schema.name)) === SCHEMA_NAME) return undefined;
    node.table.catalog = null;
    changed = true;
    return node;
  });
  return changed;
}

const NAME = '(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)';
const QUALIFIED = String.raw`${NAME}(?:\s*\.\s*${NAME}){0,2}`;
const PATTERN = "'(?:[^']|'')*'";
const LIKE = String.raw`(?:\s+LIKE\s+(${PATTERN}))?`;
const END = String.raw`\s*;?\s*$`;

const SHOW_CATALOGS = new RegExp(String.raw`^\s*SHOW\s+CATALOGS${LIKE}${END}`, 'i');
const SHOW_SCHEMAS = new RegExp(
  String.raw`^\s*SHOW\s+SCHEMAS(?:\s+(?:FROM|IN)\s+(${NAME}))?${LIKE}${END}`,
  'i',
);
const SHOW_TABLES = new RegExp(
  String.raw`^\s*SHOW\s+TABLES(?:\s+(?:FROM|IN)\s+(${QUALIFIED}))?${LIKE}${END}`,
  'i',
);
const SHOW_COLUMNS = new RegExp(
  String.raw`^\s*SHOW\s+COLUMNS\s+(?:FROM|IN)\s+(${QUALIFIED})${LIKE}${END}`,
  'i',
);
const DESCRIBE = new RegExp(String.raw`^\s*(?:DESCRIBE|DESC)\s+(${QUALIFIED})${END}`, 'i');

/** Whether the statement (without comments) is one of the catalog statements this module answers. */
export function isCatalogStatement(text: string): boolean {
  return [SHOW_CATALOGS, SHOW_SCHEMAS, SHOW_TABLES, SHOW_COLUMNS, DESCRIBE].some((statement) =>
    statement.test(text),
  );
}

/** The parts of a dotted name, unquoted, folded to lower case (Trino's names are case-insensitive). */
function nameParts(text: string): string[] {
  return [...text.matchAll(new RegExp(NAME, 'g'))].map(([part]) =>
    part.startsWith('"') ? part.slice(1, -1).replaceAll('""', '"').toLowerCase() : part.toLowerCase(),
  );
}

function knownCatalog(catalog: string): string {
  if (!CATALOGS.includes(catalog)) throw new DuneSqlError('unsupported', unknownCatalog(catalog));
  return catalog;
}

/**
 * The query a catalog statement (`SHOW CATALOGS|SCHEMAS|TABLES|COLUMNS`, `DESCRIBE`) stands for,
 * with Trino's output columns, over the rows of the information_schema view it lists (only those of
 * the schema or table it names, so its SQL stays small); undefined for any other statement. `text`
 * is the statement without comments.
 */
export function catalogStatementQuery(text: string, tables: readonly ListedTable[]): string | undefined {
  const like = (column: string, pattern: string | undefined) =>
    pattern ? ` WHERE ${column} LIKE ${pattern}` : '';
  /** `SELECT <columns> FROM (<the view's rows>) AS v [WHERE <column> LIKE <pattern>] ORDER BY <order>`. */
  const listing = (
    columns: string,
    view: ViewName,
    catalog: string,
    listed: readonly ListedTable[],
    filter: string,
    order: string,
  ) =>
    `SELECT ${columns} FROM (${informationSchemaQuery(view, catalog, listed)}) AS v${filter} ORDER BY ${order}`;

  let match = SHOW_CATALOGS.exec(text);
  if (match) {
    const rows = CATALOGS.map((catalog) => `(${literal(catalog)})`).join(', ');
    return `SELECT "Catalog" FROM (VALUES ${rows}) AS v("Catalog")${like('"Catalog"', match[1])} ORDER BY 1`;
  }
  match = SHOW_SCHEMAS.exec(text);
  if (match) {
    const catalog = knownCatalog(match[1] === undefined ? PUBLIC_CATALOG : nameParts(match[1])[0]!);
    return listing(
      'schema_name AS "Schema"',
      'schemata',
      catalog,
      tables,
      like('schema_name', match[2]),
      '1',
    );
  }
  match = SHOW_TABLES.exec(text);
  if (match) {
    if (match[1] === undefined) {
      throw new DuneSqlError(
        'unsupported',
        'SHOW TABLES needs a schema, as there is no current one: SHOW TABLES FROM ethereum (SHOW SCHEMAS lists them).',
      );
    }
    const parts = nameParts(match[1]);
    if (parts.length > 2)
      throw new DuneSqlError('syntax', `SHOW TABLES FROM takes a schema, not ${match[1]}.`);
    const catalog = knownCatalog(parts.length === 2 ? parts[0]! : PUBLIC_CATALOG);
    const schema = parts.at(-1)!;
    const inSchema = tables.filter((table) => table.catalog === catalog && lower(table.schema) === schema);
    if (inSchema.length === 0) {
      throw new DuneSqlError(
        'unsupported',
        `Schema ${catalog === PUBLIC_CATALOG ? '' : `${catalog}.`}${schema} does not exist (SHOW SCHEMAS${catalog === PUBLIC_CATALOG ? '' : ` FROM ${catalog}`} lists them).`,
      );
    }
    return listing('table_name AS "Table"', 'tables', catalog, inSchema, like('table_name', match[2]), '1');
  }
  match = SHOW_COLUMNS.exec(text) ?? DESCRIBE.exec(text);
  if (match) {
    const parts = nameParts(match[1]!);
    const statement = /^\s*SHOW/i.test(text) ? 'SHOW COLUMNS' : 'DESCRIBE';
    if (parts.length < 2) {
      throw new DuneSqlError(
        'unsupported',
        `${statement} needs the table's schema, as there is no current one: ${statement === 'DESCRIBE' ? 'DESCRIBE' : 'SHOW COLUMNS FROM'} ethereum.transactions.`,
      );
    }
    const catalog = knownCatalog(parts.length === 3 ? parts[0]! : PUBLIC_CATALOG);
    const [schema, name] = parts.slice(-2) as [string, string];
    const table = tables.filter(
      (t) => t.catalog === catalog && lower(t.schema) === schema && lower(t.name) === name,
    );
    if (table.length === 0) {
      throw new DuneSqlError(
        'unsupported',
        catalog === PUBLIC_CATALOG
          ? `Table ${parts.join('.')} does not exist (SHOW TABLES FROM ${schema} lists a schema's tables; searchTables finds them by keyword).`
          : `Table ${parts.join('.')} does not exist: no ${STORED_RELATION_CATALOGS[catalog]} of that name is readable by this account.`,
      );
    }
    return listing(
      `column_name AS "Column", data_type AS "Type", coalesce(extra_info, '') AS "Extra", coalesce(comment, '') AS "Comment"`,
      'columns',
      catalog,
      table,
      like('column_name', match[2]),
      'ordinal_position',
    );
  }
  return undefined;
}
