/**
 * Rewrites for the local engine of expressions whose DuckDB answer differs from Trino's by their
 * operands' types, as the tables' types and the expression tell (each is left alone where the
 * translator cannot tell). One rewrite per construct, tried in order on every node, bottom-up.
 */
import { findAll, functionCall, instantiate, nodeType, someNode } from './ast';
import { walkTyped } from './athena-varbinary-casts';
import { inDouble, WIDE_INTEGER_OPERATORS } from './athena-wide-integers';
import { HELPER_PREFIX, offsetMinutes } from './duckdb-target';
import type { Polyglot, TableSchema, Typing } from './nested-typing';
import { COMPARED_OPERANDS, zonedTimestampLiteral, zoneOfExpression } from './output-types';
import type { AstNode } from './polyglot';
import { decimalDivision, fractionalWithWideInteger, isWholeNumber, isWideInteger } from './scalar-types';

interface Visit {
  polyglot: Polyglot;
  node: AstNode;
  kind: string;
  typing: () => Typing | undefined;
  /** The operand's scalar type name (`bigint`, `decimal(2,1)`), if it is a known scalar. */
  scalarOf: (operand: AstNode) => string | undefined;
  /** Casts to varchar and compared operands of a zone-moved timestamp read through a column, with its zone. */
  zoned: ReadonlyMap<AstNode, string>;
  /** Aggregates held by an OVER clause, which takes the aggregate itself, not an expression of it. */
  windowed: ReadonlySet<AstNode>;
}

/** A rewrite: the node's replacement, or undefined to leave it to the next one. */
type Rewrite = (visit: Visit) => AstNode | undefined;

const template = (visit: Visit, sql: string, args: AstNode[]) => instantiate(visit.polyglot, sql, args);
const decimalType = (type: ReturnType<Typing['typeOf']>) =>
  type?.kind === 'scalar' ? /^decimal\((\d+),(\d+)\)$/.exec(type.name) : null;

/** 10 to the power of `exponent` as an integer literal, and 10 to its minus as a decimal one. */
const powerOfTen = (exponent: number) => `1${'0'.repeat(exponent)}`;
const tenToMinus = (exponent: number) => (exponent === 0 ? '1' : `0.${'0'.repeat(exponent - 1)}1`);

/** A timestamp moved to a zone, cast to varchar: Trino writes the zone after it (DuckDB: UTC). */
const zonedTimestampText: Rewrite = ({ node, kind, zoned, ...visit }) => {
  if ((kind !== 'cast' && kind !== 'try_cast') || node[kind].to?.data_type !== 'var_char') return undefined;
  const zone = zoned.get(node) ?? zoneOfExpression(node[kind].this);
  if (zone === undefined) return undefined;
  return template({ node, kind, zoned, ...visit }, `strftime(__1, '%Y-%m-%d %H:%M:%S.%g ${zone}')`, [
    node[kind].this,
  ]);
};

/**
 * A cast of text to `varchar(n)` keeps its first n characters in Trino (CharacterStringCasts);
 * DuckDB ignores the length. Text of another type is left whole (Trino refuses it when longer).
 */
const boundedVarchar: Rewrite = (visit) => {
  const { node, kind } = visit;
  if ((kind !== 'cast' && kind !== 'try_cast') || node[kind].to?.data_type !== 'var_char') return undefined;
  const { length } = node[kind].to;
  if (typeof length !== 'number') return undefined;
  const source = visit.scalarOf(node[kind].this);
  if (source !== undefined && !/^(varchar|char)\b/.test(source)) return undefined;
  const unbounded = structuredClone(node);
  delete unbounded[kind].to.length;
  return template(visit, `substr(__1, 1, ${length})`, [unbounded]);
};

/**
 * `a[n]` of an array fails past either end in Trino, where DuckDB answers NULL (or counts back
 * from the end); `m[k]` of a map fails for a missing key, where DuckDB answers NULL.
 */
const checkedSubscript: Rewrite = (visit) => {
  if (visit.kind !== 'subscript') return undefined;
  const container = visit.typing()?.typeOf(visit.node.subscript.this)?.kind;
  if (container !== 'array' && container !== 'map') return undefined;
  return template(visit, `${HELPER_PREFIX}${container}_at(__1, __2)`, [
    visit.node.subscript.this,
    visit.node.subscript.index,
  ]);
};

/**
 * avg of a decimal is a decimal of its type in Trino, rounded half away from zero; DuckDB's is a
 * double. Its sum over its count (over the same window), divided as decimals.
 */
const decimalAverage: Rewrite = (visit) => {
  const { node, kind } = visit;
  const averaged = kind === 'avg' ? node : kind === 'window_function' ? node.window_function.this : undefined;
  if (nodeType(averaged) !== 'avg' || (kind === 'avg' && visit.windowed.has(node))) return undefined;
  const decimal = decimalType(visit.typing()?.typeOf(averaged));
  if (!decimal) return undefined;
  const scale = Number(decimal[2]);
  const distinct = averaged.avg.distinct ? 'DISTINCT ' : '';
  const [sum, count] = ['sum', 'count'].map((aggregate) => {
    const call = template(visit, `${aggregate}(${distinct}__1)`, [averaged.avg.this]);
    if (kind !== 'window_function') return call;
    const window = structuredClone(node);
    window.window_function.this = call;
    return window;
  });
  return template(
    visit,
    `CAST(${HELPER_PREFIX}decimal_divide(__1, __2, ${powerOfTen(scale)}, 1, 1, ${tenToMinus(scale)}) AS DECIMAL(${decimal[1]}, ${scale}))`,
    [sum, count],
  );
};

/** Trino's `array || element` and `element || array` (DuckDB's || joins two lists only). */
const arrayAndElement: Rewrite = (visit) => {
  if (visit.kind !== 'concat') return undefined;
  const { left, right } = visit.node.concat;
  const [leftType, rightType] = [left, right].map((operand) => visit.typing()?.typeOf(operand)?.kind);
  if (leftType === 'array' && rightType === 'scalar')
    return template(visit, 'list_append(__1, __2)', [left, right]);
  if (leftType === 'scalar' && rightType === 'array')
    return template(visit, 'list_prepend(__1, __2)', [left, right]);
  return undefined;
};

/**
 * to_unixtime, AT TIME ZONE or at_timezone of a timestamp moved to a zone (or written with one): it
 * is held as its wall-clock time there, so its instant is that time read in the zone (an offset
 * zone: less the offset), not read as UTC. `timestamp '… America/New_York' at time zone 'UTC'`
 * moved the New York time as if it were UTC's.
 */
const zonedInstantOperand: Rewrite = (visit) => {
  const { node, kind } = visit;
  const call = kind === 'function' ? functionCall(node) : undefined;
  const holder =
    kind === 'at_time_zone'
      ? node.at_time_zone
      : call?.name === 'to_unixtime' || call?.name === 'at_timezone'
        ? node.function.args
        : undefined;
  const key = kind === 'at_time_zone' ? 'this' : 0;
  const timestamp = holder?.[key];
  const zone = timestamp && (visit.zoned.get(timestamp) ?? zoneOfExpression(timestamp));
  if (zone === undefined) return undefined;
  const rewritten = structuredClone(node);
  (kind === 'at_time_zone' ? rewritten.at_time_zone : rewritten.function.args)[key] = template(
    visit,
    instantIn(zone),
    [timestamp],
  );
  return rewritten;
};

/** The instant of `__1`, a timestamp held as its wall-clock time in `zone`. */
function instantIn(zone: string): string {
  const minutes = offsetMinutes(zone);
  return minutes === undefined
    ? `timezone('${zone}', CAST(__1 AS TIMESTAMP))`
    : `CAST(CAST(__1 AS TIMESTAMP) - to_minutes(${minutes}) AS TIMESTAMP WITH TIME ZONE)`;
}

/**
 * A timestamp moved to a zone, compared: Trino compares instants (an unzoned timestamp read in the
 * session's zone, UTC), so `block_time at time zone 'America/New_York' >= timestamp '2024-01-01'`
 * is `block_time >= 2024-01-01 00:00 UTC`. DuckDB held the moved value as its wall-clock time there
 * and compared that, off by the zone's offset: each moved operand is compared as its instant.
 */
const zonedComparison: Rewrite = (visit) => {
  const operands = COMPARED_OPERANDS[visit.kind];
  if (!operands) return undefined;
  const comparison = { ...visit.node[visit.kind] };
  let moved = false;
  for (const key of operands) {
    const operand = comparison[key];
    const zone = operand === undefined ? undefined : (visit.zoned.get(operand) ?? zoneOfExpression(operand));
    if (zone === undefined) continue;
    comparison[key] = template(visit, instantIn(zone), [operand]);
    moved = true;
  }
  return moved ? { [visit.kind]: comparison } : undefined;
};

/**
 * round of a decimal keeps its scale in Trino (decimal(p + 1, s); without digits, a decimal of
 * scale 0); DuckDB's takes the digits asked for as the scale.
 */
const decimalRound: Rewrite = (visit) => {
  if (visit.kind !== 'function' || functionCall(visit.node)?.name !== 'round') return undefined;
  const rounded = visit.typing()?.typeOf(visit.node);
  if (!decimalType(rounded) || rounded?.kind !== 'scalar') return undefined;
  return template(visit, `CAST(__1 AS ${rounded.name.toUpperCase()})`, [visit.node]);
};

/**
 * A division Trino computes in floating point (a double or real operand): by zero ±Infinity, or
 * NaN for 0/0, where DuckDB (dividing integers as integers) answers NULL. A division of types the
 * translator cannot tell is left to the `div` rule, which keeps DuckDB's NULL.
 */
const floatingDivision: Rewrite = (visit) => {
  if (visit.kind !== 'div') return undefined;
  const { left, right } = visit.node.div;
  const floating = (operand: AstNode) => ['double', 'real'].includes(visit.scalarOf(operand) ?? '');
  if (!floating(left) && !floating(right)) return undefined;
  return template(visit, `${HELPER_PREFIX}float_divide(__1, __2)`, [left, right]);
};

/**
 * A division with a decimal operand is Trino's decimal division: the larger scale, rounded half
 * away from zero (`1.0 / 3` is 0.3); DuckDB's is a double. A uint256 or int256 divides as an
 * integer in DuneSQL (DuckDB's own division of the 128-bit integers holding them).
 */
const decimalQuotient: Rewrite = (visit) => {
  if (visit.kind !== 'div') return undefined;
  const { left, right } = visit.node.div;
  if (isWideInteger(visit.scalarOf(left)) || isWideInteger(visit.scalarOf(right))) return undefined;
  const quotient = decimalDivision(visit.typing()?.typeOf(left), visit.typing()?.typeOf(right));
  if (!quotient) return undefined;
  const { leftScale, rightScale, precision, scale } = quotient;
  const shift = scale - leftScale + rightScale;
  // 10^38 is past DuckDB's 128-bit integers: such a division stays DuckDB's (a double).
  if (Math.max(leftScale, rightScale, shift) > 37) return undefined;
  return template(
    visit,
    `CAST(${HELPER_PREFIX}decimal_divide(__1, __2, ${powerOfTen(leftScale)}, ${powerOfTen(rightScale)}, ${powerOfTen(shift)}, ${tenToMinus(scale)}) AS DECIMAL(${precision}, ${scale}))`,
    [left, right],
  );
};

/**
 * DuneSQL computes a uint256 or int256 with a decimal of non-zero scale, a real or a double as
 * doubles; DuckDB kept a decimal(38, s), which overflows past 10^(38 - s).
 */
const fractionOfWideInteger: Rewrite = (visit) => {
  const { node, kind } = visit;
  if (kind === 'div' || !Object.hasOwn(WIDE_INTEGER_OPERATORS, kind)) return undefined;
  if (!fractionalWithWideInteger(visit.scalarOf(node[kind].left), visit.scalarOf(node[kind].right)))
    return undefined;
  return inDouble(visit.polyglot, node, kind);
};

/** A whole-number type narrower than uint256/int256: a signed integer or a decimal of scale 0. */
const isNarrowWholeNumber = (type: string | undefined) => isWholeNumber(type) && !isWideInteger(type);

/** An operand of a narrower whole-number type, not a literal (DuckDB gives a literal the wide type). */
const isNarrowOperand = (scalarOf: Visit['scalarOf'], operand: AstNode) =>
  nodeType(operand) !== 'literal' && isNarrowWholeNumber(scalarOf(operand));

/**
 * uint256 and int256 arithmetic with a whole number, as DuneSQL computes it (docs.dune.com,
 * "Implicit Casting with numeric types"): the narrower operand converts to the wider type, int256
 * counting as wider than uint256, and the result is exact. DuckDB finds no common integer type for
 * its unsigned 128-bit integer and a signed one and computes in double: `value + gas_price *
 * gas_used` lost the last wei, `amount0 + value` (int256 and uint256) too.
 * - With a narrower whole number, that number becomes a uint256 (a negative one fails, as in
 *   DuneSQL) or stays as it is with an int256. A number literal takes the wide type in DuckDB
 *   already, unless negative (then a double).
 * - With each other, a uint256 becomes an int256 when the other is one.
 * The typing cannot tell uint256 from int256 (Athena holds both as decimal(38,0)): the helpers
 * choose by DuckDB's type at run time.
 */
const wholeNumberWithWideInteger: Rewrite = (visit) => {
  const { node, kind, scalarOf } = visit;
  if (!Object.hasOwn(WIDE_INTEGER_OPERATORS, kind)) return undefined;
  const { left, right } = node[kind];
  const wide = (operand: AstNode) => isWideInteger(scalarOf(operand));
  const narrow = (operand: AstNode) => isNarrowOperand(scalarOf, operand);
  const helper = (name: string, operand: AstNode, other: AstNode) =>
    template(visit, `${HELPER_PREFIX}${name}(__1, __2)`, [operand, other]);
  const rewritten = structuredClone(node);
  if (wide(left) && wide(right)) {
    rewritten[kind].left = helper('int256_with', left, right);
    rewritten[kind].right = helper('int256_with', right, left);
  } else if (wide(left) && narrow(right)) rewritten[kind].right = helper('wide_operand', left, right);
  else if (narrow(left) && wide(right)) rewritten[kind].left = helper('wide_operand', right, left);
  else return undefined;
  return rewritten;
};

/** Where a conditional expression's possible results sit: `[holder, key]` pairs, by node type. */
function resultSlots(node: AstNode, kind: string): [AstNode, string | number][] {
  const body = node[kind];
  switch (kind) {
    case 'coalesce':
      return body.expressions.map((_: AstNode, i: number) => [body.expressions, i]);
    case 'case':
      return [
        ...body.whens.map((when: AstNode[]) => [when, 1] as [AstNode, number]),
        ...(body.else_ ? [[body, 'else_'] as [AstNode, string]] : []),
      ];
    case 'if_func':
      return [
        [body, 'true_value'],
        ...(body.false_value ? [[body, 'false_value'] as [AstNode, string]] : []),
      ];
    case 'function':
      return ['greatest', 'least'].includes(functionCall(node)?.name ?? '')
        ? body.args.map((_: AstNode, i: number) => [body.args, i])
        : [];
    default:
      return [];
  }
}

/**
 * A uint256 (or int256) with a narrower whole number among the results of `coalesce`, `CASE`,
 * `if` or `greatest`/`least`: DuneSQL converts the number to the wide type, so `coalesce(value,
 * gas_used)` is a uint256; DuckDB found no common integer type and typed it an int256 (a JSON
 * number where Dune writes a string). Each narrower result converts as in arithmetic (a negative
 * one fails to become a uint256).
 */
const wideIntegerAlternatives: Rewrite = (visit) => {
  const { node, kind, scalarOf } = visit;
  const slots = resultSlots(node, kind);
  if (slots.length < 2) return undefined;
  const reference = slots.map(([holder, key]) => holder[key]).find((r) => isWideInteger(scalarOf(r)));
  const narrow = (operand: AstNode) => isNarrowOperand(scalarOf, operand);
  if (!reference || !slots.some(([holder, key]) => narrow(holder[key]))) return undefined;
  const rewritten = structuredClone(node);
  for (const [holder, key] of resultSlots(rewritten, kind)) {
    if (narrow(holder[key])) {
      holder[key] = template(visit, `${HELPER_PREFIX}wide_operand(__1, __2)`, [reference, holder[key]]);
    }
  }
  return rewritten;
};

/**
 * Minus a uint256 has no uint256 answer: DuckDB's wrapped around silently (-1 became 2^128 - 1),
 * which a sum of balance changes then counted as a huge amount. It fails with how to write it.
 */
const negatedWideInteger: Rewrite = (visit) => {
  if (visit.kind !== 'neg' || !isWideInteger(visit.scalarOf(visit.node.neg.this))) return undefined;
  return template(visit, `${HELPER_PREFIX}negate_wide(__1)`, [visit.node.neg.this]);
};

/**
 * A date plus or minus an interval, either typed (a literal, a derived table's or a view's column;
 * the interval may come first in a sum): a date in Trino, a timestamp in DuckDB. The `add`/`sub`
 * rule also catches an interval literal after an operand of unknown type.
 */
const dateArithmetic: Rewrite = (visit) => {
  const { node, kind, scalarOf } = visit;
  if (kind !== 'add' && kind !== 'sub') return undefined;
  const { left, right } = node[kind];
  const isInterval = (operand: AstNode) => scalarOf(operand)?.startsWith('interval') === true;
  // interval + date is the same date (Trino has both orders of +).
  const [date, interval] =
    kind === 'add' && isInterval(left) && scalarOf(right) === 'date' ? [right, left] : [left, right];
  if (scalarOf(date) !== 'date' || !isInterval(interval)) return undefined;
  return template(visit, `${HELPER_PREFIX}${kind === 'add' ? 'date_plus' : 'date_minus'}(__1, __2)`, [
    date,
    interval,
  ]);
};

/**
 * date_diff of timestamps in different zones (one moved to or written with a zone, the other not,
 * or in another): Trino counts between the instants, DuckDB between the wall-clock times held, off
 * by the zones' offsets. Each zoned one is its instant then. Two in the same zone keep their
 * wall-clock times, so days are counted on that zone's calendar, as Trino does.
 */
const zonedDateDiff: Rewrite = (visit) => {
  if (visit.kind !== 'function' || functionCall(visit.node)?.name !== 'date_diff') return undefined;
  const args: AstNode[] = visit.node.function.args;
  if (args.length !== 3) return undefined;
  const zones = args.slice(1).map((arg) => visit.zoned.get(arg) ?? zoneOfExpression(arg));
  if (zones.every((zone) => zone === undefined) || (zones[0] ?? 'UTC') === (zones[1] ?? 'UTC'))
    return undefined;
  const rewritten = structuredClone(visit.node);
  zones.forEach((zone, i) => {
    if (zone !== undefined) rewritten.function.args[i + 1] = template(visit, instantIn(zone), [args[i + 1]!]);
  });
  return rewritten;
};

const REWRITES: readonly Rewrite[] = [
  zonedTimestampText,
  boundedVarchar,
  checkedSubscript,
  decimalAverage,
  arrayAndElement,
  zonedInstantOperand,
  zonedDateDiff,
  zonedComparison,
  decimalRound,
  floatingDivision,
  decimalQuotient,
  fractionOfWideInteger,
  wholeNumberWithWideInteger,
  wideIntegerAlternatives,
  negatedWideInteger,
  dateArithmetic,
];

/**
 * The node types and calls a rewrite above may change, or that move a timestamp to a zone (a cast
 * of one to varchar): a statement without any is left alone.
 */
const REWRITTEN_NODES = new Set([
  'div',
  'add',
  'sub',
  'mul',
  'mod',
  'neg',
  'subscript',
  'avg',
  'concat',
  'at_time_zone',
  'coalesce',
  'case',
  'if_func',
]);
const REWRITTEN_CALLS = new Set([
  'round',
  'to_unixtime',
  'at_timezone',
  'with_timezone',
  'date_diff',
  'from_unixtime',
  'greatest',
  'least',
]);

/** Applies the rewrites to the statement, in place; true if any changed it. */
export function typedRewrites(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
  /** Casts to varchar and compared operands of a zone-moved timestamp read through a column (output-types.ts). */
  zoned: ReadonlyMap<AstNode, string> = new Map(),
): boolean {
  const rewritable = (node: AstNode, type: string) =>
    REWRITTEN_NODES.has(type) ||
    (type === 'function' && REWRITTEN_CALLS.has(functionCall(node)?.name ?? '')) ||
    ((type === 'cast' || type === 'try_cast') && node[type].to?.length !== undefined) ||
    (type === 'literal' && zonedTimestampLiteral(node) !== undefined);
  if (zoned.size === 0 && !someNode(statement, rewritable)) return false;
  let changed = false;
  const windowed = new Set(findAll(statement, 'window_function').map((w) => w.window_function.this));
  walkTyped(polyglot, statement, tables, (node, kind, typing) => {
    const scalarOf = (operand: AstNode) => {
      const type = typing()?.typeOf(operand);
      return type?.kind === 'scalar' ? type.name : undefined;
    };
    const visit: Visit = { polyglot, node, kind, typing, scalarOf, zoned, windowed };
    for (const rewrite of REWRITES) {
      const replacement = rewrite(visit);
      if (replacement) {
        changed = true;
        return replacement;
      }
    }
    return node;
  });
  return changed;
}
