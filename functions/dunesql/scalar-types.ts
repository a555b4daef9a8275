/**
 * Trino's result types of scalar operators, for typing the elements of arrays built from
 * expressions (`array_agg(amount * price)`, `transform(xs, x -> x.value / 2)`). Only what can be
 * told for sure; anything else is undefined, and the caller leaves the column alone.
 * Rules: https://trino.io/docs/current/functions/decimal.html (decimal precision and scale) and
 * https://trino.io/docs/current/language/types.html (integer widths).
 */
import type { TrinoType } from './nested-json';

const scalar = (name: string): TrinoType => ({ kind: 'scalar', name });
export const BOOLEAN = scalar('boolean');
export const BIGINT = scalar('bigint');
export const VARCHAR = scalar('varchar');
export const VARBINARY = scalar('varbinary');
/** An interval literal; only ever added to or subtracted from a date or timestamp here. */
export const INTERVAL = scalar('interval');

/** Integer types by width, and the decimal each widens to beside a decimal. */
const INTEGERS: Record<string, { rank: number; digits: number }> = {
  tinyint: { rank: 1, digits: 3 },
  smallint: { rank: 2, digits: 5 },
  integer: { rank: 3, digits: 10 },
  int: { rank: 3, digits: 10 },
  bigint: { rank: 4, digits: 19 },
};

type Numeric =
  | { kind: 'integer'; name: string }
  | { kind: 'decimal'; p: number; s: number }
  | { kind: 'float'; name: string };

function numeric(type: TrinoType | undefined): Numeric | undefined {
  if (type?.kind !== 'scalar') return undefined;
  if (INTEGERS[type.name]) return { kind: 'integer', name: type.name === 'int' ? 'integer' : type.name };
  const decimal = /^decimal\((\d+),\s*(\d+)\)$/.exec(type.name);
  if (decimal) return { kind: 'decimal', p: Number(decimal[1]), s: Number(decimal[2]) };
  return type.name === 'double' || type.name === 'real' ? { kind: 'float', name: type.name } : undefined;
}

const asDecimal = (n: Numeric): { p: number; s: number } =>
  n.kind === 'decimal' ? n : { p: INTEGERS[(n as { name: string }).name]!.digits, s: 0 };

/** The type of `left <op> right` for + - * / %; undefined when either side is not known numeric. */
export function arithmeticType(
  op: 'add' | 'sub' | 'mul' | 'div' | 'mod',
  left: TrinoType | undefined,
  right: TrinoType | undefined,
): TrinoType | undefined {
  // date/timestamp ± interval keeps the date or timestamp.
  if ((op === 'add' || op === 'sub') && left?.kind === 'scalar' && /^(date|timestamp)/.test(left.name)) {
    return right?.kind === 'scalar' && right.name.startsWith('interval') ? left : undefined;
  }
  const a = numeric(left);
  const b = numeric(right);
  if (!a || !b) return undefined;
  if (a.kind === 'float' || b.kind === 'float') {
    const double = (a.kind === 'float' && a.name === 'double') || (b.kind === 'float' && b.name === 'double');
    return scalar(double ? 'double' : 'real');
  }
  if (a.kind === 'integer' && b.kind === 'integer') {
    return scalar(INTEGERS[a.name]!.rank >= INTEGERS[b.name]!.rank ? a.name : b.name);
  }
  const { p: p1, s: s1 } = asDecimal(a);
  const { p: p2, s: s2 } = asDecimal(b);
  const s = Math.max(s1, s2);
  switch (op) {
    case 'add':
    case 'sub':
      return decimal(1 + s + Math.max(p1 - s1, p2 - s2), s);
    case 'mul':
      return decimal(p1 + p2, s1 + s2);
    case 'div': {
      const quotient = decimalDivision(left, right)!;
      return decimal(quotient.precision, quotient.scale);
    }
    case 'mod':
      return decimal(Math.min(p1 - s1, p2 - s2) + s, s);
  }
}

/**
 * A division Trino computes in decimal (one operand a decimal, the other a decimal or an integer):
 * the operands' scales and the quotient's precision and scale (the quotient is rounded half away
 * from zero to that scale: `1.0 / 3` is 0.3). Undefined for any other division.
 */
export function decimalDivision(
  left: TrinoType | undefined,
  right: TrinoType | undefined,
): { leftScale: number; rightScale: number; precision: number; scale: number } | undefined {
  const a = numeric(left);
  const b = numeric(right);
  if (
    !a ||
    !b ||
    a.kind === 'float' ||
    b.kind === 'float' ||
    (a.kind === 'integer' && b.kind === 'integer')
  ) {
    return undefined;
  }
  const x = asDecimal(a);
  const y = asDecimal(b);
  return {
    leftScale: x.s,
    rightScale: y.s,
    precision: Math.min(38, x.p + y.s + Math.max(0, y.s - x.s)),
    scale: Math.max(x.s, y.s),
  };
}

/**
 * The type of round(x) (`digits` false) or round(x, d) of a number type: a decimal(p, s) rounds
 * to decimal(p - s + min(1, s), 0), or keeps its scale with one more digit, decimal(p + 1, s)
 * (Trino's MathFunctions); integers and floating types keep theirs.
 */
export function roundedType(operand: TrinoType | undefined, digits: boolean): TrinoType | undefined {
  const n = numeric(operand);
  if (!n) return undefined;
  if (n.kind !== 'decimal') return operand;
  return digits ? decimal(n.p + 1, n.s) : decimal(n.p - n.s + Math.min(1, n.s), 0);
}

/**
 * A uint256 or int256 by the name the translator types it with: the base tables are typed as
 * Athena holds them, where both are decimal(38,0) (no base table has a decimal(38,0) of its own).
 */
export const isWideInteger = (type: string | undefined) =>
  type === 'uint256' || type === 'int256' || /^decimal\(38,\s*0\)$/.test(type ?? '');

/**
 * Whether one operand is a uint256 or int256 and the other a decimal of non-zero scale, a real or
 * a double: DuneSQL computes such an operation in double (docs.dune.com, "Implicit Casting with
 * numeric types").
 */
export function fractionalWithWideInteger(left: string | undefined, right: string | undefined): boolean {
  const fractional = (type: string | undefined) =>
    type === 'double' || type === 'real' || /^decimal\(\d+,\s*[1-9]\d*\)$/.test(type ?? '');
  return (isWideInteger(left) && fractional(right)) || (fractional(left) && isWideInteger(right));
}

/** Whether a type divides as an integer with a uint256 or int256 (DuneSQL converts it to one). */
export const isWholeNumber = (type: string | undefined) =>
  isWideInteger(type) ||
  /^(tinyint|smallint|integer|int|bigint)$/.test(type ?? '') ||
  /^decimal\(\d+,\s*0\)$/.test(type ?? '');

function decimal(precision: number, scale: number): TrinoType {
  return scalar(`decimal(${Math.min(38, precision)},${Math.min(scale, 38)})`);
}

/** The type of a number literal as Trino reads it: integer, bigint, decimal(p,s) or double. */
export function numberLiteralType(text: string): TrinoType | undefined {
  if (/^\d+$/.test(text)) return scalar(BigInt(text) <= 2_147_483_647n ? 'integer' : 'bigint');
  const decimal = /^(\d*)\.(\d*)$/.exec(text);
  if (decimal) {
    const digits = (decimal[1]!.replace(/^0+/, '') + decimal[2]!).length || 1;
    return scalar(`decimal(${Math.max(digits, decimal[2]!.length)},${decimal[2]!.length})`);
  }
  return /^[\d.]+e[+-]?\d+$/i.test(text) ? scalar('double') : undefined;
}

/** Whether a type is a known numeric one (what `-x` and `abs(x)` keep). */
export function isNumeric(type: TrinoType | undefined): boolean {
  return numeric(type) !== undefined;
}

/**
 * The type Trino coerces two types to where they meet (CASE branches, ARRAY elements, set
 * operation columns): numbers widen (integers to the wider, integers and decimals to a decimal
 * holding both, anything with a double to double), varchars to varchar, and arrays, maps and rows
 * element-wise. Undefined when there is none or it is not known here.
 */
export function commonSuperType(a: TrinoType | undefined, b: TrinoType | undefined): TrinoType | undefined {
  if (!a || !b) return undefined;
  switch (a.kind) {
    case 'scalar': {
      if (b.kind !== 'scalar') return undefined;
      if (a.name === b.name) return a;
      if (/^varchar/.test(a.name) && /^varchar/.test(b.name)) return VARCHAR;
      const [x, y] = [numeric(a), numeric(b)];
      if (!x || !y) return undefined;
      if (x.kind === 'float' || y.kind === 'float') {
        const real = (x.kind !== 'float' || x.name === 'real') && (y.kind !== 'float' || y.name === 'real');
        return scalar(real ? 'real' : 'double');
      }
      if (x.kind === 'integer' && y.kind === 'integer')
        return scalar(INTEGERS[x.name]!.rank >= INTEGERS[y.name]!.rank ? x.name : y.name);
      const [d1, d2] = [asDecimal(x), asDecimal(y)];
      const s = Math.max(d1.s, d2.s);
      return decimal(Math.max(d1.p - d1.s, d2.p - d2.s) + s, s);
    }
    case 'array': {
      const element = b.kind === 'array' ? commonSuperType(a.element, b.element) : undefined;
      return element && { kind: 'array', element };
    }
    case 'map': {
      if (b.kind !== 'map') return undefined;
      const [key, value] = [commonSuperType(a.key, b.key), commonSuperType(a.value, b.value)];
      return key && value ? { kind: 'map', key, value } : undefined;
    }
    case 'row': {
      if (b.kind !== 'row' || a.fields.length !== b.fields.length) return undefined;
      const fields = a.fields.map((field, i) => {
        const other = b.fields[i]!;
        const type = field.name === other.name ? commonSuperType(field.type, other.type) : undefined;
        return type && { ...field, type };
      });
      return fields.every(Boolean)
        ? { kind: 'row', fields: fields as { name?: string; type: TrinoType }[] }
        : undefined;
    }
  }
}
