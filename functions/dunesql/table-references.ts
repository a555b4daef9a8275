import type { SqlTableReferenceParser, TableReference } from '../core/lineage';
import { unreadableSqlError } from '../core/lineage';
import { QUERY_VIEW_NAME, type QueryViewOccurrence } from '../core/query-views';
import { nodeType } from './ast';
import { isCatalogStatement, PUBLIC_CATALOG } from './information-schema';
import { compactLiteralRows } from './literal-rows';
import { type AstNode, loadPolyglot } from './polyglot';
import { isShowFunctions } from './show-functions';
import { lineColumnAt, type PreparedSource, prepareSource, userOffset } from './source-text';

/** Statement kinds that read data (what the engines run); anything else is refused for lineage too. */
const QUERY_KINDS = new Set(['select', 'union', 'intersect', 'except', 'values', 'subquery']);

interface Identifier {
  name: string;
  quoted?: boolean;
  span: { start: number; end: number };
}

/**
 * Lineage for DuneSQL, the dialect users write: the tables a query reads, found by walking the
 * syntax tree of polyglot's Trino parser (the same parse the translator uses), so it runs the same
 * in Lambda and on the local host and agrees with what Athena will parse.
 *
 * Scoping follows Trino: a CTE is visible in the query after its WITH clause and in the CTEs defined
 * after it; a CTE of a `WITH RECURSIVE` clause is also visible in its own body. A CTE name shadows a
 * one-part table name only; `schema.table` is always a table.
 */
export class DuneSqlTableReferenceParser implements SqlTableReferenceParser {
  async tablesReadBy(sql: string): Promise<TableReference[]> {
    const { statement } = await parseQuery(sql);
    if (!statement) return [];
    const found = new Map<string, TableReference>();
    collectTables(statement, new Set(), (table, scope) => addTable(table, scope, found));
    return [...found.values()];
  }

  async queryViewsCalledBy(sql: string): Promise<QueryViewOccurrence[]> {
    const { statement, source } = await parseQuery(sql);
    if (!statement) return [];
    const occurrences: QueryViewOccurrence[] = [];
    collectTables(statement, new Set(), (table, scope) => {
      const name: Identifier | null = table.name;
      if (!name || table.schema || table.catalog || !QUERY_VIEW_NAME.test(name.name)) return;
      if (scope.has(name.name.toLowerCase())) return;
      const start = userOffset(source, name.span.start);
      const end = userOffset(source, name.span.end);
      occurrences.push({ name: name.name, start, end, aliased: Boolean(table.alias) });
    });
    return occurrences;
  }
}

/** The query's syntax tree; none for a catalog statement (SHOW TABLES, DESCRIBE, SHOW FUNCTIONS), which reads no table. */
async function parseQuery(sql: string): Promise<{ statement?: AstNode; source: PreparedSource }> {
  const polyglot = await loadPolyglot();
  const prepared = prepareSource(sql);
  // Rows of literals read no table: a long list is parsed by a few of its rows (literal-rows.ts).
  const source = compactLiteralRows(prepared)?.source ?? prepared;
  if (source.unterminatedComment !== undefined) {
    throw unreadableSqlError('unterminated /* comment', lineColumnAt(sql, source.unterminatedComment));
  }
  if (/^[\s;]*$/.test(source.withoutComments)) throw unreadableSqlError('the SQL is empty');
  if (isShowFunctions(source.withoutComments)) return { source };
  const parsed = polyglot.parse(source.text, polyglot.Dialect.Trino);
  if (!parsed.success || !parsed.ast) {
    const position =
      parsed.errorStart === undefined ? undefined : lineColumnAt(sql, source.toUserOffset(parsed.errorStart));
    throw unreadableSqlError(
      `syntax error: ${(parsed.error ?? 'the query cannot be parsed').replace(/ at line \d+, column \d+/, '')}`,
      position,
    );
  }
  if (parsed.ast.length !== 1) {
    throw unreadableSqlError(`expected one statement, found ${parsed.ast.length}`);
  }
  const statement = parsed.ast[0];
  if (isCatalogStatement(source.withoutComments)) return { source };
  if (!QUERY_KINDS.has(nodeType(statement) ?? '')) {
    throw unreadableSqlError(
      'only a query (SELECT, WITH ... SELECT, VALUES, set operations) has tables to read',
    );
  }
  return { statement, source };
}

type TableVisitor = (table: AstNode, scope: ReadonlySet<string>) => void;

/** Walks the tree in document order, calling `visit` on every table with the CTE names in scope (lower case). */
export function collectTables(node: AstNode, scope: ReadonlySet<string>, visit: TableVisitor): void {
  if (Array.isArray(node)) {
    for (const child of node) collectTables(child, scope, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const type = nodeType(node);
  if (type === 'table') {
    visit(node.table, scope);
    return;
  }
  const body = type ? node[type] : node;
  if (!body || typeof body !== 'object') return;
  const ctes: AstNode[] = body.with?.ctes ?? [];
  let inner = scope;
  if (ctes.length > 0) {
    const recursive = body.with.recursive === true;
    const visible = new Set(scope);
    for (const cte of ctes) {
      const name = String(cte.alias?.name ?? '').toLowerCase();
      if (recursive) visible.add(name);
      collectTables(cte.this, new Set(visible), visit);
      visible.add(name);
    }
    inner = visible;
  }
  for (const key of Object.keys(body)) {
    if (key === 'with' || key === 'span') continue;
    collectTables(body[key], inner, visit);
  }
}

function addTable(table: AstNode, scope: ReadonlySet<string>, found: Map<string, TableReference>): void {
  // `delta_prod.ethereum.blocks` is the public table `ethereum.blocks` (information-schema.ts).
  const publicCatalog = table.catalog?.name.toLowerCase() === PUBLIC_CATALOG && table.schema;
  const parts = [publicCatalog ? null : table.catalog, table.schema, table.name] as (Identifier | null)[];
  const [catalog, schema, name] = parts.map((part) => (part ? part.name : undefined));
  if (!name) return;
  if (!catalog && !schema && scope.has(name.toLowerCase())) return;
  // A catalog's information_schema lists its tables; it is not a stored table (information-schema.ts).
  if (schema?.toLowerCase() === 'information_schema') return;
  const text = parts
    .filter((part): part is Identifier => Boolean(part))
    .map((part) => (part.quoted ? `"${part.name.replaceAll('"', '""')}"` : part.name))
    .join('.');
  const key = [catalog, schema, name].filter(Boolean).join('.').toLowerCase();
  if (found.has(key)) return;
  found.set(key, { ...(catalog ? { catalog } : {}), ...(schema ? { schema } : {}), table: name, text });
}
