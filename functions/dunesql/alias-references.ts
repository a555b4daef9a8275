import { nodeType } from './ast';
import type { AstNode } from './polyglot';

/**
 * Trino resolves the names in WHERE, GROUP BY, HAVING and the select list against the columns of
 * the FROM clause only, never against the select list's aliases (ORDER BY alone may use them:
 * "Column 'day' cannot be resolved"). DuckDB falls back to the aliases, so `… as day … group by
 * day` ran on the local host and failed on Athena and on Dune. Found while the output types are
 * scoped (output-types.ts), where every FROM item's columns are known.
 */

/** A select-list alias used where Trino cannot see it. */
export interface AliasReference {
  name: string;
  /** Code-point offset of the reference in the text translated. */
  offset: number | undefined;
  message: string;
}

/** What a FROM item offers, as output-types.ts scopes it. */
interface ScopedColumns {
  columns?: { name?: string }[];
  complete: boolean;
}

const lower = (name: unknown) => String(name ?? '').toLowerCase();

/** Nodes whose names are their own scope: nested queries, and lambdas' parameters. */
const OWN_SCOPE = new Set(['select', 'subquery', 'union', 'intersect', 'except', 'lambda']);

/**
 * Adds the references in `select` to its own aliases that no FROM column answers to, nor a column
 * of an enclosing query (`outer`: a correlated subquery may name one; undefined where not known).
 * Returns the names of its FROM columns (undefined if not all are known): the scope its
 * expressions' subqueries see around them.
 */
export function collectAliasReferences(
  select: AstNode,
  scope: readonly ScopedColumns[],
  outer: readonly (ReadonlySet<string> | undefined)[],
  found: AliasReference[],
): ReadonlySet<string> | undefined {
  if (scope.some((item) => !item.complete)) return undefined;
  const fromColumns = new Set(scope.flatMap((item) => item.columns!.map((column) => lower(column.name))));
  if (outer.some((names) => names === undefined)) return fromColumns;
  const visible = (name: string) => fromColumns.has(name) || outer.some((names) => names!.has(name));
  const expressions: AstNode[] = select.expressions ?? [];
  const positions = new Map<string, number>();
  expressions.forEach((item, i) => {
    if (nodeType(item) !== 'alias') return;
    const name = lower(item.alias.alias?.name);
    if (name && !visible(name) && !positions.has(name)) positions.set(name, i + 1);
  });
  if (positions.size === 0) return fromColumns;
  const look = (clause: AstNode, message: (name: string) => string) =>
    visitFreeColumns(clause, (column) => {
      const name = lower(column.column.name?.name);
      if (column.column.table || !positions.has(name)) return;
      found.push({ name, offset: column.column.span?.start, message: message(name) });
    });
  const cannot = (name: string) => `Column '${name}' cannot be resolved:`;
  look(
    select.where_clause,
    (name) =>
      `${cannot(name)} WHERE reads the columns of FROM, not the select list's aliases (DuneSQL is Trino). Repeat the expression, or filter in an outer query.`,
  );
  look(
    select.group_by,
    (name) =>
      `${cannot(name)} GROUP BY reads the columns of FROM, not the select list's aliases (DuneSQL is Trino). Write GROUP BY ${positions.get(name)} (its position in the select list) or repeat the expression.`,
  );
  look(
    select.having,
    (name) =>
      `${cannot(name)} HAVING reads the columns of FROM, not the select list's aliases (DuneSQL is Trino). Repeat the aggregate (having count(*) > 1), or filter in an outer query.`,
  );
  for (const item of expressions) {
    look(
      nodeType(item) === 'alias' ? item.alias.this : item,
      (name) =>
        `${cannot(name)} a select list cannot use its own aliases (DuneSQL is Trino). Repeat the expression, or compute it in a subquery.`,
    );
  }
  return fromColumns;
}

/** Calls `visit` on each column reference in `node`, outside nested queries and lambdas. */
export function visitFreeColumns(node: AstNode, visit: (column: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) visitFreeColumns(child, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const type = nodeType(node);
  if (type && OWN_SCOPE.has(type)) return;
  if (type === 'column') {
    visit(node);
    return;
  }
  for (const key of Object.keys(node)) {
    if (key !== 'span') visitFreeColumns(node[key], visit);
  }
}
