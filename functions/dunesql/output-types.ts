import { YEAR_MONTH_INTERVAL, zonedTimestampType } from '../core/sql-types';
import { functionCall, nodeType, stringLiteral } from './ast';
import type { AstNode } from './polyglot';

/**
 * What the local engine's result types cannot tell about a query's output columns, by position in
 * its select list (DuckDB types only), as engine type names the results read (core/sql-types.ts):
 * - a timestamp moved to a zone (`x AT TIME ZONE 'Asia/Tokyo'`, `at_timezone(x, …)`, also truncated,
 *   shifted or taken the min or max of): DuckDB holds the zone's wall-clock time without the zone,
 *   which the results would label UTC; Trino's `timestamp with time zone` shows the zone;
 * - a year-to-month interval (`interval '14' month`, sums and differences of them): DuckDB has one
 *   interval type, which the results would call day to second.
 * Undefined where DuckDB's type says it all or this cannot tell: past a `*` (the positions of later
 * items are not known here), in set operations, and for columns of subqueries or views.
 */
export function outputTypeHints(statement: AstNode): (string | undefined)[] {
  if (nodeType(statement) !== 'select') return [];
  const hints: (string | undefined)[] = [];
  for (const item of statement.select.expressions ?? []) {
    if (nodeType(item) === 'star') break;
    const zone = zoneOf(item);
    hints.push(zone ? zonedTimestampType(zone) : isYearMonth(item) ? YEAR_MONTH_INTERVAL : undefined);
  }
  return hints;
}

/** A zone name as Trino spells them (`America/New_York`, `UTC`, `+09:00`, `Etc/GMT-3`). */
const ZONE_NAME = /^[A-Za-z0-9_+\-:/]{1,64}$/;

/** The zone a timestamp expression's wall-clock time is in, when it is written out. */
function zoneOf(node: AstNode): string | undefined {
  switch (nodeType(node)) {
    case 'alias':
      return zoneOf(node.alias.this);
    case 'paren':
      return zoneOf(node.paren.this);
    case 'at_time_zone':
      return zoneName(node.at_time_zone.zone);
    case 'max':
    case 'min':
      return zoneOf(node[nodeType(node)!].this);
    case 'add':
    case 'sub':
      return nodeType(node[nodeType(node)!].right) === 'interval'
        ? zoneOf(node[nodeType(node)!].left)
        : undefined;
  }
  const call = functionCall(node);
  switch (call?.name) {
    case 'at_timezone':
      return call.args.length === 2 ? zoneName(call.args[1]) : undefined;
    case 'date_trunc':
      return call.args.length === 2 ? zoneOf(call.args[1]) : undefined;
    case 'date_add':
      return call.args.length === 3 ? zoneOf(call.args[2]) : undefined;
    case 'max':
    case 'min':
    case 'arbitrary':
    case 'any_value':
      return call.args.length === 1 ? zoneOf(call.args[0]) : undefined;
  }
  return undefined;
}

function zoneName(node: AstNode): string | undefined {
  const zone = stringLiteral(node);
  return zone !== undefined && ZONE_NAME.test(zone) ? zone : undefined;
}

const YEAR_MONTH_UNITS = new Set(['year', 'month']);

/** Whether an expression is a year-to-month interval. */
function isYearMonth(node: AstNode): boolean {
  const type = nodeType(node);
  switch (type) {
    case 'alias':
    case 'paren':
    case 'neg':
    case 'sum':
    case 'max':
    case 'min':
      return isYearMonth(node[type].this);
    case 'interval': {
      const unit = node.interval.unit;
      const start = unit?.type === 'span' ? unit.this : unit?.unit;
      return YEAR_MONTH_UNITS.has(String(start ?? '').toLowerCase());
    }
    case 'add':
    case 'sub':
      return isYearMonth(node[type].left) && isYearMonth(node[type].right);
    case 'mul':
      return isYearMonth(node.mul.left) !== isYearMonth(node.mul.right);
  }
  return false;
}
