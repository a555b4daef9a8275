/**
 * Trino's row limits DuckDB does not parse, written for the local engine (Athena runs them as they
 * are; trino.io/docs/current/sql/select.html, "LIMIT or FETCH FIRST clause" and "OFFSET clause"):
 * - `LIMIT ALL`, no limit: DuckDB reads `all` as a column ("Referenced column all not found").
 * - `[OFFSET m] FETCH {FIRST | NEXT} n ROWS WITH TIES`: the n rows after the first m, in the ORDER
 *   BY's order, and every further row whose ordering values equal the last one's. A row is kept when
 *   its rank (1 + the rows ordered before it) is at most m + n and its row number is past m; the
 *   query is wrapped to number its rows, filtered, and ordered by the row numbers.
 */
import { instantiate, rewrite } from './ast';
import type { AstNode, loadPolyglot } from './polyglot';

type Polyglot = Awaited<ReturnType<typeof loadPolyglot>>;

const RANK = 'dunesql_rank';
const ROW = 'dunesql_row';

/**
 * The statement with its LIMIT ALL and WITH TIES rewritten for DuckDB (in place, but a statement
 * that is itself a WITH TIES select is wrapped: the wrapper is returned), or undefined if unchanged.
 */
export function rowLimitsForDuckDb(
  polyglot: Polyglot,
  statement: AstNode,
  /** Names the select's unaliased expression columns as Trino names them (`_col<N>`). */
  nameColumns: (select: AstNode) => void,
): AstNode | undefined {
  let changed = false;
  const rewritten = rewrite(statement, (node, type) => {
    const body = node[type];
    if (isLimitAll(body?.limit)) {
      body.limit = null;
      changed = true;
    }
    if (type !== 'select' || !body.fetch?.with_ties || !body.order_by?.expressions?.length) return undefined;
    // DISTINCT applies after the window would number the rows: left as is (DuckDB refuses it).
    if (body.distinct) return undefined;
    changed = true;
    return withTies(polyglot, node, nameColumns);
  });
  return changed ? rewritten : undefined;
}

/** `LIMIT ALL`: polyglot reads ALL as an unquoted column. */
const isLimitAll = (limit: AstNode) =>
  limit?.this?.column && !limit.this.column.table && !limit.this.column.name?.quoted
    ? String(limit.this.column.name.name).toLowerCase() === 'all'
    : false;

function withTies(polyglot: Polyglot, node: AstNode, nameColumns: (select: AstNode) => void): AstNode {
  const select = node.select;
  const ordering: AstNode[] = select.order_by.expressions.map((item: AstNode) => ({
    ...structuredClone(item),
    this: orderedExpression(select.expressions, item.this),
  }));
  const count = select.fetch.count ?? instantiate(polyglot, '1', []);
  const offset = select.offset?.this ?? instantiate(polyglot, '0', []);
  select.fetch = null;
  select.offset = null;
  select.order_by = null;
  nameColumns(node);
  const numbered = (fn: string, name: string) => {
    const column = instantiate(polyglot, `${fn}() OVER (ORDER BY 1) AS ${name}`, []);
    column.alias.this.window_function.over.order_by = structuredClone(ordering);
    return column;
  };
  select.expressions.push(numbered('rank', RANK), numbered('row_number', ROW));
  const parsed = polyglot.parse(
    `SELECT * EXCLUDE (${RANK}, ${ROW}) FROM (SELECT 1) AS dunesql_ties ORDER BY ${ROW}`,
    polyglot.Dialect.Trino,
  );
  if (!parsed.success || !parsed.ast)
    throw new Error(`DuneSQL translation failed: WITH TIES: ${parsed.error}`);
  const outer = (parsed.ast[0] as AstNode).select;
  outer.from.expressions[0].subquery.this = node;
  outer.where_clause = {
    this: instantiate(polyglot, `${RANK} <= __1 + __2 AND ${ROW} > __2`, [count, offset]),
  };
  return parsed.ast[0];
}

/**
 * An ORDER BY item as a window's ORDER BY can read it: a position (`ORDER BY 2`) or an output
 * alias (which Trino's ORDER BY reads first) becomes the select expression it names.
 */
function orderedExpression(expressions: AstNode[], key: AstNode): AstNode {
  const position = key?.literal?.literal_type === 'number' ? Number(key.literal.value) : undefined;
  if (position !== undefined && Number.isInteger(position) && expressions[position - 1]) {
    const expression = expressions[position - 1];
    return structuredClone(expression.alias ? expression.alias.this : expression);
  }
  const name = key?.column && !key.column.table ? String(key.column.name?.name).toLowerCase() : undefined;
  const aliased = expressions.find(
    (expression) => expression.alias && String(expression.alias.alias?.name).toLowerCase() === name,
  );
  return structuredClone(aliased ? aliased.alias.this : key);
}
