/**
 * Athena holds Dune's uint256 and int256 as decimal(38,0), and Trino computes with decimals as
 * decimals, where DuneSQL computes with the 256-bit types as integers or doubles
 * (docs.dune.com, "Implicit Casting with numeric types"). Where the translator knows an operand is
 * one of them (a base table's column, a cast, arithmetic of those), two rewrites keep Dune's answer:
 * - a division by a whole number truncates (`amount / 1000000`): a decimal division rounds half
 *   up, so it becomes `(a - a % b) / b`, exact;
 * - with a decimal of non-zero scale, a real or a double, the operation is done in double
 *   (`amount * 1.5`; a decimal(38, 1) would overflow past 10^37).
 * Operands of unknown type are left alone.
 */
import { instantiate, someNode } from './ast';
import { walkTyped } from './athena-varbinary-casts';
import type { Polyglot, TableSchema } from './nested-typing';
import type { AstNode } from './polyglot';
import { fractionalWithWideInteger, isWholeNumber, isWideInteger } from './scalar-types';

/** The arithmetic node types and their operators. */
export const WIDE_INTEGER_OPERATORS: Readonly<Record<string, string>> = {
  add: '+',
  sub: '-',
  mul: '*',
  div: '/',
  mod: '%',
};

/** The arithmetic node `node` of type `kind`, computed on its operands as doubles. */
export function inDouble(polyglot: Polyglot, node: AstNode, kind: string): AstNode {
  return instantiate(polyglot, `CAST(__1 AS DOUBLE) ${WIDE_INTEGER_OPERATORS[kind]} CAST(__2 AS DOUBLE)`, [
    node[kind].left,
    node[kind].right,
  ]);
}

/** Rewrites, in place, the statement's arithmetic of uint256 and int256; true if it changed any. */
export function wideIntegerArithmetic(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
): boolean {
  if (!someNode(statement, (_node, type) => Object.hasOwn(WIDE_INTEGER_OPERATORS, type))) return false;
  let changed = false;
  walkTyped(polyglot, statement, tables, (node, kind, typing) => {
    if (!Object.hasOwn(WIDE_INTEGER_OPERATORS, kind)) return node;
    const { left, right } = node[kind];
    const scalarOf = (operand: AstNode) => {
      const type = typing()?.typeOf(operand);
      return type?.kind === 'scalar' ? type.name : undefined;
    };
    const [leftType, rightType] = [scalarOf(left), scalarOf(right)];
    if (fractionalWithWideInteger(leftType, rightType)) {
      changed = true;
      return inDouble(polyglot, node, kind);
    }
    const wideDivision =
      kind === 'div' &&
      (isWideInteger(leftType) || isWideInteger(rightType)) &&
      isWholeNumber(leftType) &&
      isWholeNumber(rightType);
    if (!wideDivision) return node;
    changed = true;
    return instantiate(polyglot, '((__1 - __1 % __2) / __2)', [left, right]);
  });
  return changed;
}
