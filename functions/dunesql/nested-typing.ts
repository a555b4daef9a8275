/**
 * Types the output columns of a Trino SELECT for the Athena translation (nested-outputs.ts): from
 * polyglot's schema-aware analysis where that is reliable (a column read as stored, a CAST), and
 * from rules of our own for what builds or transforms arrays, maps and rows: Trino's functions
 * that return them, lambdas typed by their bodies, UNNEST's columns, CASE/IF/COALESCE, and the
 * scalars inside (scalar-types.ts). Undefined means "not known for sure": a wrong type would make
 * valid SQL fail, so callers leave such a column alone.
 */
import { findAll, functionCall, nodeType, SET_OPERATIONS } from './ast';
import { parseTrinoType, type TrinoType, typeText } from './nested-json';
import type { AstNode, loadPolyglot } from './polyglot';
import {
  arithmeticType,
  BIGINT,
  BOOLEAN,
  commonSuperType,
  INTERVAL,
  isNumeric,
  numberLiteralType,
  roundedType,
  VARBINARY,
  VARCHAR,
} from './scalar-types';

export type Polyglot = Awaited<ReturnType<typeof loadPolyglot>>;

/** A table SQL may read, with its columns' Trino types as Athena sees them. */
export interface TableSchema {
  schema: string;
  name: string;
  columns: { name: string; type: string }[];
}

/** What polyglot's analysis says of an output column. */
export interface Projection {
  name?: string | null;
  transformKind: string;
  typeHint?: string | null;
  castType?: string | null;
  upstream: { table?: string | null; column?: string | null }[];
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
  map_union: [1],
  trim_array: [2],
  // Strings and varbinary alike (polyglot's substring node lists only the value as an operand).
  substring: [1, 2, 3],
  lpad: [3],
  rpad: [3],
  // Window functions that return a row's value: the `window_function` node holds them.
  lag: [1, 2, 3],
  lead: [1, 2, 3],
  first_value: [1],
  last_value: [1],
  nth_value: [2],
};

/** One output column of a SELECT: its name as Trino gives it, and its type if known for sure. */
export interface OutputColumn {
  /** The name Trino gives the column; undefined for an expression without an alias (`_col<n>`). */
  name?: string;
  /** Whether the name was written quoted (its case is then kept). */
  quoted?: boolean;
  type?: TrinoType;
  /** A star's column: the alias of the FROM item it comes from (empty when that has none). */
  source?: string;
}

/** A select list item and the output columns it yields (a star: several). */
export interface SelectItem {
  node: AstNode;
  columns: OutputColumn[];
  /** A star (`*`, `t.*`) and the table it is qualified by. */
  star?: { qualifier?: string };
  /** A star the analysis could not expand: its columns are unknown. */
  unknownStar?: boolean;
  /** A star that can be written out as its columns (`Typing.canExpand`). */
  expandable?: boolean;
}

export class Typing {
  private items?: SelectItem[];
  private findingOutputs = false;
  private sources?: FromColumns[];
  private readonly schema: {
    tables: { schema: string; name: string; columns: { name: string; type: string }[] }[];
  };
  private readonly columnTypes = new Map<string, string>();
  /** UNNEST columns are typed wrongly by the analysis (a row's fields, not the row). */
  private unnestFound?: boolean;
  /** The columns of the SELECT's UNNESTs, by `alias.column` and by column (typeOf of a column). */
  private unnestScope?: Map<string, TrinoType | undefined>;

  /** The CTEs this SELECT can read (the enclosing statements' and its own), by lower-case name. */
  private readonly ctes: Map<string, AstNode>;
  /** Columns the FROM items cannot type, as the analysis types them (each asked for once). */
  private readonly analyzedColumns = new Map<AstNode, TrinoType | undefined>();

  constructor(
    private readonly polyglot: Polyglot,
    private readonly statement: AstNode,
    private readonly tables: readonly TableSchema[],
    enclosingCtes: ReadonlyMap<string, AstNode> = new Map(),
    private readonly depth = 0,
    /**
     * Typings of subqueries and CTEs, made as their columns are asked for, by their query: shared
     * by every typing of one statement, so a CTE many others read is typed once (typed anew by
     * each reader, a chain of CTEs that each read the last two took time exponential in its length).
     */
    private readonly derived = new Map<AstNode, Typing>(),
  ) {
    this.schema = { tables: tables.map((t) => ({ schema: t.schema, name: t.name, columns: t.columns })) };
    for (const table of tables) {
      for (const column of table.columns) {
        this.columnTypes.set(`${table.schema}.${table.name}.${column.name}`.toLowerCase(), column.type);
      }
    }
    this.ctes = new Map(enclosingCtes);
    for (const cte of statement.select?.with?.ctes ?? []) this.ctes.set(lower(cte.alias?.name), cte);
  }

  /** The analysis of the statement with the given select list; undefined when it fails. */
  analyze(expressions: AstNode[]): Projection[] | undefined {
    // Clauses that may name outputs by position are dropped, and so is the filter: they do not
    // change the types. So are the CTEs the rest does not read: polyglot's analysis takes time
    // that grows faster than the SQL (16 CTEs no one reads: ~130 ms).
    const clauses = { order_by: null, group_by: null, having: null, qualify: null, where_clause: null };
    const select = { ...this.statement.select, expressions, ...clauses };
    const { ctes, tables } = this.probeSources(select);
    const withCtes = ctes.length ? { ...select.with, ctes } : null;
    return this.analyzeProbe({ ...this.statement, select: { ...select, with: withCtes } }, tables);
  }

  /**
   * What a probe SELECT reads besides base tables: the CTEs it names, directly or through other
   * CTEs. A CTE whose columns this typing knows is given to the analysis as a table of those
   * columns instead of its SQL, so a probe's size does not grow with the chain of CTEs behind it.
   * (A name a nested WITH shadows keeps the outer CTE too, which only costs time.)
   */
  private probeSources(select: AstNode): { ctes: AstNode[]; tables: TableSchema[] } {
    const ctes: AstNode[] = select.with?.ctes ?? [];
    const byName = new Map(ctes.map((cte) => [lower(cte.alias?.name), cte]));
    const read = new Set<string>();
    const tables: TableSchema[] = [];
    const asTables = new Set<string>();
    const visit = (node: AstNode) => {
      for (const table of findAll(node, 'table')) {
        const name = lower(table.table?.name?.name);
        const cte = byName.get(name);
        if (table.table?.schema || read.has(name) || !cte) continue;
        read.add(name);
        const columns = this.cteColumns(cte);
        if (columns?.every((column) => column.name)) {
          const typed = columns.map((column) => ({
            name: column.name!,
            type: column.type ? typeText(column.type) : 'unknown',
          }));
          tables.push({ schema: '', name: String(cte.alias?.name), columns: typed });
          asTables.add(name);
        } else {
          visit(cte.this);
        }
      }
    };
    visit({ select: { ...select, with: null } });
    const bodies = ctes.filter(
      (cte) => read.has(lower(cte.alias?.name)) && !asTables.has(lower(cte.alias?.name)),
    );
    return { ctes: bodies, tables };
  }

  /** A CTE's output columns, named by its column list if it has one; undefined if not known. */
  private cteColumns(cte: AstNode): OutputColumn[] | undefined {
    const names = (cte.columns ?? []).map((a: AstNode) => String(a.name));
    return renamedColumns(this.queryColumns(cte.this), names);
  }

  /** The type a CAST names (written as the analysis would give it for the CAST). */
  private castType(cast: AstNode): TrinoType | undefined {
    const generated = this.polyglot.generateDataType(cast.to, this.polyglot.Dialect.Trino);
    return generated.success && generated.sql ? parseTrinoType(generated.sql) : undefined;
  }

  private analyzeProbe(probe: AstNode, ctes: readonly TableSchema[] = []): Projection[] | undefined {
    const generated = this.polyglot.generate([probe], this.polyglot.Dialect.Trino);
    const sql = generated.success ? generated.sql?.[0] : undefined;
    if (!sql) return undefined;
    const result = this.polyglot.analyzeQuery(sql, {
      dialect: this.polyglot.Dialect.Trino,
      schema: ctes.length ? { tables: [...this.schema.tables, ...ctes] } : this.schema,
    });
    if (!result.success || !result.analysis || result.analysis.shape !== 'select') return undefined;
    return result.analysis.projections as Projection[];
  }

  /**
   * The output columns of the statement's SELECT, item by item: names as Trino gives them, types
   * from the analysis where reliable, else from our rules. Undefined when the analysis fails.
   */
  outputs(): SelectItem[] | undefined {
    if (this.items) return this.items;
    // A recursive CTE reads itself: while its columns are being found, they are not known.
    if (this.findingOutputs) return undefined;
    this.findingOutputs = true;
    try {
      return this.findOutputs();
    } finally {
      this.findingOutputs = false;
    }
  }

  private findOutputs(): SelectItem[] | undefined {
    const select = this.statement.select;
    // Stars are expanded from the FROM items' columns; the analysis types the other items.
    const listed: AstNode[] = select.expressions.filter((node: AstNode) => !starOf(node));
    const projections = listed.length ? this.analyze(listed) : [];
    if (!projections || projections.length !== listed.length) return undefined;
    const items: SelectItem[] = [];
    let listedIndex = 0;
    for (const node of select.expressions as AstNode[]) {
      const star = starOf(node);
      if (star) {
        const columns = this.starColumns(star.qualifier);
        const names = (columns ?? []).map((column) => column.name);
        items.push({
          node,
          columns: columns ?? [],
          star,
          unknownStar: !columns,
          expandable: !!columns && this.canExpand(node, names),
        });
        continue;
      }
      const projection = projections[listedIndex++];
      const inner = nodeType(node) === 'alias' ? node.alias.this : node;
      // A column is typed by its FROM item (a table's stored type, what computes a subquery's,
      // CTE's or UNNEST's column); the analysis's guess is trusted for the rest.
      const sourced = nodeType(inner) === 'column' ? this.typeOf(inner) : undefined;
      const type = sourced ?? (projection && this.trusted(projection)) ?? this.typeOf(inner);
      items.push({ node, columns: [{ ...outputName(node), type }] });
    }
    this.items = items;
    return items;
  }

  /** A projection's type where the analysis is reliable: a CAST, or a column read as stored. */
  trusted(projection: Projection): TrinoType | undefined {
    if (projection.transformKind === 'cast' && projection.castType)
      return parseTrinoType(projection.castType);
    if (projection.transformKind !== 'direct' || !projection.typeHint) return undefined;
    const type = parseTrinoType(projection.typeHint);
    this.unnestFound ??= findAll(this.statement, 'unnest').length > 0;
    if (!type || !this.unnestFound) return type;
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
        const unnested = this.unnestColumns();
        const key = table ? `${table}.${name}` : name;
        if (unnested.has(key)) return unnested.get(key);
        const sourced = this.sourceColumn(table, name);
        if (sourced !== NOT_SOURCED) return sourced;
        if (!this.analyzedColumns.has(node)) {
          const [projection] = this.analyze([node]) ?? [];
          this.analyzedColumns.set(node, projection && this.trusted(projection));
        }
        return this.analyzedColumns.get(node);
      }
      case 'cast':
        return this.castType(node.cast);
      case 'array_agg': {
        const element = typeOf(node.array_agg.this);
        return element && { kind: 'array', element };
      }
      case 'tuple':
        // `('a', 1)` is a row in Trino, as `row('a', 1)` is.
        return rowOf((node.tuple.expressions ?? []).map(typeOf));
      case 'array_func': {
        // Elements of one type; NULLs say nothing of it.
        const element = sameType((node.array_func.expressions ?? []).map(typeOrSkip(typeOf)));
        return element && { kind: 'array', element };
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
      case 'window_function':
        // Over a window, an aggregate or a value function has the type it has without one.
        return typeOf(node.window_function.this);
      case 'subquery': {
        // A scalar subquery (`count(*) * 100.0 / (select count(*) from t)`) has its one column's
        // type. Its own Typing sees none of this SELECT's FROM items: an outer column it reads
        // stays untyped, and so does the subquery then.
        const columns = this.queryColumns(node.subquery.this);
        return columns?.length === 1 ? columns[0]!.type : undefined;
      }
    }
    if (type && BOOLEAN_NODES.has(type)) return BOOLEAN;
    // Generic calls, and the calls polyglot gives a node type of their own (`map_keys`, `max`, …).
    const call = functionCall(node) ?? (type ? ownNodeCall(node, type) : undefined);
    if (!call) return undefined;
    if (Object.hasOwn(SCALAR_RESULTS, call.name)) return SCALAR_RESULTS[call.name];
    switch (call.name) {
      case 'round':
        return roundedType(call.args[0] && typeOf(call.args[0]), call.args.length > 1);
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
        // Arrays (or maps), or varbinary, of one type concatenate into that type; strings are left
        // to the analysis.
        const types = call.args.map(typeOf);
        const [first] = types;
        const kept = first !== undefined && (first.kind !== 'scalar' || first.name === 'varbinary');
        return kept && types.every((t) => t && typeText(t) === typeText(first)) ? first : undefined;
      }
      case 'repeat': {
        const element = call.args[0] && typeOf(call.args[0]);
        return element && { kind: 'array', element };
      }
      case 'approx_percentile': {
        // With an array of percentages, an array of bigint for integers, else of double.
        const [value, percentages] = [call.args[0], call.args.at(-1)];
        if (call.args.length < 2 || nodeType(percentages) !== 'array_func') return undefined;
        const input = typeOf(value);
        if (input?.kind !== 'scalar') return undefined;
        const integer = ['tinyint', 'smallint', 'integer', 'bigint'].includes(input.name);
        return { kind: 'array', element: { kind: 'scalar', name: integer ? 'bigint' : 'double' } };
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
      case 'row':
        return rowOf(call.args.map(typeOf));
      case 'zip': {
        // An array of unnamed rows, one field per array.
        const arrays = call.args.map(typeOf);
        if (arrays.length < 2 || !arrays.every((a) => a?.kind === 'array')) return undefined;
        const row = rowOf(arrays.map((a) => (a as { element: TrinoType }).element));
        return row && { kind: 'array', element: row };
      }
      case 'map_entries': {
        const map = call.args[0] && typeOf(call.args[0]);
        if (map?.kind !== 'map') return undefined;
        return { kind: 'array', element: { kind: 'row', fields: [{ type: map.key }, { type: map.value }] } };
      }
      case 'map_from_entries':
      case 'multimap_from_entries': {
        const entries = call.args[0] && typeOf(call.args[0]);
        const entry = entries?.kind === 'array' ? entries.element : undefined;
        if (entry?.kind !== 'row' || entry.fields.length !== 2) return undefined;
        const [key, value] = entry.fields.map((f: { type: TrinoType }) => f.type) as [TrinoType, TrinoType];
        return call.name === 'map_from_entries'
          ? { kind: 'map', key, value }
          : { kind: 'map', key, value: { kind: 'array', element: value } };
      }
      case 'multimap_agg': {
        const [key, value] = call.args.map((arg) => typeOf(arg));
        return key && value ? { kind: 'map', key, value: { kind: 'array', element: value } } : undefined;
      }
      case 'combinations':
      case 'ngrams': {
        const array = call.args[0] && typeOf(call.args[0]);
        return array?.kind === 'array' && call.args.length === 2
          ? { kind: 'array', element: array }
          : undefined;
      }
      case 'split_to_map':
        return { kind: 'map', key: VARCHAR, value: VARCHAR };
      case 'split_to_multimap':
        return { kind: 'map', key: VARCHAR, value: { kind: 'array', element: VARCHAR } };
      case 'map_zip_with': {
        const [left, right] = call.args.slice(0, 2).map(typeOf);
        if (left?.kind !== 'map' || right?.kind !== 'map') return undefined;
        const body = this.lambdaBody(call.args[2], [left.key, left.value, right.value], lambda);
        return body && { kind: 'map', key: left.key, value: body };
      }
      case 'reduce': {
        // reduce(array, initial state S, (S, element) -> S, S -> R): R, the output lambda's body.
        const [array, initial] = call.args.slice(0, 2).map(typeOf);
        if (array?.kind !== 'array' || !initial || call.args.length !== 4) return undefined;
        return this.lambdaBody(call.args[3], [initial], lambda);
      }
      case 'max':
      case 'min':
      case 'max_by':
      case 'min_by': {
        // With a count as the last argument, an array of the n largest (smallest) values.
        const arity = call.name.endsWith('_by') ? 3 : 2;
        if (call.args.length !== arity) break;
        const element = call.args[0] && typeOf(call.args[0]);
        return element && { kind: 'array', element };
      }
      case 'approx_most_frequent': {
        const value = call.args[1] && typeOf(call.args[1]);
        return value && { kind: 'map', key: value, value: BIGINT };
      }
      case 'numeric_histogram': {
        // Buckets and values are double, or real for real input.
        const value = call.args[1] && typeOf(call.args[1]);
        if (!value || !isNumeric(value)) return undefined;
        const bucket: TrinoType = { kind: 'scalar', name: typeText(value) === 'real' ? 'real' : 'double' };
        return { kind: 'map', key: bucket, value: bucket };
      }
      case 'greatest':
      case 'least':
        return sameType(call.args.map(typeOrSkip(typeOf)));
      case 'sum':
      case 'avg': {
        // Trino: both keep a double or real; sum widens an integer to bigint, avg makes it a
        // double; a decimal(p, s) sums to decimal(38, s) and averages to itself. uint256 is left
        // unknown.
        const operand = call.args[0] && typeOf(call.args[0]);
        if (operand?.kind !== 'scalar') return undefined;
        if (operand.name === 'double' || operand.name === 'real') return operand;
        const decimal = /^decimal\((\d+),(\d+)\)$/.exec(operand.name);
        if (decimal)
          return call.name === 'avg' ? operand : { kind: 'scalar', name: `decimal(38,${decimal[2]})` };
        if (!/^(tinyint|smallint|integer|int|bigint)$/.test(operand.name)) return undefined;
        return { kind: 'scalar', name: call.name === 'sum' ? 'bigint' : 'double' };
      }
    }
    const arities = Object.hasOwn(SAME_AS_FIRST, call.name) ? SAME_AS_FIRST[call.name] : undefined;
    if (arities?.includes(call.args.length)) return typeOf(call.args[0]);
    return undefined;
  }

  /**
   * The columns UNNEST yields in this SELECT's FROM, typed: one per array (an array of rows: one per
   * field, as Trino expands them), key and value for a map, bigint for WITH ORDINALITY; named by
   * the column aliases, reachable as `alias.column` and `column`. A column left untyped is unknown.
   */
  private unnestColumns(): Map<string, TrinoType | undefined> {
    if (this.unnestScope) return this.unnestScope;
    const scope = new Map<string, TrinoType | undefined>();
    this.unnestScope = scope;
    const select = this.statement.select;
    const items: AstNode[] = [
      ...(select?.from?.expressions ?? []),
      ...(select?.joins ?? []).map((join: AstNode) => join.this),
    ];
    const unqualified = new Map<string, number>();
    for (const item of items) {
      const unnest = item?.alias?.this?.unnest;
      if (!unnest) continue;
      const aliases: string[] = (item.alias.column_aliases ?? []).map((a: AstNode) =>
        String(a.name).toLowerCase(),
      );
      const types: TrinoType[] = [];
      // An argument of unknown type could stand for several columns: then none is placed for sure.
      let known = true;
      for (const array of [unnest.this, ...(unnest.expressions ?? [])]) {
        const type = this.typeOf(array);
        if (type?.kind === 'map') types.push(type.key, type.value);
        else if (type?.kind === 'array' && type.element.kind === 'row')
          types.push(...type.element.fields.map((f) => f.type));
        else if (type?.kind === 'array') types.push(type.element);
        else known = false;
      }
      if (unnest.with_ordinality) types.push(BIGINT);
      const exact = known && types.length === aliases.length;
      const table = String(item.alias.alias?.name ?? '').toLowerCase();
      aliases.forEach((alias, i) => {
        const type = exact ? types[i] : undefined;
        scope.set(`${table}.${alias}`, type);
        unqualified.set(alias, (unqualified.get(alias) ?? 0) + 1);
        scope.set(alias, type);
      });
    }
    // A name two UNNESTs share is ambiguous unqualified.
    for (const [alias, count] of unqualified) if (count > 1) scope.set(alias, undefined);
    return scope;
  }

  /**
   * A column of this SELECT's FROM items, by its (lower-case) name and qualifier: a table's
   * stored type, or our typing of what computes a subquery's, CTE's or UNNEST's column (the
   * analysis guesses those). NOT_SOURCED when the FROM items cannot say for sure (a name not found
   * or found twice, an item whose columns are unknown): the analysis then decides.
   */
  private sourceColumn(table: string | undefined, name: string): TrinoType | undefined | typeof NOT_SOURCED {
    const sources = this.fromColumns();
    const candidates = table ? sources.filter((source) => source.alias === table) : sources;
    if (candidates.length === 0 || (table && candidates.length !== 1)) return NOT_SOURCED;
    if (candidates.some((source) => !source.columns)) return NOT_SOURCED;
    const matches = candidates.flatMap((source) => source.columns!.filter((c) => lower(c.name) === name));
    return matches.length === 1 ? matches[0]!.type : NOT_SOURCED;
  }

  /** The columns `*` (or `qualifier.*`) stands for; undefined when not known for sure. */
  private starColumns(qualifier: string | undefined): OutputColumn[] | undefined {
    const select = this.statement.select;
    if (!select?.from) return undefined;
    const sources = this.fromColumns();
    const columnsOf = (source: FromColumns) =>
      source.columns!.map((column) => ({ ...column, source: source.written }));
    if (qualifier) {
      const matching = sources.filter((source) => source.alias === lower(qualifier));
      return matching.length === 1 && matching[0]!.columns ? columnsOf(matching[0]!) : undefined;
    }
    // `*` over a USING join lists the join columns once.
    if ((select.joins ?? []).some((join: AstNode) => join.using?.length)) return undefined;
    if (sources.some((source) => !source.columns)) return undefined;
    return sources.flatMap(columnsOf);
  }

  /** This SELECT's FROM items (joins included, in order) with their columns where known. */
  private fromColumns(): FromColumns[] {
    if (this.sources) return this.sources;
    this.sources = [];
    const select = this.statement.select;
    const items: AstNode[] = [
      ...(select?.from?.expressions ?? []),
      ...(select?.joins ?? []).map((join: AstNode) => join.this),
    ];
    const unnested = this.unnestColumns();
    const sources = items.map((item): FromColumns => {
      const aliases = (list: AstNode[] | undefined) => (list ?? []).map((a) => String(a.name));
      if (item?.alias?.this?.unnest) {
        const written = item.alias.alias?.name;
        const alias = lower(written);
        const names = aliases(item.alias.column_aliases);
        return {
          alias,
          written,
          columns: names.map((name) => ({ name, type: unnested.get(`${alias}.${lower(name)}`) })),
        };
      }
      switch (nodeType(item)) {
        case 'subquery': {
          const { subquery } = item;
          return {
            alias: lower(subquery.alias?.name),
            written: subquery.alias?.name,
            columns: renamedColumns(this.queryColumns(subquery.this), aliases(subquery.column_aliases)),
          };
        }
        case 'table': {
          const { table } = item;
          const written = table.alias?.name ?? table.name?.name;
          const alias = lower(written);
          const cte = table.schema ? undefined : this.ctes.get(lower(table.name?.name));
          if (cte) {
            const names = aliases(table.column_aliases);
            return { alias, written, columns: renamedColumns(this.cteColumns(cte), names) };
          }
          const stored = this.tables.find(
            (t) => lower(t.schema) === lower(table.schema?.name) && lower(t.name) === lower(table.name?.name),
          );
          const columns = stored?.columns.map((c) => ({ name: c.name, type: parseTrinoType(c.type) }));
          return { alias, written, columns: renamedColumns(columns, aliases(table.column_aliases)) };
        }
        default:
          return { alias: '' };
      }
    });
    this.sources = sources;
    return sources;
  }

  /** The output columns of a subquery or CTE's query (a SELECT), typed by a Typing of its own. */
  private queryColumns(query: AstNode): OutputColumn[] | undefined {
    const kind = nodeType(query);
    if (kind === 'values') return this.valuesColumns(query.values);
    if (kind === 'subquery' && !query.subquery.alias) return this.queryColumns(query.subquery.this);
    // A query followed by a comment (`… -- stable pools` before the next UNION ALL branch).
    if (kind === 'annotated') return this.queryColumns(query.annotated.this);
    if (kind && SET_OPERATIONS.has(kind)) return this.setOperationColumns(query[kind]);
    if (this.depth > 16 || kind !== 'select') return undefined;
    let typing = this.derived.get(query);
    if (!typing) {
      const ctes = [...this.ctes.values(), ...(query.select.with?.ctes ?? [])];
      const with_ = ctes.length ? { recursive: false, leading_comments: [], ctes } : null;
      const statement = { select: { ...query.select, with: with_ } };
      typing = new Typing(this.polyglot, statement, this.tables, this.ctes, this.depth + 1, this.derived);
      this.derived.set(query, typing);
    }
    const items = typing.outputs();
    if (!items || items.some((item) => item.unknownStar)) return undefined;
    return items.flatMap((item) => item.columns);
  }

  /**
   * The columns of a UNION, INTERSECT or EXCEPT: named by its first branch, each typed as Trino
   * types it, the common super type of the branches' columns (left unknown where one is unknown).
   * Typed here, a CTE of a UNION of many SELECTs reaches the analysis as a table, not as its SQL.
   */
  private setOperationColumns(operation: AstNode): OutputColumn[] | undefined {
    const [left, right] = [this.queryColumns(operation.left), this.queryColumns(operation.right)];
    if (!left || !right || left.length !== right.length) return undefined;
    return left.map((column, i) => ({ ...column, type: commonSuperType(column.type, right[i]!.type) }));
  }

  /**
   * The columns of a VALUES list (named `_col0`, … until aliased), each typed as Trino types it:
   * the common super type of its rows (an integer row and a double row make a double column).
   */
  private valuesColumns(values: AstNode): OutputColumn[] | undefined {
    const rows: AstNode[][] = (values?.expressions ?? []).map((row: AstNode) =>
      nodeType(row) === 'tuple' ? row.tuple.expressions : (row?.expressions ?? [row]),
    );
    const width = rows[0]?.length ?? 0;
    if (width === 0 || rows.some((row) => row.length !== width)) return undefined;
    return Array.from({ length: width }, (_, i) => ({
      name: `_col${i}`,
      type: rows.map((row) => this.typeOf(row[i])).reduce(commonSuperType),
    }));
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
  canExpand(star: AstNode, names: (string | undefined)[]): boolean {
    if (star.star?.except || star.star?.replace || star.star?.rename) return false;
    if (names.some((name) => name === undefined)) return false;
    if (starOf(star)?.qualifier) return true;
    const select = this.statement.select;
    const single = (select.from?.expressions?.length ?? 0) === 1 && !(select.joins?.length > 0);
    return single && new Set(names.map((n) => n!.toLowerCase())).size === names.length;
  }
}

const NOT_SOURCED = Symbol('not sourced');

/** Columns renamed by a column list (`t(a, b)`); undefined when the list does not fit them. */
function renamedColumns(columns: OutputColumn[] | undefined, names: string[]): OutputColumn[] | undefined {
  if (!columns || names.length === 0) return columns;
  return names.length === columns.length
    ? names.map((name, i) => ({ name, type: columns[i]!.type }))
    : undefined;
}

/** A FROM item's alias (lower case, and as written) and, where known for sure, its columns. */
interface FromColumns {
  alias: string;
  written?: string;
  columns?: OutputColumn[];
}

/** A star select item: `*` parses as a star node, `t.*` as a column named `*`. */
function starOf(node: AstNode): { qualifier?: string } | undefined {
  if (nodeType(node) === 'star') return { qualifier: node.star.table?.name };
  if (nodeType(node) === 'column' && node.column.name?.name === '*')
    return { qualifier: node.column.table?.name };
  return undefined;
}

const lower = (name: unknown) => String(name ?? '').toLowerCase();

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

/**
 * The type branches meet in (CASE, IF, COALESCE, ARRAY elements): their common super type;
 * undefined when one is unknown or they have none.
 */
export function sameType(branches: (TrinoType | undefined | typeof SKIP)[]): TrinoType | undefined {
  const types = branches.filter((branch) => branch !== SKIP);
  if (types.length === 0) return undefined;
  return types.reduce((common, type) => commonSuperType(common, type));
}

/**
 * A row of unnamed fields (`ROW(…)`), when every field's type is known. A bare `(a, b)` is left
 * untyped: polyglot cannot parse it back inside the CAST that converts it.
 */
function rowOf(types: (TrinoType | undefined)[]): TrinoType | undefined {
  if (types.length === 0 || types.some((t) => !t)) return undefined;
  return { kind: 'row', fields: types.map((type) => ({ type: type! })) };
}

/**
 * The name Trino gives a select item's column: its alias, a column's or field's name; none for
 * other expressions (Athena calls them `_col<n>`).
 */
function outputName(node: AstNode): { name?: string; quoted?: boolean } {
  const identifier =
    nodeType(node) === 'alias'
      ? node.alias.alias
      : nodeType(node) === 'column'
        ? node.column.name
        : nodeType(node) === 'dot'
          ? node.dot.field
          : undefined;
  return identifier?.name === undefined
    ? {}
    : { name: String(identifier.name), quoted: Boolean(identifier.quoted) };
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
  // Counts (aggregates, and ranks over a window) are bigint.
  count: BIGINT,
  count_if: BIGINT,
  approx_distinct: BIGINT,
  row_number: BIGINT,
  rank: BIGINT,
  dense_rank: BIGINT,
  ntile: BIGINT,
  length: BIGINT,
  cardinality: BIGINT,
  lower: VARCHAR,
  upper: VARCHAR,
  to_hex: VARCHAR,
  format: VARCHAR,
  date_format: VARCHAR,
  format_datetime: VARCHAR,
  concat_ws: VARCHAR,
  ...Object.fromEntries(
    [
      'from_hex',
      'to_utf8',
      'from_base64',
      'from_base64url',
      'from_base32',
      'md5',
      'sha1',
      'sha256',
      'sha512',
      'xxhash64',
      'spooky_hash_v2_32',
      'spooky_hash_v2_64',
      'murmur3',
      'hmac_md5',
      'hmac_sha1',
      'hmac_sha256',
      'hmac_sha512',
      'to_big_endian_32',
      'to_big_endian_64',
      'to_ieee754_32',
      'to_ieee754_64',
    ].map((name) => [name, VARBINARY]),
  ),
  starts_with: BOOLEAN,
  contains: BOOLEAN,
  regexp_like: BOOLEAN,
};

/** Trino's type of a literal: strings are varchar, hex strings varbinary; numbers integer, bigint, decimal or double. */
function literalType(literal: AstNode): TrinoType | undefined {
  if (literal?.literal_type === 'string') return VARCHAR;
  // X'…' (Dune's 0x… literals reach the parser as these).
  if (literal?.literal_type === 'hex_string') return VARBINARY;
  // date '2024-01-31' (a timestamp literal's precision follows its text: left untyped).
  if (literal?.literal_type === 'date') return { kind: 'scalar', name: 'date' };
  return literal?.literal_type === 'number' ? numberLiteralType(String(literal.value)) : undefined;
}
