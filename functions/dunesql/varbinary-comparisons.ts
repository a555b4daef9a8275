/**
 * Comparing varbinary with varchar: `address = '0xc02a…'` (the usual slip), or an uploaded CSV's
 * text column joined with an onchain address. Trino refuses it ("Cannot apply operator: varbinary
 * = varchar"); DuckDB would cast the text's characters to bytes and quietly match nothing. Both
 * hosts refuse it here, before anything runs, with the fix: an unquoted 0x literal, or from_hex.
 * Only statements that compare with a quoted 0x… string, or read an uploaded table, are typed, and
 * only sides known for sure to be varbinary and varchar are refused.
 */
import { findAll } from './ast';
import { walkTyped } from './athena-varbinary-casts';
import { tablesNamed } from './nested-outputs';
import type { Polyglot, TableSchema } from './nested-typing';
import type { AstNode } from './polyglot';

const COMPARISONS = ['eq', 'neq', 'lt', 'gt', 'lte', 'gte'] as const;
const HEX_TEXT = /^0x[0-9a-f]*$/i;

export class VarbinaryComparedWithText extends Error {
  constructor(
    message: string,
    /** Offset (in the prepared source, code points) of the varbinary side, when it has one. */
    readonly offset: number | undefined,
  ) {
    super(message);
  }
}

const isHexText = (node: AstNode) =>
  node?.literal?.literal_type === 'string' && HEX_TEXT.test(String(node.literal.value));

/**
 * Throws VarbinaryComparedWithText at the first comparison of a varbinary with text. `tables` type
 * the base tables; `uploads` the uploaded tables the SQL may read (their text columns often hold
 * 0x addresses).
 */
export function refuseVarbinaryComparedWithText(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
  uploads: readonly TableSchema[] = [],
): void {
  const comparisons = [
    ...COMPARISONS.flatMap((kind) => findAll(statement, kind).map((node: AstNode) => node[kind])),
    ...findAll(statement, 'in').map((node: AstNode) => node.in),
  ];
  if (comparisons.length === 0) return;
  const hasHexText = comparisons.some(
    (node) => isHexText(node.left) || isHexText(node.right) || (node.expressions ?? []).some(isHexText),
  );
  if (!hasHexText && tablesNamed(statement, uploads).length === 0) return;
  walkTyped(polyglot, statement, [...tables, ...uploads], (node, kind, typing) => {
    const pairs: [AstNode, AstNode][] =
      kind === 'in'
        ? (node.in.expressions ?? []).map((item: AstNode) => [node.in.this, item])
        : (COMPARISONS as readonly string[]).includes(kind)
          ? [
              [node[kind].left, node[kind].right],
              [node[kind].right, node[kind].left],
            ]
          : [];
    for (const [binary, text] of pairs) {
      const binaryType = typing()?.typeOf(binary);
      if (binaryType?.kind !== 'scalar' || binaryType.name !== 'varbinary') continue;
      if (isHexText(text)) throw literalComparison(binary, String(text.literal.value));
      const textType = typing()?.typeOf(text);
      if (textType?.kind === 'scalar' && textType.name === 'varchar' && text?.column) {
        throw new VarbinaryComparedWithText(
          `Cannot compare varbinary with varchar: ${describe(binary)} is varbinary and ${describe(text)} is varchar. If ${describe(text)} holds 0x text, compare from_hex(${describe(text)}); or give the uploaded column the type varbinary.`,
          binary?.column?.span?.start ?? text.column.span?.start,
        );
      }
    }
    return node;
  });
}

function literalComparison(binary: AstNode, value: string): VarbinaryComparedWithText {
  // An address (42 characters) or hash (66) is shown whole, so the fix can be copied.
  const shown = value.length > 66 ? `${value.slice(0, 66)}…` : value;
  return new VarbinaryComparedWithText(
    `Cannot compare varbinary with varchar: ${describe(binary)} is varbinary, and '${shown}' is text. Write the value without quotes, as a 0x literal (${shown}), or convert text with from_hex('${shown}').`,
    binary?.column?.span?.start,
  );
}

function describe(node: AstNode): string {
  const column = node?.column;
  if (!column) return 'the other side';
  const table = column.table?.name;
  return table ? `${table}.${column.name.name}` : String(column.name.name);
}
