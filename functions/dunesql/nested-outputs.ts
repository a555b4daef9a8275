/**
 * Finds the output columns of an Athena statement that hold arrays, maps or rows, and rewrites
 * each into JSON text (nested-json.ts), so the results API can return them as JSON. A column's type
 * comes from polyglot's schema-aware analysis where that is reliable (a column read from a table,
 * a CAST) and from a few typing rules of our own for the calls that build arrays and maps
 * (`array_agg`, `ARRAY[…]`, `map_agg`, `split`, …). A column whose type is not known for sure is
 * left as Athena prints it: a wrong guess would make valid SQL fail.
 */
import { findAll, functionCall, instantiate, nodeType } from './ast';
import {
  isNestedJsonType,
  nestedAsJsonText,
  parseTrinoType,
  quoteIdentifier as quote,
  type TrinoType,
  typeText,
} from './nested-json';
import type { AstNode, loadPolyglot } from './polyglot';
import {
  arithmeticType,
  BIGINT,
  BOOLEAN,
  INTERVAL,
  isNumeric,
  numberLiteralType,
  VARCHAR,
} from './scalar-types';

type Polyglot = Awaited<ReturnType<typeof loadPolyglot>>;

/** A table SQL may read, with its columns' Trino types as Athena sees them. */
export interface TableSchema {
  schema: string;
  name: string;
  columns: { name: string; type: string }[];
}

/** An output column returned as JSON text, and its type (Trino's spelling). */
export interface NestedOutput {
  position: number;
  type: string;
}

interface Projection {
  name?: string | null;
  transformKind: string;
  typeHint?: string | null;
  castType?: string | null;
  upstream: { table?: string | null; column?: string | null }[];
}

/** Set operations: their outputs are converted by a SELECT over them (`wrappedAsJson`). */
const SET_OPERATIONS = new Set(['union', 'intersect', 'except']);

/**
 * Rewrites the statement's nested output columns into JSON text, in place, and returns them: a
 * SELECT's own select list, or a select list over a set operation.
 */
export function nestedOutputsAsJson(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
): NestedOutput[] {
  // The analysis is given only the tables the SQL names: passing the whole catalog costs more
  // than analysing the SQL.
  const named = tablesNamed(statement, tables);
  if (!mayHoldNested(statement, named)) return [];
  tables = named;
  const kind = nodeType(statement);
  if (kind && SET_OPERATIONS.has(kind)) return wrappedAsJson(polyglot, statement, kind, tables);
  const select = statement?.select;
  if (!select?.expressions) return [];
  const typing = new Typing(polyglot, statement, tables);
  const projections = typing.analyze(select.expressions);
  if (!projections) return [];
  const stars: { index: number; expandedColumns: string[] }[] = typing.stars;
  const excluded = orderedOutputs(select, projections);
  const orderedNested = [...excluded].some((i) => {
    const type = projections[i] && typing.trusted(projections[i]!);
    return type !== undefined && isNestedJsonType(type);
  });
  if (orderedNested) {
    const wrapped = wrappedAsJson(polyglot, statement, 'select', tables);
    if (wrapped.length) return wrapped;
  }
  const nested: NestedOutput[] = [];
  const rewritten: AstNode[] = [];
  let position = 0;
  select.expressions.forEach((expression: AstNode, index: number) => {
    if (nodeType(expression) === 'star') {
      const star = stars.find((s) => s.index === index);
      const count = star?.expandedColumns.length ?? 0;
      const types = projections.slice(position, position + count).map((p) => typing.trusted(p));
      const expandable = star && count > 0 && typing.canExpand(expression, star.expandedColumns);
      if (
        expandable &&
        types.some((type, k) => type && isNestedJsonType(type) && !excluded.has(position + k))
      ) {
        star.expandedColumns.forEach((name, k) => {
          const column = instantiate(polyglot, columnRef(expression.star.table?.name, name), []);
          const type = types[k];
          if (type && isNestedJsonType(type) && !excluded.has(position + k)) {
            rewritten.push(asJson(polyglot, column, type, name));
            nested.push({ position: position + k, type: typeText(type) });
          } else rewritten.push(column);
        });
      } else rewritten.push(expression);
      position += count || 1;
      return;
    }
    const projection = projections[position];
    const inner = nodeType(expression) === 'alias' ? expression.alias.this : expression;
    const type = projection && (typing.trusted(projection) ?? typing.typeOf(inner));
    if (type && isNestedJsonType(type) && !excluded.has(position)) {
      const name =
        nodeType(expression) === 'alias' || nodeType(inner) === 'column' ? projection.name : undefined;
      rewritten.push(asJson(polyglot, inner, type, name ?? undefined));
      nested.push({ position, type: typeText(type) });
    } else rewritten.push(expression);
    position += 1;
  });
  if (nested.length) select.expressions = rewritten;
  return nested;
}

/** Where nested values come from: calls and nodes that build them, and CASTs to them. */
const NESTED_ORIGINS =
  /"(?:array_agg|array_func|map_keys|map_values)":|"name":"(?:map_agg|multimap_agg|histogram|map|map_from_entries|split|regexp_split|regexp_extract_all|sequence|repeat|zip|approx_percentile|array_agg)"|"data_type":"(?:array|map|struct)"/i;

/** The tables the statement names (of those given): all the analysis needs to know. */
function tablesNamed(statement: AstNode, tables: readonly TableSchema[]): TableSchema[] {
  const named = new Set(
    findAll(statement, 'table').map((node: AstNode) =>
      `${node.table.schema?.name ?? ''}.${node.table.name?.name ?? ''}`.toLowerCase(),
    ),
  );
  return tables.filter((table) => named.has(`${table.schema}.${table.name}`.toLowerCase()));
}

/**
 * Whether the statement can output an array, map or row at all: it reads a table with such a
 * column, builds one, or casts to one. Most SQL does none of that, and skips the analysis.
 */
function mayHoldNested(statement: AstNode, named: readonly TableSchema[]): boolean {
  if (NESTED_ORIGINS.test(JSON.stringify(statement))) return true;
  return named.some((table) => table.columns.some((column) => /^\s*(array|map|row)\s*\(/i.test(column.type)));
}

/**
 * `WITH … SELECT <q's columns, nested ones as JSON> FROM (<query>) AS q ORDER BY …`, for a set
 * operation, or a SELECT ordered by a nested output (ordering by its JSON text would differ). The
 * query's ORDER BY moves out (Trino does not keep a subquery's order) unless a LIMIT or OFFSET
 * needs it inside to pick the rows, and is repeated outside on q's columns, so it still orders by
 * the values. Left alone when an ORDER BY key is not one of the outputs, or the outputs' names are
 * not all distinct and given.
 */
function wrappedAsJson(
  polyglot: Polyglot,
  statement: AstNode,
  kind: string,
  tables: readonly TableSchema[],
): NestedOutput[] {
  const operation = structuredClone(statement[kind]);
  const { with: ctes, order_by: orderBy } = operation;
  operation.with = null;
  if (!operation.limit && !operation.offset) operation.order_by = null;
  const template = polyglot.parse('SELECT * FROM (SELECT 1) AS q', polyglot.Dialect.Trino);
  if (!template.success || !template.ast) return [];
  const outer = template.ast[0] as AstNode;
  outer.select.from.expressions[0].subquery.this = { [kind]: operation };
  outer.select.with = ctes;
  const typing = new Typing(polyglot, outer, tables);
  const projections = typing.analyze(outer.select.expressions);
  const names = typing.stars[0]?.expandedColumns ?? [];
  if (!projections || projections.length !== names.length || names.length === 0) return [];
  const lower = names.map((name) => name.toLowerCase());
  if (new Set(lower).size !== names.length || lower.some((name) => /^_col/.test(name))) return [];
  const keys: AstNode[] = [];
  for (const key of orderBy?.expressions ?? []) {
    const ordinal = key.this?.literal?.literal_type === 'number' ? Number(key.this.literal.value) : undefined;
    const named =
      nodeType(key.this) === 'column' && !key.this.column.table ? key.this.column.name?.name : undefined;
    const index = ordinal !== undefined ? ordinal - 1 : lower.indexOf(String(named ?? '').toLowerCase());
    if (index < 0 || index >= names.length) return [];
    keys.push({ ...key, this: instantiate(polyglot, columnRef('q', names[index]!), []) });
  }
  const nested: NestedOutput[] = [];
  outer.select.expressions = names.map((name, position) => {
    const column = instantiate(polyglot, columnRef('q', name), []);
    const type = typing.trusted(projections[position]!);
    if (!type || !isNestedJsonType(type)) return column;
    nested.push({ position, type: typeText(type) });
    return asJson(polyglot, column, type, name);
  });
  if (!nested.length) return [];
  outer.select.order_by = keys.length ? { ...orderBy, expressions: keys } : null;
  delete statement[kind];
  statement.select = outer.select;
  return nested;
}

function columnRef(qualifier: string | undefined, name: string): string {
  return qualifier ? `${quote(qualifier)}.${quote(name)}` : quote(name);
}

function asJson(polyglot: Polyglot, expression: AstNode, type: TrinoType, name: string | undefined): AstNode {
  const json = nestedAsJsonText('__1', type);
  return instantiate(polyglot, name === undefined ? json : `${json} AS ${quote(name)}`, [expression]);
}

/**
 * Output positions ORDER BY names, by ordinal or by output name (also inside an expression: Trino
 * resolves ORDER BY names to outputs first). Converting one in place would order by its JSON text.
 */
function orderedOutputs(select: AstNode, projections: Projection[]): Set<number> {
  const excluded = new Set<number>();
  for (const { this: key } of select.order_by?.expressions ?? []) {
    const ordinal = key?.literal?.literal_type === 'number' ? Number(key.literal.value) : undefined;
    if (ordinal !== undefined) excluded.add(ordinal - 1);
    for (const column of findAll(key, 'column')) {
      if (column.column.table) continue;
      const name = String(column.column.name?.name ?? '').toLowerCase();
      projections.forEach((p, i) => {
        if (p.name?.toLowerCase() === name) excluded.add(i);
      });
    }
  }
  return excluded;
}

/**
 * Calls whose result has the type of their first argument, by their number of arguments (`max(x,
 * n)` returns an array of the n largest: not the same type, so not listed).
 */
const SAME_AS_FIRST: Readonly<Record<string, number[]>> = {
  filter: [2],
  slice: [3],
  reverse: [1],
  array_sort: [1, 2],
  array_distinct: [1],
  array_remove: [2],
  array_except: [2],
  array_intersect: [2],
  array_union: [2],
  shuffle: [1],
  max: [1],
  min: [1],
  arbitrary: [1],
  any_value: [1],
  max_by: [2],
  min_by: [2],
  nullif: [2],
  try: [1],
  map_filter: [2],
};

class Typing {
  readonly stars: { index: number; expandedColumns: string[] }[] = [];
  private readonly schema: {
    tables: { schema: string; name: string; columns: { name: string; type: string }[] }[];
  };
  private readonly columnTypes = new Map<string, string>();
  /** UNNEST columns are typed wrongly by the analysis (a row's fields, not the row). */
  private readonly hasUnnest: boolean;

  constructor(
    private readonly polyglot: Polyglot,
    private readonly statement: AstNode,
    tables: readonly TableSchema[],
  ) {
    this.schema = { tables: tables.map((t) => ({ schema: t.schema, name: t.name, columns: t.columns })) };
    for (const table of tables) {
      for (const column of table.columns) {
        this.columnTypes.set(`${table.schema}.${table.name}.${column.name}`.toLowerCase(), column.type);
      }
    }
    this.hasUnnest = findAll(statement, 'unnest').length > 0;
  }

  /** The analysis of the statement with the given select list; undefined when it fails. */
  analyze(expressions: AstNode[]): Projection[] | undefined {
    // Clauses that may name outputs by position are dropped: they do not change the types.
    const clauses = { order_by: null, group_by: null, having: null, qualify: null };
    const probe = { ...this.statement, select: { ...this.statement.select, expressions, ...clauses } };
    const generated = this.polyglot.generate([probe], this.polyglot.Dialect.Trino);
    const sql = generated.success ? generated.sql?.[0] : undefined;
    if (!sql) return undefined;
    const result = this.polyglot.analyzeQuery(sql, {
      dialect: this.polyglot.Dialect.Trino,
      schema: this.schema,
    });
    if (!result.success || !result.analysis || result.analysis.shape !== 'select') return undefined;
    if (expressions === this.statement.select.expressions)
      this.stars.push(...result.analysis.starProjections);
    return result.analysis.projections as Projection[];
  }

  /** A projection's type where the analysis is reliable: a CAST, or a column read as stored. */
  trusted(projection: Projection): TrinoType | undefined {
    if (projection.transformKind === 'cast' && projection.castType)
      return parseTrinoType(projection.castType);
    if (projection.transformKind !== 'direct' || !projection.typeHint) return undefined;
    const type = parseTrinoType(projection.typeHint);
    if (!type || !this.hasUnnest) return type;
    // With UNNEST about, only a column whose stored type agrees with the analysis.
    const [source] = projection.upstream;
    const stored = source?.table && this.columnTypes.get(`${source.table}.${source.column}`.toLowerCase());
    const storedType = stored ? parseTrinoType(stored) : undefined;
    return projection.upstream.length === 1 && storedType && typeText(storedType) === typeText(type)
      ? type
      : undefined;
  }

  /**
   * The type of an expression of the top-level select list, by our rules; undefined if unsure.
   * `lambda` holds the types of the parameters of the lambdas the expression is inside.
   */
  typeOf(node: AstNode, lambda: ReadonlyMap<string, TrinoType> = new Map()): TrinoType | undefined {
    const typeOf = (child: AstNode) => this.typeOf(child, lambda);
    const type = nodeType(node);
    switch (type) {
      case 'alias':
        return typeOf(node.alias.this);
      case 'paren':
        return typeOf(node.paren.this);
      case 'literal':
        return literalType(node.literal);
      case 'boolean':
        return BOOLEAN;
      case 'interval':
        return INTERVAL;
      case 'add':
      case 'sub':
      case 'mul':
      case 'div':
      case 'mod':
        return arithmeticType(type, typeOf(node[type].left), typeOf(node[type].right));
      case 'neg': {
        const operand = typeOf(node.neg.this);
        return isNumeric(operand) ? operand : undefined;
      }
      case 'concat': {
        const [left, right] = [typeOf(node.concat.left), typeOf(node.concat.right)];
        return left && right && typeText(left) === typeText(right) ? left : undefined;
      }
      case 'column': {
        // A lambda's parameter, or a field of one (`x.value` parses as column value of table x).
        const name = String(node.column.name?.name ?? '').toLowerCase();
        const table = node.column.table && String(node.column.table.name).toLowerCase();
        if (!table && lambda.has(name)) return lambda.get(name);
        if (table && lambda.has(table)) return fieldOf(lambda.get(table), name);
        const [projection] = this.analyze([node]) ?? [];
        return projection && this.trusted(projection);
      }
      case 'cast': {
        const [projection] = this.analyze([node]) ?? [];
        return projection && this.trusted(projection);
      }
      case 'array_agg': {
        const element = typeOf(node.array_agg.this);
        return element && { kind: 'array', element };
      }
      case 'array_func': {
        const types = (node.array_func.expressions ?? []).map((e: AstNode) => typeOf(e));
        const [first] = types;
        if (!first || types.some((t: TrinoType | undefined) => !t || typeText(t) !== typeText(first)))
          return undefined;
        return { kind: 'array', element: first };
      }
      case 'subscript':
      case 'element_at': {
        const base = typeOf(node[type].this);
        if (base?.kind === 'array') return base.element;
        return base?.kind === 'map' ? base.value : undefined;
      }
      case 'dot':
        return fieldOf(typeOf(node.dot.this), String(node.dot.field?.name ?? '').toLowerCase());
      case 'coalesce':
        return sameType((node.coalesce.expressions ?? []).map(typeOrSkip(typeOf)));
      case 'if_func':
        return sameType([node.if_func.true_value, node.if_func.false_value].map(typeOrSkip(typeOf)));
      case 'case':
        return sameType(
          [...(node.case.whens ?? []).map((when: AstNode[]) => when[1]), node.case.else_].map(
            typeOrSkip(typeOf),
          ),
        );
    }
    if (type && BOOLEAN_NODES.has(type)) return BOOLEAN;
    // Generic calls, and the calls polyglot gives a node type of their own (`map_keys`, `max`, …).
    const call = functionCall(node) ?? (type ? ownNodeCall(node, type) : undefined);
    if (!call) return undefined;
    if (Object.hasOwn(SCALAR_RESULTS, call.name)) return SCALAR_RESULTS[call.name];
    switch (call.name) {
      case 'abs':
      case 'date_trunc': {
        const operand = call.args.at(-1) && typeOf(call.args.at(-1));
        return call.name === 'date_trunc' || isNumeric(operand) ? operand : undefined;
      }
      case 'split':
      case 'regexp_split':
      case 'regexp_extract_all':
        return { kind: 'array', element: { kind: 'scalar', name: 'varchar' } };
      case 'sequence': {
        // Integers step as bigint; dates and timestamps keep their type.
        const start = call.args[0] && typeOf(call.args[0]);
        if (start?.kind !== 'scalar') return undefined;
        const integer = /^(tinyint|smallint|integer|int|bigint)$/.test(start.name);
        return { kind: 'array', element: integer ? { kind: 'scalar', name: 'bigint' } : start };
      }
      case 'transform':
      case 'zip_with': {
        // The lambda's parameters are the arrays' elements; the result is an array of its body.
        const arrays = call.args.slice(0, -1).map(typeOf);
        if (!arrays.every((a) => a?.kind === 'array')) return undefined;
        const elements = arrays.map((a) => (a as { element: TrinoType }).element);
        const body = this.lambdaBody(call.args.at(-1), elements, lambda);
        return body && { kind: 'array', element: body };
      }
      case 'transform_values':
      case 'transform_keys': {
        const map = call.args[0] && typeOf(call.args[0]);
        if (map?.kind !== 'map') return undefined;
        const body = this.lambdaBody(call.args[1], [map.key, map.value], lambda);
        if (!body) return undefined;
        return call.name === 'transform_values' ? { ...map, value: body } : { ...map, key: body };
      }
      case 'map': {
        const [keys, values] = call.args.map((arg) => typeOf(arg));
        if (keys?.kind !== 'array' || values?.kind !== 'array') return undefined;
        return { kind: 'map', key: keys.element, value: values.element };
      }
      case 'flatten': {
        const nested = call.args[0] && typeOf(call.args[0]);
        return nested?.kind === 'array' && nested.element.kind === 'array' ? nested.element : undefined;
      }
      case 'array_max':
      case 'array_min': {
        const array = call.args[0] && typeOf(call.args[0]);
        return array?.kind === 'array' ? array.element : undefined;
      }
      case 'concat':
      case 'map_concat': {
        // Arrays (or maps) of one type concatenate into that type; strings are handled as scalars.
        const types = call.args.map(typeOf);
        const [first] = types;
        const collection = first?.kind === 'array' || first?.kind === 'map';
        return collection && types.every((t) => t && typeText(t) === typeText(first)) ? first : undefined;
      }
      case 'repeat': {
        const element = call.args[0] && typeOf(call.args[0]);
        return element && { kind: 'array', element };
      }
      case 'approx_percentile': {
        // With an array of percentages, an array of values of the input's type.
        const [value, percentages] = [call.args[0], call.args.at(-1)];
        if (call.args.length < 2 || nodeType(percentages) !== 'array_func') return undefined;
        const element = typeOf(value);
        return element && { kind: 'array', element };
      }
      case 'map_agg': {
        const [key, value] = call.args.map((arg) => typeOf(arg));
        return key && value ? { kind: 'map', key, value } : undefined;
      }
      case 'histogram': {
        const key = call.args[0] && typeOf(call.args[0]);
        return key && { kind: 'map', key, value: { kind: 'scalar', name: 'bigint' } };
      }
      case 'map_keys':
      case 'map_values': {
        const map = call.args[0] && typeOf(call.args[0]);
        if (map?.kind !== 'map') return undefined;
        return { kind: 'array', element: call.name === 'map_keys' ? map.key : map.value };
      }
    }
    const arities = Object.hasOwn(SAME_AS_FIRST, call.name) ? SAME_AS_FIRST[call.name] : undefined;
    if (arities?.includes(call.args.length)) return typeOf(call.args[0]);
    return undefined;
  }

  /** The type of a lambda's body, its parameters bound to the given types. */
  private lambdaBody(
    node: AstNode,
    parameters: TrinoType[],
    outer: ReadonlyMap<string, TrinoType>,
  ): TrinoType | undefined {
    const names: AstNode[] = node?.lambda?.parameters ?? [];
    if (names.length !== parameters.length) return undefined;
    const bound = new Map(outer);
    for (const [i, name] of names.entries()) bound.set(String(name.name).toLowerCase(), parameters[i]!);
    return this.typeOf(node.lambda.body, bound);
  }

  /**
   * Whether a star can be written out as its columns: a qualified one always; `*` only over a
   * single FROM item (with joins, a column name may be ambiguous) with distinct names.
   */
  canExpand(star: AstNode, names: string[]): boolean {
    if (star.star.except || star.star.replace || star.star.rename) return false;
    if (star.star.table) return true;
    const select = this.statement.select;
    const single = (select.from?.expressions?.length ?? 0) === 1 && !(select.joins?.length > 0);
    return single && new Set(names.map((n) => n.toLowerCase())).size === names.length;
  }
}

/** Branch values that say nothing of the type: absent, NULL, an empty `ARRAY[]`. */
const SKIP = Symbol('skip');

function typeOrSkip(typeOf: (node: AstNode) => TrinoType | undefined) {
  return (node: AstNode): TrinoType | undefined | typeof SKIP => {
    const kind = nodeType(node);
    if (!node || kind === 'null' || (kind === 'array_func' && !node.array_func.expressions?.length))
      return SKIP;
    return typeOf(node);
  };
}

/** The type every branch has (CASE, IF, COALESCE); undefined when one is unknown or they differ. */
function sameType(branches: (TrinoType | undefined | typeof SKIP)[]): TrinoType | undefined {
  const types = branches.filter((branch) => branch !== SKIP);
  const [first] = types;
  if (!first || types.some((t) => !t || typeText(t) !== typeText(first))) return undefined;
  return first;
}

function fieldOf(row: TrinoType | undefined, field: string): TrinoType | undefined {
  return row?.kind === 'row' ? row.fields.find((f) => f.name === field)?.type : undefined;
}

/** A call polyglot parses into a node of its own: its operands in order. */
function ownNodeCall(node: AstNode, type: string): { name: string; args: AstNode[] } | undefined {
  const body = node[type];
  if (!body || typeof body !== 'object') return undefined;
  const args = [body.this, body.expression, ...(Array.isArray(body.expressions) ? body.expressions : [])];
  return { name: type, args: args.filter((arg) => arg && typeof arg === 'object') };
}

/** Operators and predicates whose value is a boolean. */
const BOOLEAN_NODES = new Set([
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'and',
  'or',
  'not',
  'is_null',
  'like',
  'ilike',
  'between',
  'in',
  'exists',
]);

/** Calls whose result type does not depend on their arguments. */
const SCALAR_RESULTS: Readonly<Record<string, TrinoType>> = {
  length: BIGINT,
  cardinality: BIGINT,
  lower: VARCHAR,
  upper: VARCHAR,
  to_hex: VARCHAR,
  format: VARCHAR,
  date_format: VARCHAR,
  format_datetime: VARCHAR,
  concat_ws: VARCHAR,
  from_hex: { kind: 'scalar', name: 'varbinary' },
  starts_with: BOOLEAN,
  contains: BOOLEAN,
  regexp_like: BOOLEAN,
};

/** Trino's type of a literal: strings are varchar; numbers integer, bigint, decimal or double. */
function literalType(literal: AstNode): TrinoType | undefined {
  if (literal?.literal_type === 'string') return VARCHAR;
  return literal?.literal_type === 'number' ? numberLiteralType(String(literal.value)) : undefined;
}
