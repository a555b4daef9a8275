/**
 * What the translator needs from the user's text before any parser sees it: Dune's `0x…` varbinary
 * literals rewritten to Trino's `X'…'` (polyglot's Trino parser does not read `0x…`), typed
 * literals polyglot does not read (`uint256 '0'`, `double '1.5'`) as the casts they stand for, and
 * a way back from offsets in the rewritten text to line/column in what the user wrote.
 */

export interface PreparedSource {
  /** The user's SQL with each `0x…` literal written as `X'…'`. */
  text: string;
  /** Character offset in `text` → character offset in the user's SQL. */
  toUserOffset(offset: number): number;
  /** The user's SQL without comments (to tell "no statement" from a syntax error). */
  withoutComments: string;
  /** Where a `/*` comment that never closes starts (polyglot would silently drop the rest). */
  unterminatedComment?: number;
}

interface Shift {
  /** First character offset in the rewritten text after a rewritten literal. */
  from: number;
  /** How many characters the rewritten text is ahead of the user's from there on. */
  delta: number;
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_$]/;
/** What a query (and so Trino's `TABLE t`) may follow: the start, `(`, a WITH's last `)`, a set operation. */
const QUERY_STARTS = new Set(['', '(', ')', 'union', 'intersect', 'except', 'all', 'distinct']);
const HEX_DIGIT = /[0-9A-Fa-f]/;

/**
 * Types whose literal (`uint256 '1'`, Trino's type constructor: a type name then a string) the
 * Trino parser reads but polyglot's does not. `uint256 '0'` is everywhere in Dune's spellbook.
 * `decimal` is here too: polyglot reads it as decimal(18, 3), where Trino takes the precision and
 * scale from the literal's digits (`decimal '1.2345'` is decimal(5, 4), not 1.235).
 */
const TYPED_LITERAL_TYPES = new Set([
  'uint256',
  'int256',
  'double',
  'real',
  'bigint',
  'integer',
  'int',
  'smallint',
  'tinyint',
  'boolean',
  'varchar',
  'char',
  'varbinary',
  'decimal',
]);

/** `CAST('…' AS type)` for a typed literal, or undefined when `literal` is not one to rewrite. */
function typedLiteralCast(type: string, literal: string): string | undefined {
  if (type !== 'decimal') return `CAST(${literal} AS ${type})`;
  // Trino: precision = the digits without leading zeros (at least one), scale = digits after the point.
  const match = /^'\s*[+-]?(\d*)(?:\.(\d*))?\s*'$/.exec(literal);
  if (!match || `${match[1]}${match[2] ?? ''}` === '') return undefined;
  const scale = (match[2] ?? '').length;
  const precision = Math.max(1, match[1]!.replace(/^0+/, '').length + scale);
  return `CAST(${literal} AS decimal(${precision}, ${scale}))`;
}

/** Rewrites `0x…` literals outside strings, quoted identifiers and comments. */
export function prepareSource(sql: string): PreparedSource {
  const shifts: Shift[] = [];
  let out = '';
  let withoutComments = '';
  let unterminatedComment: number | undefined;
  let i = 0;
  /** Writes `replacement` for the user's text from `i` up to `end`, remembering the shift. */
  const replace = (end: number, replacement: string) => {
    out += replacement;
    withoutComments += replacement;
    shifts.push({ from: out.length, delta: (shifts.at(-1)?.delta ?? 0) + replacement.length - (end - i) });
    i = end;
  };
  /** The last word (lower case) or symbol written, past whitespace and comments. */
  let previous = '';
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    let end = i + 1;
    if (c === "'" || c === '"') {
      end = closingQuote(sql, i, c);
      previous = c === '"' ? 'name' : "'";
    } else if (c === '/' && next === '*' && sql[i + 2] === '+') {
      // `/*+ … */` is a comment in Trino; polyglot reads it as an optimizer hint, which it then
      // refuses where Trino allows a comment. The same comment without the `+`.
      const close = sql.indexOf('*/', i + 3);
      if (close >= 0) {
        const comment = `/* ${sql.slice(i + 3, close + 2)}`;
        out += comment;
        withoutComments += ' ';
        i = close + 2;
        continue;
      }
      unterminatedComment ??= i;
      end = sql.length;
      withoutComments += ' ';
    } else if (c === '-' && next === '-') {
      const newline = sql.indexOf('\n', i);
      end = newline < 0 ? sql.length : newline;
      withoutComments += ' ';
    } else if (c === '/' && next === '*') {
      const close = sql.indexOf('*/', i + 2);
      if (close < 0) unterminatedComment ??= i;
      end = close < 0 ? sql.length : close + 2;
      withoutComments += ' ';
    } else if (c === '0' && (next === 'x' || next === 'X') && !IDENTIFIER_CHAR.test(sql[i - 1] ?? ' ')) {
      let j = i + 2;
      while (j < sql.length && HEX_DIGIT.test(sql[j]!)) j++;
      if (j > i + 2 && !IDENTIFIER_CHAR.test(sql[j] ?? ' ')) {
        let digits = sql.slice(i + 2, j);
        if (digits.length % 2 === 1) digits = `0${digits}`;
        previous = "'";
        replace(j, `X'${digits}'`);
        continue;
      }
      end = j;
      previous = '0';
    } else if (IDENTIFIER_CHAR.test(c)) {
      while (end < sql.length && IDENTIFIER_CHAR.test(sql[end]!)) end++;
      const type = sql.slice(i, end).toLowerCase();
      let quote = end;
      while (quote < sql.length && /\s/.test(sql[quote]!)) quote++;
      if (TYPED_LITERAL_TYPES.has(type) && sql[quote] === "'" && sql[i - 1] !== '.') {
        const close = closingQuote(sql, quote, "'");
        const cast = typedLiteralCast(type, sql.slice(quote, close));
        if (cast) {
          previous = "'";
          replace(close, cast);
          continue;
        }
      }
      // Trino's `TABLE t` (a query of every column of t: `x in (TABLE t)`, `TABLE a UNION TABLE b`),
      // which polyglot does not parse, is the query it stands for.
      if (type === 'table' && QUERY_STARTS.has(previous) && /[A-Za-z_"]/.test(sql[quote] ?? '')) {
        previous = 'from';
        replace(end, 'SELECT * FROM');
        continue;
      }
      previous = type;
    } else if (!/\s/.test(c)) {
      previous = c;
    }
    if (!(c === '-' && next === '-') && !(c === '/' && next === '*')) withoutComments += sql.slice(i, end);
    out += sql.slice(i, end);
    i = end;
  }
  return {
    text: out,
    withoutComments,
    unterminatedComment,
    toUserOffset(offset) {
      let delta = 0;
      for (const shift of shifts) {
        if (shift.from > offset) break;
        delta = shift.delta;
      }
      return Math.max(0, offset - delta);
    },
  };
}

/** Just past the quote closing the string or quoted name opening at `start` (doubled quotes escape). */
export function closingQuote(sql: string, start: number, quote: string): number {
  let j = start + 1;
  while (j < sql.length) {
    if (sql[j] === quote) {
      if (sql[j + 1] === quote) {
        j += 2;
        continue;
      }
      return j + 1;
    }
    j++;
  }
  return sql.length;
}

/** 1-based line and column of a character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const prefix = text.slice(0, Math.max(0, offset));
  const lines = prefix.split(/\r\n|\r|\n/);
  return { line: lines.length, column: [...(lines.at(-1) ?? '')].length + 1 };
}

/** Character offset of a UTF-8 byte offset into `text`. */
export function byteToCharOffset(text: string, byteOffset: number): number {
  return Buffer.from(text, 'utf8').subarray(0, Math.max(0, byteOffset)).toString('utf8').length;
}

/** Polyglot's spans count Unicode code points; JavaScript strings count UTF-16 units. */
export function userOffset(source: PreparedSource, codePoints: number): number {
  const units = [...source.text.slice(0, codePoints * 2)].slice(0, codePoints).join('').length;
  return source.toUserOffset(units);
}
