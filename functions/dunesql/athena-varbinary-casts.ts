/**
 * DuneSQL casts varbinary to varchar as `0x` and lowercase hex (Spellbook's `cast(tx_hash as
 * varchar)`, `cast("from" as varchar)`); Athena's Trino has no such cast and refuses the query.
 * Where the operand is known for sure to be varbinary (a stored column, a column a subquery or CTE
 * computes as one, a call that returns one, a hex literal), the cast is rewritten into
 * `'0x' || lower(to_hex(x))`, which is the same text. An operand of unknown type is left alone:
 * Athena then refuses it as before, and the README gives the workaround.
 */
import { findAll, instantiate, nodeType } from './ast';
import { tablesNamed } from './nested-outputs';
import { type Polyglot, type TableSchema, Typing } from './nested-typing';
import type { AstNode } from './polyglot';

const HEX_TEXT = `'0x' || lower(to_hex(__1))`;
const CASTS = ['cast', 'try_cast'] as const;

const isVarcharCast = (node: AstNode, kind: string) =>
  (CASTS as readonly string[]).includes(kind) && node[kind]?.to?.data_type === 'var_char';

/** Rewrites, in place, the statement's casts of varbinary to varchar; true if it changed any. */
export function varbinaryCastsAsHex(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
): boolean {
  if (!CASTS.some((kind) => findAll(statement, kind).some((node) => isVarcharCast(node, kind)))) return false;
  let changed = false;
  walkTyped(polyglot, statement, tables, (node, kind, typing) => {
    if (!isVarcharCast(node, kind)) return node;
    const operand = node[kind].this;
    const type = typing()?.typeOf(operand);
    if (!(type?.kind === 'scalar' && type.name === 'varbinary')) return node;
    changed = true;
    return instantiate(polyglot, HEX_TEXT, [operand]);
  });
  return changed;
}

/**
 * Walks the statement bottom-up, offering each node to `visit` (which returns it or its
 * replacement) with the typing of the innermost SELECT around it, made only when asked for and
 * given only the tables the statement names and the CTEs visible there.
 */
export function walkTyped(
  polyglot: Polyglot,
  statement: AstNode,
  tables: readonly TableSchema[],
  visit: (node: AstNode, kind: string, typing: () => Typing | undefined) => AstNode,
): void {
  const named = tablesNamed(statement, tables);
  // The typings of the subqueries and CTEs the SELECTs read, shared by all of them.
  const derived = new Map<AstNode, Typing>();
  const walk = (
    node: AstNode,
    scope: () => Typing | undefined,
    ctes: ReadonlyMap<string, AstNode>,
  ): AstNode => {
    if (Array.isArray(node)) return node.map((child) => walk(child, scope, ctes));
    if (!node || typeof node !== 'object') return node;
    const kind = nodeType(node);
    if (kind === 'select') {
      const visible = new Map(ctes);
      for (const cte of node.select?.with?.ctes ?? [])
        visible.set(String(cte.alias?.name ?? '').toLowerCase(), cte);
      let typing: Typing | undefined;
      const own = () => (typing ??= new Typing(polyglot, node, named, ctes, 0, derived));
      for (const key of Object.keys(node.select)) node.select[key] = walk(node.select[key], own, visible);
      return node;
    }
    for (const key of Object.keys(node)) {
      if (key !== 'span') node[key] = walk(node[key], scope, ctes);
    }
    return kind ? visit(node, kind, scope) : node;
  };
  walk(statement, () => undefined, new Map());
}
