/**
 * Parsers for the results endpoint's `filters`, `sort_by` and `columns` parameters (the Dune
 * grammar). The result is a small tree that the result store compiles to SQL with bound
 * parameters; nothing here ever becomes SQL text. The grammar is deliberately tiny: a column
 * compared with a literal, combined with AND/OR and parentheses. Anything else (NOT, functions,
 * arithmetic, subqueries, column-to-column comparisons) is refused with a message that names the
 * problem and its 1-based character position.
 */

import type { FilterExpression, FilterValue, SortKey } from './engine';
import { BadRequestError } from './errors';

export const MAX_FILTER_LENGTH = 4000;
export const MAX_FILTER_DEPTH = 32;

type CompareOperator = '=' | '!=' | '<>' | '<' | '<=' | '>' | '>=';

type Token =
  | { kind: 'word'; text: string; position: number }
  | { kind: 'quoted_identifier'; text: string; position: number }
  | { kind: 'string'; text: string; position: number }
  | { kind: 'number'; text: string; value: number; position: number }
  | { kind: 'operator'; text: CompareOperator; position: number }
  | { kind: 'punctuation'; text: '(' | ')' | ','; position: number }
  | { kind: 'other'; text: string; position: number }
  | { kind: 'end'; text: ''; position: number };

const EXAMPLE = "e.g. block_time > '2024-03-05'";
const FUNCTIONS_NOT_ALLOWED = `functions are not allowed — compare a column with a literal, ${EXAMPLE}`;
const EXPRESSIONS_NOT_ALLOWED = `expressions are not allowed — compare a column with a literal, ${EXAMPLE}`;

/** Words that must be double-quoted to be used as column names. */
const RESERVED = new Set([
  'and',
  'or',
  'not',
  'in',
  'is',
  'null',
  'like',
  'ilike',
  'select',
  'from',
  'where',
  'between',
  'exists',
  'true',
  'false',
  'case',
  'when',
  'then',
  'else',
  'end',
  'interval',
  'cast',
]);

/** A column as a filter names it: bare when it can be, else double-quoted (`"amount (usd)"`). */
export function filterColumnReference(name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_$]*$/.test(name) && !RESERVED.has(name.toLowerCase())) return name;
  return `"${name.replaceAll('"', '""')}"`;
}

function fail(parameter: string, message: string): never {
  throw new BadRequestError(`${parameter}: ${message}`);
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the expression';
    case 'string':
      return `string '${truncate(token.text)}'`;
    case 'quoted_identifier':
      return `column "${truncate(token.text)}"`;
    default:
      return `"${truncate(token.text)}"`;
  }
}

function truncate(text: string): string {
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_$]/;
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;

function tokenize(parameter: string, input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const char = input[i]!;
    const position = i + 1;
    if (/\s/.test(char)) {
      i++;
      continue;
    }
    if (char === "'") {
      const { text, next } = readQuoted(input, i, "'");
      if (next < 0) fail(parameter, `unterminated string starting at position ${position}; close it with '`);
      tokens.push({ kind: 'string', text, position });
      i = next;
      continue;
    }
    if (char === '"') {
      const { text, next } = readQuoted(input, i, '"');
      if (next < 0) {
        fail(parameter, `unterminated quoted column name starting at position ${position}; close it with "`);
      }
      if (text.length === 0) fail(parameter, `empty column name "" at position ${position}`);
      tokens.push({ kind: 'quoted_identifier', text, position });
      i = next;
      continue;
    }
    const number = NUMBER.exec(input.slice(i));
    if (number && (char !== '-' || startsOperand(tokens))) {
      const text = number[0];
      const after = input[i + text.length];
      if (after !== undefined && IDENTIFIER_PART.test(after)) {
        if (/^-?0$/.test(text) && (after === 'x' || after === 'X')) {
          fail(
            parameter,
            `unquoted hex literal at position ${position}; quote it as a string, e.g. tx_hash = '0xabc...'`,
          );
        }
        fail(parameter, `malformed number "${text}${after}" at position ${position}`);
      }
      const value = Number(text);
      if (!Number.isFinite(value))
        fail(parameter, `number "${truncate(text)}" at position ${position} is out of range`);
      tokens.push({ kind: 'number', text, value, position });
      i += text.length;
      continue;
    }
    if (IDENTIFIER_START.test(char)) {
      let end = i + 1;
      while (end < input.length && IDENTIFIER_PART.test(input[end]!)) end++;
      tokens.push({ kind: 'word', text: input.slice(i, end), position });
      i = end;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === '<=' || two === '>=' || two === '<>' || two === '!=') {
      tokens.push({ kind: 'operator', text: two, position });
      i += 2;
      continue;
    }
    if (char === '=' || char === '<' || char === '>') {
      if (input[i + 1] === '=')
        fail(parameter, `unexpected "${char}=" at position ${position}; use = to compare`);
      tokens.push({ kind: 'operator', text: char, position });
      i++;
      continue;
    }
    if (char === '(' || char === ')' || char === ',') {
      tokens.push({ kind: 'punctuation', text: char, position });
      i++;
      continue;
    }
    tokens.push({ kind: 'other', text: char, position });
    i++;
  }
  tokens.push({ kind: 'end', text: '', position: input.length + 1 });
  return tokens;
}

/** A leading minus is a sign only where a literal may start (after an operator, "(", "," or IN). */
function startsOperand(tokens: Token[]): boolean {
  const previous = tokens[tokens.length - 1];
  if (!previous) return false;
  return (
    previous.kind === 'operator' ||
    (previous.kind === 'punctuation' && (previous.text === '(' || previous.text === ','))
  );
}

/** Reads a quoted run starting at `start` (the opening quote); doubled quotes escape. */
function readQuoted(input: string, start: number, quote: string): { text: string; next: number } {
  let text = '';
  let i = start + 1;
  while (i < input.length) {
    const char = input[i]!;
    if (char === quote) {
      if (input[i + 1] === quote) {
        text += quote;
        i += 2;
        continue;
      }
      return { text, next: i + 1 };
    }
    text += char;
    i++;
  }
  return { text, next: -1 };
}

function isKeyword(token: Token, keyword: string): boolean {
  return token.kind === 'word' && token.text.toLowerCase() === keyword;
}

function checkLength(parameter: string, text: string): void {
  if (text.length > MAX_FILTER_LENGTH) {
    fail(parameter, `too long (${text.length} characters; at most ${MAX_FILTER_LENGTH})`);
  }
}

class FilterParser {
  private index = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly parameter = 'filters',
  ) {}

  parse(): FilterExpression {
    const expression = this.parseOr();
    const next = this.peek();
    if (next.kind !== 'end') {
      if (next.kind === 'punctuation' && next.text === ')') {
        fail(this.parameter, `unexpected ")" at position ${next.position}; it closes no "("`);
      }
      this.unexpected(next, 'AND, OR or the end of the expression');
    }
    return expression;
  }

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)]!;
  }

  private advance(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private parseOr(): FilterExpression {
    let left = this.parseAnd();
    while (isKeyword(this.peek(), 'or')) {
      this.advance();
      left = { kind: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): FilterExpression {
    let left = this.parsePrimary();
    while (isKeyword(this.peek(), 'and')) {
      this.advance();
      left = { kind: 'and', left, right: this.parsePrimary() };
    }
    return left;
  }

  private parsePrimary(): FilterExpression {
    const token = this.peek();
    if (token.kind === 'punctuation' && token.text === '(') {
      this.advance();
      this.depth++;
      if (this.depth > MAX_FILTER_DEPTH) {
        fail(
          this.parameter,
          `nesting deeper than ${MAX_FILTER_DEPTH} parentheses at position ${token.position}`,
        );
      }
      if (isKeyword(this.peek(), 'select')) {
        fail(this.parameter, `subqueries are not allowed (SELECT at position ${this.peek().position})`);
      }
      const inner = this.parseOr();
      const close = this.advance();
      if (!(close.kind === 'punctuation' && close.text === ')')) {
        if (close.kind === 'end') {
          fail(this.parameter, `missing ")" for the "(" at position ${token.position}`);
        }
        this.unexpected(close, 'AND, OR or ")"');
      }
      this.depth--;
      return inner;
    }
    return this.parsePredicate();
  }

  private parsePredicate(): FilterExpression {
    const column = this.parseColumn('a column name');
    const token = this.advance();
    if (token.kind === 'operator') {
      return { kind: 'compare', column, operator: token.text, value: this.parseLiteral() };
    }
    if (isKeyword(token, 'like')) {
      const pattern = this.advance();
      if (pattern.kind !== 'string') {
        this.unexpectedLiteral(pattern, "a quoted pattern after LIKE, e.g. project LIKE 'uniswap%'");
      }
      return { kind: 'like', column, pattern: pattern.text };
    }
    if (isKeyword(token, 'in')) return { kind: 'in', column, values: this.parseInList(token) };
    if (isKeyword(token, 'is')) {
      let negated = false;
      if (isKeyword(this.peek(), 'not')) {
        this.advance();
        negated = true;
      }
      const nullToken = this.advance();
      if (!isKeyword(nullToken, 'null'))
        this.unexpected(nullToken, negated ? 'NULL after IS NOT' : 'NULL or NOT NULL after IS');
      return { kind: 'null', column, negated };
    }
    if (isKeyword(token, 'not')) {
      const next = this.peek();
      const what = isKeyword(next, 'in') ? 'NOT IN' : isKeyword(next, 'like') ? 'NOT LIKE' : 'NOT';
      fail(
        this.parameter,
        `${what} is not allowed (position ${token.position}); NOT, NOT IN and NOT LIKE are not supported — use != or <> for a single value, or IS NOT NULL`,
      );
    }
    if (token.kind === 'punctuation' && token.text === '(') {
      fail(this.parameter, `unexpected "(" at position ${token.position}; ${FUNCTIONS_NOT_ALLOWED}`);
    }
    if (isKeyword(token, 'ilike') || isKeyword(token, 'between') || isKeyword(token, 'similar')) {
      fail(
        this.parameter,
        `${token.text.toUpperCase()} is not supported (position ${token.position}); use =, !=, <>, <, <=, >, >=, LIKE, IN or IS [NOT] NULL`,
      );
    }
    if (token.kind === 'other' && '+-*/%|'.includes(token.text)) {
      fail(
        this.parameter,
        `unexpected "${token.text}" at position ${token.position}; ${EXPRESSIONS_NOT_ALLOWED}`,
      );
    }
    if (token.kind === 'other' && token.text === '.') {
      fail(
        this.parameter,
        `unexpected "." at position ${token.position}; column names are not qualified — double-quote names with special characters, e.g. "weird.col" = 1`,
      );
    }
    return this.unexpected(token, 'an operator (=, !=, <>, <, <=, >, >=), LIKE, IN or IS [NOT] NULL');
  }

  private parseInList(inToken: Token): FilterValue[] {
    const open = this.advance();
    if (!(open.kind === 'punctuation' && open.text === '(')) {
      this.unexpected(
        open,
        `"(" after IN at position ${inToken.position}, e.g. project IN ('uniswap', 'curve')`,
      );
    }
    if (isKeyword(this.peek(), 'select')) {
      fail(this.parameter, `subqueries are not allowed (SELECT at position ${this.peek().position})`);
    }
    const values: FilterValue[] = [this.parseLiteral()];
    for (;;) {
      const next = this.advance();
      if (next.kind === 'punctuation' && next.text === ')') return values;
      if (next.kind === 'punctuation' && next.text === ',') {
        values.push(this.parseLiteral());
        continue;
      }
      if (next.kind === 'end')
        fail(this.parameter, `missing ")" for the IN list at position ${open.position}`);
      this.unexpected(next, '"," or ")" in the IN list');
    }
  }

  private parseColumn(expected: string): string {
    const token = this.advance();
    if (token.kind === 'quoted_identifier') return token.text;
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase();
      if (lower === 'not') {
        fail(
          this.parameter,
          `NOT is not allowed (position ${token.position}); NOT, NOT IN and NOT LIKE are not supported — use != or <> for a single value, or IS NOT NULL`,
        );
      }
      if (lower === 'select') {
        fail(this.parameter, `subqueries are not allowed (SELECT at position ${token.position})`);
      }
      if (lower === 'exists') {
        fail(
          this.parameter,
          `EXISTS is not allowed (position ${token.position}); subqueries are not supported`,
        );
      }
      if (RESERVED.has(lower)) {
        fail(
          this.parameter,
          `expected ${expected} at position ${token.position}, found keyword ${token.text.toUpperCase()}; double-quote a column with that name, e.g. "${token.text}"`,
        );
      }
      const next = this.peek();
      if (next.kind === 'punctuation' && next.text === '(') {
        fail(this.parameter, `unexpected "(" at position ${next.position}; ${FUNCTIONS_NOT_ALLOWED}`);
      }
      return token.text;
    }
    if (token.kind === 'string' || token.kind === 'number') {
      fail(
        this.parameter,
        `expected ${expected} at position ${token.position}, found ${describe(token)}; put the column first, ${EXAMPLE}`,
      );
    }
    return this.unexpected(token, expected);
  }

  private parseLiteral(): FilterValue {
    const token = this.advance();
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') {
      const next = this.peek();
      if (next.kind === 'other' && '+-*/%|'.includes(next.text)) {
        fail(
          this.parameter,
          `unexpected "${next.text}" at position ${next.position}; ${EXPRESSIONS_NOT_ALLOWED}`,
        );
      }
      if (next.kind === 'number' && next.text.startsWith('-')) {
        fail(this.parameter, `unexpected "-" at position ${next.position}; ${EXPRESSIONS_NOT_ALLOWED}`);
      }
      return token.value;
    }
    return this.unexpectedLiteral(token, "a literal: a 'quoted string' or a number");
  }

  private unexpectedLiteral(token: Token, expected: string): never {
    if (token.kind === 'word') {
      const lower = token.text.toLowerCase();
      const next = this.peek();
      if (next.kind === 'punctuation' && next.text === '(') {
        fail(this.parameter, `unexpected "(" at position ${next.position}; ${FUNCTIONS_NOT_ALLOWED}`);
      }
      if (lower === 'null') {
        fail(
          this.parameter,
          `NULL is not a comparable literal (position ${token.position}); use IS NULL or IS NOT NULL`,
        );
      }
      if (lower === 'true' || lower === 'false') {
        fail(
          this.parameter,
          `literals are strings or numbers only (position ${token.position}); write booleans as strings, e.g. success = '${lower}'`,
        );
      }
      if (lower === 'select') {
        fail(this.parameter, `subqueries are not allowed (SELECT at position ${token.position})`);
      }
      if (lower === 'interval' || lower === 'timestamp' || lower === 'date' || lower === 'cast') {
        fail(
          this.parameter,
          `${token.text.toUpperCase()} at position ${token.position} is not allowed; ${EXPRESSIONS_NOT_ALLOWED}`,
        );
      }
      fail(
        this.parameter,
        `expected ${expected} at position ${token.position}, found ${describe(token)}; comparing two columns is not allowed — quote strings, e.g. project = 'uniswap'`,
      );
    }
    if (token.kind === 'quoted_identifier') {
      fail(
        this.parameter,
        `expected ${expected} at position ${token.position}, found ${describe(token)}; string literals use single quotes, e.g. project = 'uniswap'`,
      );
    }
    if (token.kind === 'punctuation' && token.text === '(') {
      if (isKeyword(this.peek(), 'select')) {
        fail(this.parameter, `subqueries are not allowed (SELECT at position ${this.peek().position})`);
      }
      fail(this.parameter, `unexpected "(" at position ${token.position}; ${EXPRESSIONS_NOT_ALLOWED}`);
    }
    if (token.kind === 'other' && '+-*/%|'.includes(token.text)) {
      fail(
        this.parameter,
        `unexpected "${token.text}" at position ${token.position}; ${EXPRESSIONS_NOT_ALLOWED}`,
      );
    }
    return this.unexpected(token, expected);
  }

  private unexpected(token: Token, expected: string): never {
    if (token.kind === 'end') fail(this.parameter, `unexpected end of the expression; expected ${expected}`);
    if (token.kind === 'other' && token.text === ';') {
      fail(
        this.parameter,
        `unexpected ";" at position ${token.position}; only one filter expression is allowed`,
      );
    }
    fail(this.parameter, `unexpected ${describe(token)} at position ${token.position}; expected ${expected}`);
  }
}

/**
 * Parses a Dune-style `filters` expression, e.g.
 * `block_time > '2024-03-05' AND (project = 'uniswap' OR amount_usd >= 1e6)`.
 */
export function parseResultFilter(text: string): FilterExpression {
  checkLength('filters', text);
  const tokens = tokenize('filters', text);
  if (tokens.length === 1) fail('filters', `empty expression; expected a condition, ${EXAMPLE}`);
  return new FilterParser(tokens).parse();
}

/** Parses `sort_by`, e.g. `amount_usd desc, block_time` (direction defaults to asc). */
export function parseSortBy(text: string): SortKey[] {
  const parameter = 'sort_by';
  checkLength(parameter, text);
  const tokens = tokenize(parameter, text);
  if (tokens.length === 1) fail(parameter, 'empty; expected e.g. amount_usd desc, block_time');
  const keys: SortKey[] = [];
  let index = 0;
  const next = () => tokens[Math.min(index++, tokens.length - 1)]!;
  for (;;) {
    const token = next();
    let column: string;
    if (token.kind === 'quoted_identifier') column = token.text;
    else if (token.kind === 'word') {
      column = token.text;
      const after = tokens[index];
      if (after?.kind === 'punctuation' && after.text === '(') {
        fail(
          parameter,
          `unexpected "(" at position ${after.position}; functions are not allowed — sort by column names`,
        );
      }
    } else if (token.kind === 'end') {
      fail(parameter, 'unexpected end; expected a column name after ","');
    } else {
      fail(parameter, `unexpected ${describe(token)} at position ${token.position}; expected a column name`);
    }
    let direction: SortKey['direction'] = 'asc';
    let after = next();
    if (after.kind === 'word' && /^(asc|desc)$/i.test(after.text)) {
      direction = after.text.toLowerCase() as SortKey['direction'];
      after = next();
    }
    keys.push({ column, direction });
    if (after.kind === 'end') return keys;
    if (after.kind === 'punctuation' && after.text === ',') continue;
    if (after.kind === 'word' && /^nulls$/i.test(after.text)) {
      fail(parameter, `NULLS FIRST/LAST is not supported (position ${after.position})`);
    }
    fail(
      parameter,
      `unexpected ${describe(after)} at position ${after.position}; expected ASC, DESC, "," or the end`,
    );
  }
}

/**
 * Parses `columns`, a comma-separated list of column names (e.g. `project,block_time,amount_usd`);
 * names with special characters are double-quoted (`"amount (usd)",project`).
 */
export function parseColumns(text: string): string[] {
  const parameter = 'columns';
  checkLength(parameter, text);
  const names: string[] = [];
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  for (;;) {
    skipSpace();
    const position = i + 1;
    let name: string;
    if (text[i] === '"') {
      const { text: quoted, next } = readQuoted(text, i, '"');
      if (next < 0)
        fail(parameter, `unterminated quoted column name starting at position ${position}; close it with "`);
      if (quoted.length === 0) fail(parameter, `empty column name "" at position ${position}`);
      name = quoted;
      i = next;
    } else {
      let end = i;
      while (end < text.length && text[end] !== ',' && text[end] !== '"') end++;
      name = text.slice(i, end).trim();
      if (name.length === 0) {
        fail(
          parameter,
          text.trim().length === 0
            ? 'empty; expected comma-separated column names, e.g. project,block_time'
            : `empty column name at position ${position}`,
        );
      }
      if (text[end] === '"') {
        fail(
          parameter,
          `unexpected '"' at position ${end + 1}; quote the whole column name, e.g. "weird col"`,
        );
      }
      if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(name)) {
        fail(
          parameter,
          `column name "${truncate(name)}" at position ${position} has special characters; double-quote it, e.g. "${truncate(name)}"`,
        );
      }
      i = end;
    }
    names.push(name);
    skipSpace();
    if (i >= text.length) return names;
    if (text[i] !== ',') {
      fail(parameter, `unexpected "${text[i]}" at position ${i + 1}; expected "," between column names`);
    }
    i++;
  }
}
