import { rewrite } from './ast';
import type { AstNode } from './polyglot';

/** A name SQL writes without quotes; any other (`"my col"`, `"a-b"`) needs them. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The column aliases (`as v("my col")`) whose names need quotes. */
function aliasesNeedingQuotes(statement: AstNode): AstNode[] {
  const found: AstNode[] = [];
  rewrite(statement, (node, type) => {
    const aliases = node[type]?.column_aliases;
    if (!Array.isArray(aliases)) return undefined;
    for (const alias of aliases) {
      if (alias && typeof alias.name === 'string' && !PLAIN_NAME.test(alias.name)) found.push(alias);
    }
    return undefined;
  });
  return found;
}

/**
 * Marks quoted the column aliases that need quotes: polyglot's parser reads `as v("my col")` (a
 * table alias's column list, after a subquery, VALUES, UNNEST or a table) as unquoted, and
 * generating it writes `v(my col)`, a syntax error. Plain names stay as they are (the generator
 * quotes reserved words such as `"from"` itself). Nothing to regenerate for: it only matters to
 * SQL generated anyway.
 */
export function quoteColumnAliases(statement: AstNode): void {
  for (const alias of aliasesNeedingQuotes(statement)) alias.quoted = true;
}

/**
 * DuckDB's SQL comes from polyglot's transpiler, which parses the generated Trino SQL again and
 * loses those quotes once more: such aliases go through it as placeholder names, put back quoted
 * by `restoreColumnAliases`. Returns the placeholders (none: nothing to restore).
 */
export function columnAliasPlaceholders(statement: AstNode): Map<string, string> {
  const placeholders = new Map<string, string>();
  for (const alias of aliasesNeedingQuotes(statement)) {
    const placeholder = `dunesql_quoted_column_alias_${placeholders.size}`;
    placeholders.set(placeholder, `"${String(alias.name).replaceAll('"', '""')}"`);
    alias.name = placeholder;
    alias.quoted = false;
  }
  return placeholders;
}

export function restoreColumnAliases(sql: string, placeholders: ReadonlyMap<string, string>): string {
  if (placeholders.size === 0) return sql;
  return sql.replace(
    /\bdunesql_quoted_column_alias_\d+\b/g,
    (placeholder) => placeholders.get(placeholder) ?? placeholder,
  );
}
