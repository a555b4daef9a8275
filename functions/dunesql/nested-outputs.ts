/**
 * Rewrites the output columns of an Athena statement that hold arrays, maps or rows into JSON text
 * (nested-json.ts), so the results API can return them as JSON; their types come from
 * nested-typing.ts. In the select list itself where it can; otherwise in a SELECT over the query
 * that names its columns by position (`SELECT … FROM (<query>) AS q(c0, c1, …)`): for set
 * operations, a query whose ORDER BY sorts on a nested output (by its values, not its JSON text),
 * and stars that cannot be written out as their columns (over joins). A column whose type is not
 * known for sure is left as Athena prints it: a wrong guess would make valid SQL fail.
 */
import { columnName, findAll, instantiate, mapFreeColumns, nodeType, SET_OPERATIONS } from './ast';
import {
  isNestedJsonType,
  nestedAsJsonText,
  quoteIdentifier as quote,
  type TrinoType,
  typeText,
} from './nested-json';
import {
  type OutputColumn,
  type Polyglot,
  type SelectItem,
  sameType,
  type TableSchema,
  Typing,
} from './nested-typing';
import type { AstNode } from './polyglot';

export type { TableSchema } from './nested-typing';

/** An output column returned as JSON text, and its type (Trino's spelling). */
export interface NestedOutput {
  position: number;
  type: string;
}

/** Set operations: their outputs are converted by a SELECT over them (`wrappedByPosition`). */

/** Rewrites the statement's nested output columns into JSON text, in place, and returns them. */
export function nestedOutputsAsJson(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
): NestedOutput[] {
  // The analysis is given only the tables the SQL names: passing the whole catalog costs more
  // than analysing the SQL.
  const named = tablesNamed(statement, tables);
  if (!mayHoldNested(statement, named)) return [];
  const kind = nodeType(statement);
  if (kind && SET_OPERATIONS.has(kind)) return wrappedByPosition(polyglot, statement, kind, named);
  if (!statement?.select?.expressions) return [];
  const items = new Typing(polyglot, statement, named).outputs();
  // After a star of unknown columns, no position is known for sure.
  if (!items || items.some((item) => item.unknownStar)) return [];
  if (!items.some((item) => item.columns.some(isNested))) return [];
  return (
    inSelectList(polyglot, statement.select, items) ??
    wrappedByPosition(polyglot, statement, 'select', named, items)
  );
}

const isNested = (column: OutputColumn) => column.type !== undefined && isNestedJsonType(column.type);

/**
 * Converts the nested outputs in the select list itself (a star holding one written out as its
 * columns). Undefined, changing nothing, when ORDER BY sorts on one (it would sort the JSON text)
 * or a star holding one cannot be written out.
 */
function inSelectList(polyglot: Polyglot, select: AstNode, items: SelectItem[]): NestedOutput[] | undefined {
  const ordered = orderedOutputs(
    select,
    items.flatMap((item) => item.columns),
  );
  const rewritten: AstNode[] = [];
  const nested: NestedOutput[] = [];
  let position = 0;
  for (const item of items) {
    const start = position;
    position += item.columns.length;
    const holds = item.columns.map(isNested);
    if (holds.some((held, k) => held && ordered.has(start + k))) return undefined;
    if (!holds.includes(true)) {
      rewritten.push(item.node);
      continue;
    }
    if (item.star) {
      if (!item.expandable) return undefined;
      item.columns.forEach((column, k) => {
        const reference = instantiate(polyglot, columnRef(item.star!.qualifier, column.name!), []);
        if (!holds[k]) {
          rewritten.push(reference);
          return;
        }
        rewritten.push(asJson(polyglot, reference, column.type!, quote(column.name!)));
        nested.push({ position: start + k, type: typeText(column.type!) });
      });
      continue;
    }
    const [column] = item.columns as [OutputColumn];
    const expression = nodeType(item.node) === 'alias' ? item.node.alias.this : item.node;
    rewritten.push(asJson(polyglot, expression, column.type!, aliasOf(column)));
    nested.push({ position: start, type: typeText(column.type!) });
  }
  select.expressions = rewritten;
  return nested;
}

/**
 * `WITH … SELECT q.c0 AS <name>, <q.c1 as JSON> AS <name>, … FROM (<query>) AS q(c0, c1, …) ORDER BY …`:
 * the query's columns named by position, so duplicate or missing names do not matter. Its ORDER BY
 * moves out (Trino does not keep a subquery's order) unless a LIMIT or OFFSET needs it inside to
 * pick the rows, and is repeated outside on the values: keys naming outputs sort on q's columns;
 * other keys of a SELECT become extra columns of the query (output names in them replaced by the
 * outputs' expressions, which is what Trino resolves them to); a set operation's sort on
 * expressions of q's columns. Changes nothing and returns [] when the columns or a key cannot be
 * placed for sure.
 */
function wrappedByPosition(
  polyglot: Polyglot,
  statement: AstNode,
  kind: string,
  tables: readonly TableSchema[],
  /** A SELECT's items, as typed already. */
  selectItems?: SelectItem[],
): NestedOutput[] {
  const query = structuredClone(statement[kind]);
  const { with: ctes, order_by: orderBy } = query;
  query.with = null;
  const items =
    kind === 'select'
      ? (selectItems ?? new Typing(polyglot, statement, tables).outputs())
      : setOperationItems(polyglot, { [kind]: query }, ctes, tables);
  if (!items || items.some((item) => item.unknownStar)) return [];
  // q's columns are named by position: stars are written out, in the order typed here (a
  // partitioned table's `*` on Athena lists its partition column last).
  if (kind === 'select' && !writeOutStars(polyglot, query, items)) return [];
  const columns = items.flatMap((item) => item.columns);
  if (!columns.some(isNested)) return [];
  const keys: AstNode[] = [];
  const extra: AstNode[] = [];
  for (const key of orderBy?.expressions ?? []) {
    const index = outputIndex(key.this, columns);
    let sorted: AstNode | undefined;
    if (index !== undefined) sorted = instantiate(polyglot, `q.c${index}`, []);
    else if (kind === 'select' && !query.distinct) {
      const inlined = withOutputsInlined(structuredClone(key.this), items);
      if (inlined) {
        extra.push(inlined);
        sorted = instantiate(polyglot, `q.c${columns.length + extra.length - 1}`, []);
      }
    } else if (kind !== 'select') sorted = withOutputReferences(polyglot, structuredClone(key.this), columns);
    if (!sorted) return [];
    keys.push({ ...key, this: sorted });
  }
  if (!query.limit && !query.offset) query.order_by = null;
  if (extra.length) query.expressions = [...query.expressions, ...extra];
  const names = [...columns, ...extra].map((_, i) => `c${i}`);
  const template = polyglot.parse(
    `SELECT 1 FROM (SELECT 1) AS q(${names.join(', ')})`,
    polyglot.Dialect.Trino,
  );
  if (!template.success || !template.ast) return [];
  const outer = (template.ast[0] as AstNode).select;
  outer.from.expressions[0].subquery.this = { [kind]: query };
  outer.with = ctes;
  const nested: NestedOutput[] = [];
  outer.expressions = columns.map((column, i) => {
    const alias = aliasOf(column) ?? `_col${i}`;
    if (!isNested(column)) return instantiate(polyglot, `q.c${i} AS ${alias}`, []);
    nested.push({ position: i, type: typeText(column.type!) });
    return asJson(polyglot, instantiate(polyglot, `q.c${i}`, []), column.type!, alias);
  });
  outer.order_by = keys.length ? { ...orderBy, expressions: keys } : null;
  delete statement[kind];
  statement.select = outer;
  return nested;
}

/**
 * A set operation's columns: named by its first SELECT, typed by the common super type of its
 * SELECTs' columns (Trino coerces them to it); untyped if one SELECT's is unknown.
 */
function setOperationItems(
  polyglot: Polyglot,
  operation: AstNode,
  ctes: AstNode,
  tables: readonly TableSchema[],
): SelectItem[] | undefined {
  const selects = selectsOf(operation);
  if (!selects?.length) return undefined;
  const typed = selects.map((select) =>
    new Typing(polyglot, { select: { ...select, with: ctes, order_by: null } }, tables).outputs(),
  );
  if (typed.some((items) => !items || items.some((item) => item.unknownStar))) return undefined;
  if (!selects.every((select, i) => writeOutStars(polyglot, select, typed[i]!))) return undefined;
  const lists = typed.map((items) => items!.flatMap((item) => item.columns));
  const [first] = lists as [OutputColumn[]];
  if (lists.some((list) => list.length !== first.length)) return undefined;
  const columns = first.map((column, i) => ({
    name: column.name,
    quoted: column.quoted,
    type: sameType(lists.map((list) => list[i]!.type)),
  }));
  return [{ node: operation, columns }];
}

/**
 * Replaces the select list's stars by their columns, each qualified by its FROM item, in the order
 * they were typed (q's columns are named by position, and Athena lists a partitioned table's
 * partition column last in `*`). False, changing nothing, when a star cannot be written out.
 */
function writeOutStars(polyglot: Polyglot, select: AstNode, items: SelectItem[]): boolean {
  if (!items.some((item) => item.star)) return true;
  const expressions: AstNode[] = [];
  for (const item of items) {
    if (!item.star) {
      expressions.push(item.node);
      continue;
    }
    const star = item.node.star;
    if (star?.except || star?.replace || star?.rename) return false;
    for (const column of item.columns) {
      if (!column.name || !column.source) return false;
      expressions.push(instantiate(polyglot, columnRef(column.source, column.name), []));
    }
  }
  select.expressions = expressions;
  return true;
}

/** The SELECTs a set operation combines (through nested ones and parentheses). */
function selectsOf(node: AstNode): AstNode[] | undefined {
  const kind = nodeType(node);
  if (kind === 'select') return [node.select];
  if (kind === 'subquery' || kind === 'paren') return selectsOf(node[kind].this);
  if (!kind || !SET_OPERATIONS.has(kind)) return undefined;
  const [left, right] = [selectsOf(node[kind].left), selectsOf(node[kind].right)];
  return left && right ? [...left, ...right] : undefined;
}

/** The output an ORDER BY key names: by ordinal, or by a name only one output has. */
function outputIndex(key: AstNode, columns: OutputColumn[]): number | undefined {
  if (key?.literal?.literal_type === 'number') {
    const index = Number(key.literal.value) - 1;
    return index >= 0 && index < columns.length ? index : undefined;
  }
  if (nodeType(key) !== 'column' || key.column.table) return undefined;
  return uniqueOutput(String(key.column.name?.name ?? ''), columns);
}

function uniqueOutput(name: string, columns: OutputColumn[]): number | undefined {
  const lower = name.toLowerCase();
  const matches = columns.flatMap((c, i) => (c.name?.toLowerCase() === lower ? [i] : []));
  return matches.length === 1 ? matches[0] : undefined;
}

/**
 * An ORDER BY expression of a SELECT made a select item: Trino resolves its names to outputs first,
 * so a name of an expression output is replaced by that expression. Undefined when a name matches
 * several outputs.
 */
function withOutputsInlined(expression: AstNode, items: SelectItem[]): AstNode | undefined {
  const outputs = items.filter((item) => nodeType(item.node) === 'alias');
  const columns = items.flatMap((item) => item.columns);
  let ambiguous = false;
  const inlined = mapFreeColumns(expression, (column) => {
    if (column.column.table) return undefined;
    const name = columnName(column);
    const count = columns.filter((c) => c.name?.toLowerCase() === name).length;
    if (count > 1) ambiguous = true;
    const output = outputs.find((item) => String(item.node.alias.alias.name).toLowerCase() === name);
    return count === 1 && output ? structuredClone(output.node.alias.this) : undefined;
  });
  return ambiguous ? undefined : inlined;
}

/** A set operation's ORDER BY expression over q's columns; undefined if a name is not an output. */
function withOutputReferences(
  polyglot: Polyglot,
  expression: AstNode,
  columns: OutputColumn[],
): AstNode | undefined {
  if (findAll(expression, 'subquery').length) return undefined;
  let unplaced = false;
  const replaced = mapFreeColumns(expression, (column) => {
    const index = column.column.table ? undefined : uniqueOutput(columnName(column), columns);
    if (index === undefined) unplaced = true;
    return index === undefined ? undefined : instantiate(polyglot, `q.c${index}`, []);
  });
  return unplaced ? undefined : replaced;
}

/** Where nested values come from: calls and nodes that build them, and CASTs to them. */
const NESTED_ORIGINS =
  /"(?:array_agg|array_func|map_keys|map_values)":|"name":"(?:map_agg|multimap_agg|histogram|map|map_from_entries|split|regexp_split|regexp_extract_all|sequence|repeat|zip|approx_percentile|array_agg)"|"data_type":"(?:array|map|struct)"/i;

/** The tables the statement names (of those given): all the analysis needs to know. */
export function tablesNamed(statement: AstNode, tables: readonly TableSchema[]): TableSchema[] {
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

function columnRef(qualifier: string | undefined, name: string): string {
  return qualifier ? `${quote(qualifier)}.${quote(name)}` : quote(name);
}

/** The expression as JSON text, under the alias (SQL text) if given. */
function asJson(
  polyglot: Polyglot,
  expression: AstNode,
  type: TrinoType,
  alias: string | undefined,
): AstNode {
  const json = nestedAsJsonText('__1', type);
  return instantiate(polyglot, alias === undefined ? json : `${json} AS ${alias}`, [expression]);
}

/**
 * Output positions ORDER BY names, by ordinal or by output name (also inside an expression: Trino
 * resolves ORDER BY names to outputs first). Converting one in place would order by its JSON text.
 */
function orderedOutputs(select: AstNode, columns: OutputColumn[]): Set<number> {
  const ordered = new Set<number>();
  for (const { this: key } of select.order_by?.expressions ?? []) {
    const ordinal = key?.literal?.literal_type === 'number' ? Number(key.literal.value) : undefined;
    if (ordinal !== undefined) ordered.add(ordinal - 1);
    for (const column of findAll(key, 'column')) {
      if (column.column.table) continue;
      const name = String(column.column.name?.name ?? '').toLowerCase();
      columns.forEach((c, i) => {
        if (c.name?.toLowerCase() === name) ordered.add(i);
      });
    }
  }
  return ordered;
}

/** How to write an output's name as an alias: as the user wrote it; undefined when it has none. */
function aliasOf(column: OutputColumn): string | undefined {
  if (column.name === undefined) return undefined;
  return column.quoted || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(column.name) ? quote(column.name) : column.name;
}
