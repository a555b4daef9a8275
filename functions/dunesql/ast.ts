import type { AstNode, loadPolyglot } from './polyglot';

/** What `instantiate` needs of polyglot: its Trino parser. */
export type TemplateParser = Pick<Awaited<ReturnType<typeof loadPolyglot>>, 'parse' | 'Dialect'>;

type Visitor = (node: AstNode, type: string) => AstNode | undefined;

/** The node types of set operations (their branches are `left` and `right`). */
export const SET_OPERATIONS: ReadonlySet<string> = new Set(['union', 'intersect', 'except']);

/** The type of an AST node: its single key (`function`, `sum`, `cast`, `select`, ...). */
export function nodeType(node: AstNode): string | undefined {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return undefined;
  const keys = Object.keys(node);
  return keys.length === 1 ? keys[0] : undefined;
}

/**
 * Rewrites an AST bottom-up, in place: children first, then the node itself; a visitor that returns
 * a node replaces the visited one.
 */
export function rewrite(node: AstNode, visit: Visitor): AstNode {
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) node[i] = rewrite(node[i], visit);
    return node;
  }
  if (!node || typeof node !== 'object') return node;
  for (const key of Object.keys(node)) {
    if (key === 'span' || key === 'trailing_comments' || key === 'leading_comments') continue;
    node[key] = rewrite(node[key], visit);
  }
  const type = nodeType(node);
  if (!type) return node;
  return visit(node, type) ?? node;
}

/** Every node of a type, in document order. */
export function findAll(node: AstNode, type: string, found: AstNode[] = []): AstNode[] {
  if (Array.isArray(node)) {
    for (const child of node) if (child && typeof child === 'object') findAll(child, type, found);
  } else if (node && typeof node === 'object') {
    // Keys read once per node (not again for its type): large queries are walked many times.
    const keys = Object.keys(node);
    if (keys.length === 1 && keys[0] === type) found.push(node);
    for (const key of keys) {
      const child = node[key];
      if (key !== 'span' && child && typeof child === 'object') findAll(child, type, found);
    }
  }
  return found;
}

/** Whether any node answers `test` (stops at the first that does). */
export function someNode(node: AstNode, test: (node: AstNode, type: string) => boolean): boolean {
  if (Array.isArray(node)) return node.some((child) => someNode(child, test));
  if (!node || typeof node !== 'object') return false;
  const type = nodeType(node);
  if (type && test(node, type)) return true;
  return Object.keys(node).some((key) => key !== 'span' && someNode(node[key], test));
}

/**
 * Replaces, in place, the column references `visit` answers for, leaving alone those a lambda
 * around them binds (`x` or `x.field` inside `x -> …`). `visit` sees every other column node and
 * returns its replacement, or undefined to keep it. Returns the node, replaced if it is a column.
 */
export function mapFreeColumns(node: AstNode, visit: (column: AstNode) => AstNode | undefined): AstNode {
  const walk = (current: AstNode, bound: ReadonlySet<string>): AstNode => {
    if (Array.isArray(current)) return current.map((child) => walk(child, bound));
    if (!current || typeof current !== 'object') return current;
    const type = nodeType(current);
    if (type === 'column') {
      const head = String(current.column.table?.name ?? current.column.name?.name ?? '').toLowerCase();
      return bound.has(head) ? current : (visit(current) ?? current);
    }
    const inner =
      type === 'lambda'
        ? new Set([
            ...bound,
            ...(current.lambda.parameters ?? []).map((p: AstNode) => String(p.name).toLowerCase()),
          ])
        : bound;
    for (const key of Object.keys(current)) current[key] = walk(current[key], inner);
    return current;
  };
  return walk(node, new Set());
}

/** The lower-case name of a column reference (its last part). */
export const columnName = (column: AstNode) => String(column.column.name?.name ?? '').toLowerCase();

/** A generic function call's lower-case name and arguments, if the node is one. */
export function functionCall(node: AstNode): { name: string; args: AstNode[] } | undefined {
  const call = node?.function ?? node?.aggregate_function;
  if (!call || typeof call.name !== 'string') return undefined;
  return { name: call.name.toLowerCase(), args: call.args ?? [] };
}

/** The string value of a string literal node. */
export function stringLiteral(node: AstNode): string | undefined {
  const literal = node?.literal;
  return literal?.literal_type === 'string' ? String(literal.value) : undefined;
}

/** Aggregate functions by polyglot node type or call name (lower case). */
const AGGREGATES = new Set([
  'sum',
  // The local engine's sum(DISTINCT …) (its helper's name, less the prefix).
  'sum_distinct',
  'count',
  'count_if',
  'avg',
  'min',
  'max',
  'min_by',
  'max_by',
  'arbitrary',
  'any_value',
  'approx_distinct',
  'approx_percentile',
  'approx_set',
  'merge',
  'tdigest_agg',
  'qdigest_agg',
  'array_agg',
  'map_agg',
  'map_union',
  'multimap_agg',
  'histogram',
  'listagg',
  'string_agg',
  'bool_and',
  'bool_or',
  'logical_and',
  'logical_or',
  'list_agg',
  'within_group',
  'every',
  'stddev',
  'stddev_samp',
  'stddev_pop',
  'variance',
  'var_samp',
  'var_pop',
  'corr',
  'covar_samp',
  'covar_pop',
  'geometric_mean',
  'checksum',
  'bitwise_and_agg',
  'bitwise_or_agg',
  'aggregate_function',
  'window_function',
]);

/** Whether a function name (lower case) is an aggregate's. */
export const isAggregateName = (name: string) => AGGREGATES.has(name);

/**
 * Whether an expression computes an aggregate or window value at this query level (subqueries are
 * their own level). DuckDB types a macro's arguments before aggregation, so a macro that picks an
 * overload by type cannot see the type of such an argument.
 */
export function containsAggregate(
  node: AstNode,
  callName: (name: string) => string = (name) => name,
): boolean {
  if (Array.isArray(node)) return node.some((child) => containsAggregate(child, callName));
  if (!node || typeof node !== 'object') return false;
  const type = nodeType(node);
  if (type === 'subquery' || type === 'select' || type === 'exists') return false;
  if (type && (AGGREGATES.has(type) || AGGREGATES.has(callName(functionCall(node)?.name ?? '')))) return true;
  return Object.entries(node).some(([key, child]) => key !== 'span' && containsAggregate(child, callName));
}

const templateCache = new Map<string, AstNode>();

/** A node from a template expression, `__1`, `__2`, ... replaced by the given nodes. */
export function instantiate(polyglot: TemplateParser, expression: string, args: AstNode[]): AstNode {
  let template = templateCache.get(expression);
  if (!template) {
    const parsed = polyglot.parse(`SELECT ${expression}`, polyglot.Dialect.Trino);
    if (!parsed.success || !parsed.ast)
      throw new Error(`DuneSQL translation failed: template ${expression}: ${parsed.error}`);
    template = (parsed.ast[0] as AstNode).select.expressions[0];
    templateCache.set(expression, template);
  }
  return rewrite(structuredClone(template), (node, type) => {
    if (type !== 'column' || node.column.table) return undefined;
    const match = /^__(\d+)$/.exec(node.column.name?.name ?? '');
    return match ? structuredClone(args[Number(match[1]) - 1]) : undefined;
  });
}
