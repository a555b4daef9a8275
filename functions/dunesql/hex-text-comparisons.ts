/**
 * `address = '0xc02a…'` compares a varbinary column with text. Trino refuses it ("Cannot apply
 * operator: varbinary = varchar"); DuckDB would cast the text's characters to bytes and quietly
 * match nothing. Both hosts refuse it here, before anything runs, with the fix: an unquoted 0x
 * literal, or from_hex. Only comparisons with a quoted 0x… string are typed (the usual mistake),
 * and only a side known for sure to be varbinary is refused: a varchar column holding 0x text
 * (an uploaded CSV's) compares with it as it should.
 */
import { findAll } from './ast';
import { walkTyped } from './athena-varbinary-casts';
import type { Polyglot, TableSchema } from './nested-typing';
import type { AstNode } from './polyglot';

const COMPARISONS = ['eq', 'neq', 'lt', 'gt', 'lte', 'gte'] as const;
const HEX_TEXT = /^0x[0-9a-f]*$/i;

export class HexTextComparison extends Error {
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

/** Throws HexTextComparison at the first varbinary compared with a quoted 0x string. */
export function refuseHexTextComparisons(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
): void {
  const candidates = [
    ...COMPARISONS.flatMap((kind) => findAll(statement, kind).map((node: AstNode) => node[kind])),
    ...findAll(statement, 'in').map((node: AstNode) => node.in),
  ];
  const hasHexText = candidates.some(
    (node) => isHexText(node.left) || isHexText(node.right) || (node.expressions ?? []).some(isHexText),
  );
  if (!hasHexText) return;
  walkTyped(polyglot, statement, tables, (node, kind, typing) => {
    const pairs: [AstNode, AstNode][] =
      kind === 'in'
        ? (node.in.expressions ?? []).map((item: AstNode) => [node.in.this, item])
        : (COMPARISONS as readonly string[]).includes(kind)
          ? [
              [node[kind].left, node[kind].right],
              [node[kind].right, node[kind].left],
            ]
          : [];
    for (const [other, text] of pairs) {
      if (!isHexText(text)) continue;
      const type = typing()?.typeOf(other);
      if (type?.kind !== 'scalar' || type.name !== 'varbinary') continue;
      const value = String(text.literal.value);
      // An address (42 characters) or hash (66) is shown whole, so the fix can be copied.
      const shown = value.length > 66 ? `${value.slice(0, 66)}…` : value;
      throw new HexTextComparison(
        `Cannot compare varbinary with varchar: ${describe(other)} is varbinary, and '${shown}' is text. Write the value without quotes, as a 0x literal (${shown}), or convert text with from_hex('${shown}').`,
        other?.column?.span?.start,
      );
    }
    return node;
  });
}

function describe(node: AstNode): string {
  const column = node?.column;
  if (!column) return 'the other side';
  const table = column.table?.name;
  return table ? `${table}.${column.name.name}` : String(column.name.name);
}
