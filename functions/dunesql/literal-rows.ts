/**
 * Long lists of plain literals: a pasted `VALUES` list of addresses, labels or ids, often thousands
 * of rows, is the most common way to bring one's own data into a Dune query, and so is a long
 * `IN (0x…, 0x…, …)`. Every step of a translation costs time per syntax node (polyglot's parse,
 * tokenizer and generator, and each of our passes), about 0.9 ms a row locally and 0.45 ms on
 * Athena, so a list of 2,000 rows took seconds before its query even started.
 *
 * The rows need no translation: each literal becomes the same literal in the target's spelling.
 * So a translation sees such a list with only the rows that type it (the first row, and for each
 * column the first row of every other kind of literal and the widest decimals), and the
 * translated SQL gets the whole list back where those rows came out. If the translated rows are
 * not found exactly once in the output, spelled as this module spells them, the caller translates
 * the whole text instead: slower, never different.
 */
import { closingQuote, type PreparedSource } from './source-text';

/** Lists shorter than this are translated as they are (their time is small anyway). */
export const COMPACTED_MIN_ROWS = 32;

/** What a literal's type is, as far as a VALUES column's type depends on it. */
type LiteralKind = 'string' | 'binary' | 'integer' | 'bigint' | 'decimal' | 'double' | 'boolean' | 'null';

interface Literal {
  /** As written in the prepared text (`X'…'` for `0x…`). */
  text: string;
  kind: LiteralKind;
}

interface RowsList {
  /** `VALUES` rows, or the items of an `IN (…)` list (one-column rows without parentheses). */
  clause: 'values' | 'in';
  /** The rows' span in the prepared text: from the first row to the end of the last. */
  start: number;
  end: number;
  /** `(a, b), (c, d)` rather than `VALUES a, b` (one-column rows without parentheses). */
  parenthesized: boolean;
  rows: Literal[][];
  /** The rows the translation sees, in list order. */
  kept: number[];
}

export interface CompactedSource {
  /** The prepared source with each long list cut to its kept rows, offsets still leading to the user's SQL. */
  source: PreparedSource;
  /**
   * The translated SQL with every list whole again, or undefined when a list's kept rows are not
   * found in it exactly once as the target spells them (translate the uncut text then).
   */
  restore(output: string, target: 'duckdb' | 'athena'): string | undefined;
}

/** Cuts each long list of literal rows in `source` to the rows that type it; undefined when there is none. */
export function compactLiteralRows(
  source: PreparedSource,
  minRows = COMPACTED_MIN_ROWS,
): CompactedSource | undefined {
  const lists = literalRowLists(source.text).filter(
    (list) => list.rows.length >= minRows && list.kept.length * 2 <= list.rows.length,
  );
  if (lists.length === 0) return undefined;
  const { text } = source;
  let compacted = '';
  let from = 0;
  /** Compacted offset where each cut ends, and how many characters were cut up to there. */
  const cuts: { at: number; removed: number }[] = [];
  let removed = 0;
  for (const list of lists) {
    compacted += text.slice(from, list.start);
    const kept = rowsText(
      list.kept.map((i) => list.rows[i]!),
      list.parenthesized,
      (literal) => literal.text,
    );
    compacted += kept;
    removed += list.end - list.start - kept.length;
    cuts.push({ at: compacted.length, removed });
    from = list.end;
  }
  compacted += text.slice(from);
  const compactedSource: PreparedSource = {
    ...source,
    text: compacted,
    toUserOffset(offset) {
      let shift = 0;
      for (const cut of cuts) {
        if (cut.at > offset) break;
        shift = cut.removed;
      }
      return source.toUserOffset(offset + shift);
    },
  };
  return {
    source: compactedSource,
    restore: (output, target) => restoreRows(output, compacted, text, lists, target),
  };
}

/** How polyglot's generators write a literal for each engine (checked in the tests). */
const SPELLINGS: Record<'duckdb' | 'athena', (literal: Literal) => string> = {
  // DuckDB: varbinary through UNHEX, keywords in capitals, a leading 0 before a bare point.
  duckdb: (literal) =>
    literal.kind === 'binary' ? `UNHEX(${literal.text.slice(1)})` : generatedSpelling(literal),
  // Trino (Athena): a lower-case x before a varbinary's digits; the rest as for DuckDB.
  athena: (literal) => (literal.kind === 'binary' ? `x${literal.text.slice(1)}` : generatedSpelling(literal)),
};

function generatedSpelling(literal: Literal): string {
  if (literal.kind === 'null' || literal.kind === 'boolean') return literal.text.toUpperCase();
  if (literal.kind === 'decimal' || literal.kind === 'double') return literal.text.replace(/^(-?)\./, '$10.');
  return literal.text;
}

/**
 * Puts each list's rows back where its kept rows are in the generated SQL: right after `VALUES `
 * (or `IN (`) and not followed by more rows. Each list's kept rows must be found as often as the
 * list occurs (the same list pasted twice comes back twice) and no other list's kept rows may read
 * the same. A statement the translation left as it was (Athena) is the prepared text itself.
 */
function restoreRows(
  output: string,
  compacted: string,
  prepared: string,
  lists: readonly RowsList[],
  target: 'duckdb' | 'athena',
): string | undefined {
  if (output === compacted) return prepared;
  const spell = SPELLINGS[target];
  // The same list written more than once is one list found that many times.
  const copies = new Map<string, { list: RowsList; count: number }>();
  for (const list of lists) {
    const key = `${list.clause} ${list.parenthesized} ${rowsText(list.rows, list.parenthesized, (l) => l.text)}`;
    const known = copies.get(key);
    if (known) known.count++;
    else copies.set(key, { list, count: 1 });
  }
  const replacements: { at: number; length: number; rows: string }[] = [];
  const keptTexts = new Set<string>();
  for (const { list, count } of copies.values()) {
    const kept = list.kept.map((i) => list.rows[i]!);
    // A generator may write one-column rows in parentheses.
    const forms = list.parenthesized ? [true] : list.clause === 'in' ? [false] : [false, true];
    const found = forms
      .map((parenthesized) => {
        const written = rowsText(kept, parenthesized, spell);
        return { parenthesized, written, at: rowsPositions(output, written, list.clause) };
      })
      .find((form) => form.at.length > 0);
    if (!found || found.at.length !== count || keptTexts.has(found.written)) return undefined;
    keptTexts.add(found.written);
    const rows = rowsText(list.rows, found.parenthesized, spell);
    for (const at of found.at) replacements.push({ at, length: found.written.length, rows });
  }
  let restored = output;
  for (const { at, length, rows } of replacements.sort((a, b) => b.at - a.at)) {
    restored = restored.slice(0, at) + rows + restored.slice(at + length);
  }
  return restored;
}

/** Where `rows` follow `VALUES ` (or `IN (`) in `sql` and end its list. */
function rowsPositions(sql: string, rows: string, clause: RowsList['clause']): number[] {
  const prefix = clause === 'values' ? 'VALUES ' : 'IN (';
  const positions: number[] = [];
  for (let at = sql.indexOf(prefix + rows); at >= 0; at = sql.indexOf(prefix + rows, at + 1)) {
    const after = sql.slice(at + prefix.length + rows.length).trimStart();
    // More rows follow: another list.
    if (clause === 'values' ? after.startsWith(',') : !after.startsWith(')')) continue;
    positions.push(at + prefix.length);
  }
  return positions;
}

function rowsText(
  rows: readonly Literal[][],
  parenthesized: boolean,
  spell: (literal: Literal) => string,
): string {
  return rows
    .map((row) => {
      const values = row.map(spell).join(', ');
      return parenthesized ? `(${values})` : values;
    })
    .join(', ');
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_$]/;

/**
 * Every `VALUES` list of literal rows and `IN (…)` list of literals in the prepared text (strings,
 * quoted names and comments skipped).
 */
function literalRowLists(text: string): RowsList[] {
  const lists: RowsList[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      i = closingQuote(text, i, c);
    } else if (c === '-' && text[i + 1] === '-') {
      i = lineEnd(text, i);
    } else if (c === '/' && text[i + 1] === '*') {
      i = commentEnd(text, i);
    } else if (IDENTIFIER_CHAR.test(c)) {
      let end = i + 1;
      while (end < text.length && IDENTIFIER_CHAR.test(text[end]!)) end++;
      const word = end - i === 6 || end - i === 2 ? text.slice(i, end).toLowerCase() : '';
      const open = word === 'in' ? skipGap(text, end) : end;
      const list =
        text[i - 1] === '.'
          ? undefined
          : word === 'values'
            ? rowsAt(text, end, 'values')
            : word === 'in' && text[open] === '('
              ? rowsAt(text, open + 1, 'in')
              : undefined;
      if (list) {
        lists.push(list);
        i = list.end;
        continue;
      }
      i = end;
    } else {
      i++;
    }
  }
  return lists;
}

/**
 * The literal rows right after a `VALUES` keyword ending at `from` (or the literals right after an
 * `IN (`), if that is what follows.
 */
function rowsAt(text: string, from: number, clause: RowsList['clause']): RowsList | undefined {
  const start = skipGap(text, from);
  const parenthesized = clause === 'values' && text[start] === '(';
  const rows: Literal[][] = [];
  let i = start;
  let end = start;
  for (;;) {
    let row: Literal[] | undefined;
    if (parenthesized) {
      if (text[i] !== '(') break;
      row = [];
      i = skipGap(text, i + 1);
      for (;;) {
        const literal = literalAt(text, i);
        if (!literal) return undefined;
        row.push(literal.literal);
        i = skipGap(text, literal.end);
        if (text[i] === ',') i = skipGap(text, i + 1);
        else break;
      }
      if (text[i] !== ')') return undefined;
      i++;
    } else {
      const literal = literalAt(text, i);
      if (!literal) break;
      row = [literal.literal];
      i = literal.end;
    }
    if (rows.length > 0 && row.length !== rows[0]!.length) return undefined;
    rows.push(row);
    end = i;
    const next = skipGap(text, i);
    if (text[next] !== ',') break;
    i = skipGap(text, next + 1);
  }
  if (rows.length === 0) return undefined;
  // The list must end there: `VALUES 1, 2 + 3` goes on with an expression, not another row.
  const after = text[skipGap(text, end)];
  if (clause === 'in' && after !== ')') return undefined;
  if (after !== undefined && after !== ')' && after !== ';' && !/[A-Za-z_]/.test(after)) return undefined;
  return { clause, start, end, parenthesized, rows, kept: keptRows(rows) };
}

/** The first row, and per column the first row of each other kind and the widest decimals. */
function keptRows(rows: readonly Literal[][]): number[] {
  const kept = new Set<number>([0]);
  const columns = rows[0]!.length;
  for (let column = 0; column < columns; column++) {
    const kinds = new Set<LiteralKind>();
    let widest: { digits: number; row: number } | undefined;
    let finest: { scale: number; row: number } | undefined;
    rows.forEach((row, index) => {
      const literal = row[column]!;
      if (!kinds.has(literal.kind)) {
        kinds.add(literal.kind);
        kept.add(index);
      }
      if (literal.kind !== 'decimal') return;
      const [whole = '', fraction = ''] = literal.text.replace(/^-/, '').split('.');
      const digits = whole.replace(/^0+/, '').length;
      if (!widest || digits > widest.digits) widest = { digits, row: index };
      if (!finest || fraction.length > finest.scale) finest = { scale: fraction.length, row: index };
    });
    if (widest) kept.add(widest.row);
    if (finest) kept.add(finest.row);
  }
  return [...kept].sort((a, b) => a - b);
}

const NUMBER = /-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const INTEGER_MAX = 2_147_483_647n;
const BIGINT_MAX = 9_223_372_036_854_775_807n;

/** A plain literal starting at `i` (a string, `X'…'`, a number, NULL, TRUE, FALSE), if one does. */
function literalAt(text: string, i: number): { literal: Literal; end: number } | undefined {
  const c = text[i];
  if (c === "'" || ((c === 'X' || c === 'x') && text[i + 1] === "'")) {
    const quote = c === "'" ? i : i + 1;
    const end = closingQuote(text, quote, "'");
    if (text[end - 1] !== "'" || end - 1 === quote) return undefined; // unterminated
    return { literal: { text: text.slice(i, end), kind: c === "'" ? 'string' : 'binary' }, end };
  }
  NUMBER.lastIndex = i;
  const number = NUMBER.exec(text);
  if (number) {
    const end = i + number[0].length;
    if (IDENTIFIER_CHAR.test(text[end] ?? ' ') || text[end] === '.') return undefined;
    return { literal: { text: number[0], kind: numberKind(number[0]) }, end };
  }
  let end = i;
  while (end < text.length && IDENTIFIER_CHAR.test(text[end]!)) end++;
  const word = text.slice(i, end).toLowerCase();
  if (word === 'null') return { literal: { text: text.slice(i, end), kind: 'null' }, end };
  if (word === 'true' || word === 'false')
    return { literal: { text: text.slice(i, end), kind: 'boolean' }, end };
  return undefined;
}

/** Trino's type of a numeric literal: an integer that fits, bigint, decimal (also past bigint), double with an exponent. */
function numberKind(text: string): LiteralKind {
  if (/[eE]/.test(text)) return 'double';
  if (text.includes('.')) return 'decimal';
  const magnitude = BigInt(text.replace(/^-/, ''));
  const negative = text.startsWith('-');
  if (magnitude <= INTEGER_MAX + (negative ? 1n : 0n)) return 'integer';
  if (magnitude <= BIGINT_MAX + (negative ? 1n : 0n)) return 'bigint';
  return 'decimal';
}

/** Past whitespace and comments. */
function skipGap(text: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < text.length && /\s/.test(text[i]!)) i++;
    if (text[i] === '-' && text[i + 1] === '-') i = lineEnd(text, i);
    else if (text[i] === '/' && text[i + 1] === '*') i = commentEnd(text, i);
    else return i;
  }
}

function lineEnd(text: string, from: number): number {
  const newline = text.indexOf('\n', from);
  return newline < 0 ? text.length : newline;
}

function commentEnd(text: string, from: number): number {
  const close = text.indexOf('*/', from + 2);
  return close < 0 ? text.length : close + 2;
}
