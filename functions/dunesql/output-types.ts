import { timestampZone, YEAR_MONTH_INTERVAL, zonedTimestampType } from '../core/sql-types';
import { type AliasReference, collectAliasReferences } from './alias-references';
import { functionCall, nodeType, SET_OPERATIONS, stringLiteral } from './ast';
import type { AstNode } from './polyglot';
import { collectUnresolvedColumns, type UnresolvedName } from './unresolved-names';

/** A stored table (a materialized view) with the output types its columns were stored with. */
export interface TypeHintedTable {
  schema: string;
  name: string;
  /** Engine type names as results store them, e.g. `TIMESTAMP AT TIME ZONE Asia/Tokyo`. */
  columns: { name: string; type: string }[];
}

/**
 * What the local engine's result types cannot tell about a query's output columns, by position in
 * its select list (DuckDB types only), as engine type names the results read (core/sql-types.ts):
 * - a timestamp moved to a zone (`x AT TIME ZONE 'Asia/Tokyo'`, `at_timezone(x, …)`, also truncated,
 *   shifted or taken the min or max of): DuckDB holds the zone's wall-clock time without the zone,
 *   which the results would label UTC; Trino's `timestamp with time zone` shows the zone;
 * - a year-to-month interval (`interval '14' month`, sums and multiples of them): DuckDB has one
 *   interval type, which the results would call day to second.
 * Either may come through a column of a subquery, a CTE or a view, past a `*` (written out from
 * `tables`' columns), and through a set operation whose every branch has it alike. Undefined where
 * DuckDB's type says it all or this cannot tell: past a `*` over a FROM item whose columns are not
 * known (a table function, `VALUES`, a join `USING` its columns), and in set operations whose
 * branches differ (Trino keeps each row's zone; one column here has one). With them, the casts to
 * varchar of a zone-moved timestamp read through a column, which Trino writes with its zone.
 */
export function outputTypes(
  statement: AstNode,
  /**
   * The tables the SQL may name with their columns, in order: the stored ones (views) with the
   * engine types their columns were stored with, first; then any others, whose columns only place
   * the items after a `*`.
   */
  tables: readonly TypeHintedTable[] = [],
): OutputTypes {
  const zoned = new Map<AstNode, string>();
  const aliases = { found: [] as AliasReference[], outer: [] };
  const unresolvedColumns: UnresolvedName[] = [];
  try {
    const { columns } = queryOutputs(statement, new Map(), { tables, zoned, aliases, unresolvedColumns }, 0);
    return {
      hints: columns.map((column) => column.hint),
      zoned,
      aliasReferences: aliases.found,
      unresolvedColumns,
    };
  } catch {
    // Only hints: a statement shaped in a way this does not expect runs with DuckDB's types.
    return { hints: [], zoned: new Map(), aliasReferences: [], unresolvedColumns: [] };
  }
}

export interface OutputTypes {
  /** The output columns' engine types where DuckDB's cannot tell, by position. */
  hints: (string | undefined)[];
  /**
   * Expressions of a zone-moved timestamp that comes through a column (of a CTE, a subquery or a
   * view), with its zone: casts of one to varchar (Trino writes the zone after it), compared
   * operands (Trino compares instants) and those of to_unixtime, AT TIME ZONE and at_timezone
   * (which take the instant); typedRewrites.
   */
  zoned: ReadonlyMap<AstNode, string>;
  /** Select-list aliases named where Trino reads only FROM's columns (alias-references.ts). */
  aliasReferences: AliasReference[];
  /** Columns no FROM item has (unresolved-names.ts). */
  unresolvedColumns: UnresolvedName[];
}

/** Each comparison's operands, by polyglot node type. */
export const COMPARED_OPERANDS: Readonly<Record<string, readonly string[]>> = {
  eq: ['left', 'right'],
  neq: ['left', 'right'],
  lt: ['left', 'right'],
  lte: ['left', 'right'],
  gt: ['left', 'right'],
  gte: ['left', 'right'],
  null_safe_eq: ['left', 'right'],
  null_safe_neq: ['left', 'right'],
  between: ['this', 'low', 'high'],
};

/** What the analysis reads from and writes to along the way. */
interface Analysis {
  tables: readonly TypeHintedTable[];
  zoned: Map<AstNode, string>;
  /** Alias references found (alias-references.ts), and the FROM columns of the enclosing queries. */
  aliases: { found: AliasReference[]; outer: (ReadonlySet<string> | undefined)[] };
  unresolvedColumns: UnresolvedName[];
}

interface HintedColumn {
  name?: string;
  hint?: string;
}

/** A query's output columns, up to the first this cannot place (`complete` if none). */
interface Outputs {
  columns: HintedColumn[];
  complete: boolean;
}

/** A FROM item: its name in the query and its columns where known. */
interface ScopeItem {
  alias: string;
  columns?: HintedColumn[];
  /** Whether `columns` are all of its columns (a `*` over it can be written out). */
  complete: boolean;
  /** The table it reads, as written (`dex.trades`, `mv.team.result_x`). */
  table?: string;
}

const MAX_DEPTH = 16;
const lower = (name: unknown) => String(name ?? '').toLowerCase();
const UNKNOWN: Outputs = { columns: [], complete: false };

function queryOutputs(
  query: AstNode,
  outerCtes: ReadonlyMap<string, AstNode>,
  analysis: Analysis,
  depth: number,
): Outputs {
  const type = nodeType(query);
  if (depth >= MAX_DEPTH) return UNKNOWN;
  if (type === 'select') return selectOutputs(query.select, outerCtes, analysis, depth);
  if (type === 'subquery') return queryOutputs(query.subquery.this, outerCtes, analysis, depth + 1);
  if (!type || !SET_OPERATIONS.has(type)) return UNKNOWN;
  const operation = query[type];
  const ctes = withCtes(operation, outerCtes);
  const left = queryOutputs(operation.left, ctes, analysis, depth + 1);
  const right = queryOutputs(operation.right, ctes, analysis, depth + 1);
  // The branches' columns line up by position; the first branch names them.
  const count = Math.min(left.columns.length, right.columns.length);
  return {
    columns: left.columns.slice(0, count).map((column, i) => ({
      name: column.name,
      hint: column.hint === right.columns[i]!.hint ? column.hint : undefined,
    })),
    complete: left.complete && right.complete && left.columns.length === right.columns.length,
  };
}

function withCtes(node: AstNode, outerCtes: ReadonlyMap<string, AstNode>): ReadonlyMap<string, AstNode> {
  if (!node.with?.ctes?.length) return outerCtes;
  const ctes = new Map(outerCtes);
  for (const cte of node.with.ctes) ctes.set(lower(cte.alias?.name), cte);
  return ctes;
}

function selectOutputs(
  select: AstNode,
  outerCtes: ReadonlyMap<string, AstNode>,
  analysis: Analysis,
  depth: number,
): Outputs {
  const ctes = withCtes(select, outerCtes);
  const scope = fromScope(select, ctes, analysis, depth);
  const { aliases } = analysis;
  const fromColumns = collectAliasReferences(select, scope, aliases.outer, aliases.found);
  collectUnresolvedColumns(select, scope, aliases.outer, analysis.unresolvedColumns);
  // A subquery in an expression sees this query's FROM columns around its own.
  const inner = (query: AstNode) => {
    aliases.outer.push(fromColumns);
    try {
      return queryOutputs(query, ctes, analysis, depth + 1);
    } finally {
      aliases.outer.pop();
    }
  };
  const joinConditions = (select.joins ?? []).map((join: AstNode) => join.on);
  for (const clause of [select.expressions, select.where_clause, select.having, joinConditions]) {
    collectZoned(clause, scope, analysis.zoned, inner);
  }
  const joinsOnColumns = (select.joins ?? []).some(
    (join: AstNode) => join.using?.length || /natural/i.test(String(join.kind ?? '')),
  );
  const columns: HintedColumn[] = [];
  for (const item of select.expressions ?? []) {
    const star = starOf(item);
    if (star) {
      const qualifier = star.qualifier === undefined ? undefined : lower(star.qualifier);
      const from = qualifier === undefined ? scope : scope.filter((entry) => entry.alias === qualifier);
      // DuckDB writes a USING or NATURAL join's columns once: the positions after it are not known.
      const unknown = from.length === 0 || from.some((entry) => !entry.complete);
      if (unknown || (qualifier === undefined && joinsOnColumns)) return { columns, complete: false };
      for (const entry of from) columns.push(...entry.columns!);
      continue;
    }
    const zone = zoneOf(item, scope);
    columns.push({
      name: outputName(item),
      hint: zone ? zonedTimestampType(zone) : isYearMonth(item, scope) ? YEAR_MONTH_INTERVAL : undefined,
    });
  }
  return { columns, complete: true };
}

/**
 * The casts to varchar and the compared operands in a clause that are zone-moved timestamps, read
 * in the clause's scope; a subquery inside it (`(SELECT …)`, `IN (SELECT …)`) is read in its own,
 * by `inner`.
 */
function collectZoned(
  node: AstNode,
  scope: readonly ScopeItem[],
  found: Map<AstNode, string>,
  inner: (query: AstNode) => unknown,
): void {
  if (Array.isArray(node)) {
    for (const child of node) collectZoned(child, scope, found, inner);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const type = nodeType(node);
  if (type === 'select' || type === 'subquery' || SET_OPERATIONS.has(type ?? '')) {
    inner(node);
    return;
  }
  if ((type === 'cast' || type === 'try_cast') && node[type].to?.data_type === 'var_char') {
    const zone = zoneOf(node[type].this, scope);
    if (zone) found.set(node, zone);
  }
  const instantOperands =
    type === 'at_time_zone'
      ? [node.at_time_zone.this]
      : ['to_unixtime', 'at_timezone'].includes(functionCall(node)?.name ?? '')
        ? node.function.args.slice(0, 1)
        : (COMPARED_OPERANDS[type ?? ''] ?? []).map((key) => node[type!][key]);
  for (const operand of instantOperands) {
    const zone = operand && zoneOf(operand, scope);
    if (zone) found.set(operand, zone);
  }
  for (const key of Object.keys(node)) {
    if (key !== 'span') collectZoned(node[key], scope, found, inner);
  }
}

/** A star (`*`, `t.*`) and the FROM item it is qualified by. */
function starOf(node: AstNode): { qualifier?: string } | undefined {
  if (nodeType(node) === 'star') return { qualifier: node.star.table?.name };
  if (nodeType(node) === 'column' && node.column.name?.name === '*') {
    return { qualifier: node.column.table?.name };
  }
  return undefined;
}

function outputName(item: AstNode): string | undefined {
  if (nodeType(item) === 'alias') return lower(item.alias.alias?.name);
  return nodeType(item) === 'column' ? lower(item.column.name?.name) : undefined;
}

function fromScope(
  select: AstNode,
  ctes: ReadonlyMap<string, AstNode>,
  analysis: Analysis,
  depth: number,
): ScopeItem[] {
  const items: AstNode[] = [
    ...(select.from?.expressions ?? []),
    ...(select.joins ?? []).map((join: AstNode) => join.this),
  ];
  const queryColumns = (query: AstNode, aliases: AstNode[] | undefined, alias: string): ScopeItem => ({
    alias,
    ...renamed(queryOutputs(query, ctes, analysis, depth + 1), aliases),
  });
  return items.map((item): ScopeItem => {
    switch (nodeType(item)) {
      case 'subquery':
        return queryColumns(
          item.subquery.this,
          item.subquery.column_aliases,
          lower(item.subquery.alias?.name),
        );
      case 'table': {
        const { table } = item;
        const alias = lower(table.alias?.name ?? table.name?.name);
        const cte = table.schema ? undefined : ctes.get(lower(table.name?.name));
        if (cte) {
          const aliases = table.column_aliases?.length ? table.column_aliases : cte.columns;
          return queryColumns(cte.this, aliases, alias);
        }
        const stored = analysis.tables.find(
          (t) => lower(t.schema) === lower(table.schema?.name) && lower(t.name) === lower(table.name?.name),
        );
        if (!stored) return { alias, complete: false };
        const columns = stored.columns.map((column) => ({
          name: lower(column.name),
          hint: hintOfType(column.type),
        }));
        return {
          alias,
          table: [table.catalog, table.schema, table.name]
            .filter(Boolean)
            .map((part) => part.name)
            .join('.'),
          ...renamed({ columns, complete: true }, table.column_aliases),
        };
      }
      default:
        return { alias: '', complete: false };
    }
  });
}

/** Columns renamed by a column alias list (`t (a, b)`, `WITH c (a, b)`): they keep their places. */
function renamed(outputs: Outputs, aliases: AstNode[] | undefined): Outputs {
  if (!aliases?.length) return outputs;
  return {
    columns: aliases.map((name, i) => ({ name: lower(name.name), hint: outputs.columns[i]?.hint })),
    complete: outputs.complete && outputs.columns.length === aliases.length,
  };
}

function hintOfType(type: string): string | undefined {
  return timestampZone(type) !== undefined || type === YEAR_MONTH_INTERVAL ? type : undefined;
}

/** The hint of a column reference, from the FROM item it names (or the one that has it). */
function columnHint(node: AstNode, scope: readonly ScopeItem[]): string | undefined {
  const name = lower(node.column.name?.name);
  const table = node.column.table ? lower(node.column.table.name) : undefined;
  const from = table === undefined ? scope : scope.filter((item) => item.alias === table);
  for (const item of from) {
    const column = item.columns?.find((c) => c.name === name);
    if (column) return column.hint;
  }
  return undefined;
}

/**
 * The zone an expression moves a timestamp to, as written in it (`x AT TIME ZONE 'Asia/Tokyo'`,
 * also truncated or shifted); undefined when it does not, or only through a column.
 */
export function zoneOfExpression(node: AstNode): string | undefined {
  return zoneOf(node, []);
}

/** A zone name as Trino spells them (`America/New_York`, `UTC`, `+09:00`, `Etc/GMT-3`). */
const ZONE_NAME = /^[A-Za-z0-9_+\-:/]{1,64}$/;

/** The zone a timestamp expression's wall-clock time is in, when it is written out. */
function zoneOf(node: AstNode, scope: readonly ScopeItem[]): string | undefined {
  const type = nodeType(node);
  switch (type) {
    case 'alias':
    case 'paren':
    case 'max':
    case 'min':
      return zoneOf(node[type].this, scope);
    case 'at_time_zone':
      return zoneName(node.at_time_zone.zone);
    case 'literal':
      return zonedTimestampLiteral(node)?.zone;
    case 'column': {
      const hint = columnHint(node, scope);
      return hint === undefined ? undefined : timestampZone(hint);
    }
    case 'add':
    case 'sub':
      return nodeType(node[type].right) === 'interval' ? zoneOf(node[type].left, scope) : undefined;
  }
  const call = functionCall(node);
  switch (call?.name) {
    case 'at_timezone':
    case 'with_timezone':
      return call.args.length === 2 ? zoneName(call.args[1]) : undefined;
    case 'from_unixtime':
      return call.args.length === 2
        ? zoneName(call.args[1])
        : call.args.length === 3
          ? hoursAndMinutesZone(call.args[1], call.args[2])
          : undefined;
    case 'date_trunc':
      return call.args.length === 2 ? zoneOf(call.args[1], scope) : undefined;
    case 'date_add':
      return call.args.length === 3 ? zoneOf(call.args[2], scope) : undefined;
    case 'max':
    case 'min':
    case 'arbitrary':
    case 'any_value':
      return call.args.length === 1 ? zoneOf(call.args[0], scope) : undefined;
  }
  return undefined;
}

/** A literal zone name (`'Asia/Tokyo'`), as a zone-moving call's argument must be to be shown so. */
export function zoneName(node: AstNode): string | undefined {
  const zone = stringLiteral(node);
  return zone !== undefined && ZONE_NAME.test(zone) ? zone : undefined;
}

/**
 * A timestamp literal written with a zone (`timestamp '2024-01-01 12:00:00 America/New_York'`,
 * `… 12:00+05:30`), a timestamp with time zone in Trino: its wall-clock time as DuckDB reads it
 * (seconds added where Trino lets them out) and its zone, an offset written `±HH:MM`, as Trino shows it.
 */
export function zonedTimestampLiteral(node: AstNode): { wallClock: string; zone: string } | undefined {
  if (nodeType(node) !== 'literal' || node.literal.literal_type !== 'timestamp') return undefined;
  const parts =
    /^(\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(?:([+-])(\d{2}):?(\d{2})?|\s([A-Za-z][\w/+-]*))$/.exec(
      String(node.literal.value).trim(),
    );
  if (!parts) return undefined;
  const [, time, sign, hours, minutes, name] = parts;
  const zone = name ?? `${sign}${hours}:${minutes ?? '00'}`;
  if (!ZONE_NAME.test(zone)) return undefined;
  return { wallClock: /:\d{2}:\d{2}/.test(time!) ? time! : `${time}:00`, zone };
}

/** `from_unixtime(x, hours, minutes)`'s zone, `±HH:MM`, when both are integer literals. */
function hoursAndMinutesZone(hours: AstNode, minutes: AstNode): string | undefined {
  const integer = (node: AstNode): number | undefined => {
    if (nodeType(node) === 'neg') {
      const value = integer(node.neg.this);
      return value === undefined ? undefined : -value;
    }
    const text =
      nodeType(node) === 'literal' && node.literal.literal_type === 'number' ? node.literal.value : '';
    return /^\d+$/.test(String(text)) ? Number(text) : undefined;
  };
  const [h, m] = [integer(hours), integer(minutes)];
  if (h === undefined || m === undefined) return undefined;
  // Trino's offset is hours * 60 + minutes (TimeZoneKey.getTimeZoneKeyForOffset), within ±14:00.
  const offset = h * 60 + m;
  if (Math.abs(offset) > 14 * 60) return undefined;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
}

const YEAR_MONTH_UNITS = new Set(['year', 'month']);

/** Whether an expression is a year-to-month interval. */
function isYearMonth(node: AstNode, scope: readonly ScopeItem[]): boolean {
  const type = nodeType(node);
  switch (type) {
    case 'alias':
    case 'paren':
    case 'neg':
    case 'sum':
    case 'max':
    case 'min':
      return isYearMonth(node[type].this, scope);
    case 'column':
      return columnHint(node, scope) === YEAR_MONTH_INTERVAL;
    case 'interval': {
      const unit = node.interval.unit;
      const start = unit?.type === 'span' ? unit.this : unit?.unit;
      return YEAR_MONTH_UNITS.has(lower(start));
    }
    case 'add':
    case 'sub':
      return isYearMonth(node[type].left, scope) && isYearMonth(node[type].right, scope);
    case 'mul':
      return isYearMonth(node.mul.left, scope) !== isYearMonth(node.mul.right, scope);
  }
  return false;
}
