import { functionCall, instantiate, nodeType, rewrite, type TemplateParser } from './ast';
import type { AstNode } from './polyglot';

/**
 * Aggregates that skip a row whose input is NULL, by polyglot node type or call name, with the
 * argument whose NULL skips it. For these, `agg(x) FILTER (WHERE c)` is `agg(CASE WHEN c THEN x
 * END)`, over zero rows too (each answers as for no input).
 */
const NULL_SKIPPING: Record<string, number> = {
  sum: 0,
  avg: 0,
  min: 0,
  max: 0,
  count: 0,
  arbitrary: 0,
  any_value: 0,
  approx_distinct: 0,
  approx_percentile: 0,
  approx_set: 0,
  merge: 0,
  tdigest_agg: 0,
  qdigest_agg: 0,
  approx_most_frequent: 1,
  histogram: 0,
  map_agg: 0,
  map_union: 0,
  multimap_agg: 0,
  logical_and: 0,
  logical_or: 0,
  bool_and: 0,
  bool_or: 0,
  every: 0,
  stddev: 0,
  stddev_samp: 0,
  stddev_pop: 0,
  variance: 0,
  var_samp: 0,
  var_pop: 0,
  geometric_mean: 0,
  kurtosis: 0,
  skewness: 0,
  bitwise_and_agg: 0,
  bitwise_or_agg: 0,
  bitwise_xor_agg: 0,
};

/**
 * Moves each FILTER clause of a NULL-skipping aggregate into its input (DuckDB target only). The
 * rules rewrite several aggregates into macros, which take no FILTER, and polyglot's DuckDB output
 * drops the clause of others (`arbitrary`, `approx_distinct`, `bool_and`, `var_pop`,
 * `bitwise_and_agg`, …): `sum(x) FILTER (WHERE c)` summed every row. Other aggregates
 * (`array_agg`, `count(*)`, `max_by`, …) keep their clause, which DuckDB applies itself.
 */
export function filtersIntoInputs(polyglot: TemplateParser, statement: AstNode): boolean {
  let changed = false;
  const gate = (call: AstNode, condition: AstNode): boolean => {
    const type = nodeType(call);
    if (!type) return false;
    const name = functionCall(call)?.name ?? type;
    const index = Object.hasOwn(NULL_SKIPPING, name) ? NULL_SKIPPING[name] : undefined;
    if (index === undefined || call[type].star) return false;
    const body = call[type];
    const args: AstNode[] | undefined = body.args ?? (index === 0 ? undefined : []);
    const input = args ? args[index] : body.this;
    if (!input) return false;
    const gated = instantiate(polyglot, 'CASE WHEN __1 THEN __2 END', [condition, input]);
    if (args) args[index] = gated;
    else body.this = gated;
    changed = true;
    return true;
  };
  rewrite(statement, (node, type) => {
    // `max(x, 2) FILTER (…)` and `listagg(…) WITHIN GROUP (…) FILTER (…)` parse as a filter node.
    if (type === 'filter' && node.filter.this && node.filter.expression) {
      return gate(node.filter.this, node.filter.expression) ? node.filter.this : undefined;
    }
    const condition = type ? node[type]?.filter : undefined;
    if (condition && typeof condition === 'object' && gate(node, condition)) node[type!].filter = null;
    return undefined;
  });
  return changed;
}
