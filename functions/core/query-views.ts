import { BadRequestError } from './errors';

/**
 * Query views (Dune's "query a query"): a saved query read as a table, `query_<id>`, or with
 * parameter values, `"query_<id>(name='value', ...)"` (one quoted identifier). Each value is SQL
 * text put in place of the called query's `{{name}}`, as Dune's macro does; `\'` is a quote and
 * `\\` a backslash inside a value.
 */

/** A one-part table name that calls a query view (unquoted or quoted, with or without arguments). */
export const QUERY_VIEW_NAME = /^query_\d+(\(.*)?$/is;

/** Where a query view is called in a statement, found by the SQL parser (`queryViewsCalledBy`). */
export interface QueryViewOccurrence {
  /** The table name as the parser reads it (quotes removed), e.g. `query_42(chain='base')`. */
  name: string;
  /** The name as written (quotes included) is `sql.slice(start, end)`, offsets in UTF-16 units. */
  start: number;
  end: number;
  /** Whether the table has an alias of its own (`from query_42 q`). */
  aliased: boolean;
}

export interface QueryViewCall {
  queryId: number;
  /** Parameter name → SQL text, in the order written. */
  arguments: Map<string, string>;
}

/** Reads `query_<id>` or `query_<id>(name='value', ...)`; a name of another form throws. */
export function parseQueryViewName(name: string): QueryViewCall {
  const match = /^query_(\d+)(?:\((.*)\))?$/is.exec(name.trim());
  if (!match) {
    throw new BadRequestError(
      `Cannot read the query view "${name}": write query_<id>, or "query_<id>(name='value', other='value')" to pass parameters.`,
    );
  }
  const queryId = Number(match[1]);
  if (!Number.isSafeInteger(queryId) || queryId <= 0) {
    throw new BadRequestError(`"${name}" names no query: query ids are positive integers.`);
  }
  return { queryId, arguments: parseArguments(name, match[2] ?? '') };
}

function parseArguments(name: string, text: string): Map<string, string> {
  const values = new Map<string, string>();
  const fail = (why: string): never => {
    throw new BadRequestError(
      `Cannot read the parameters of "${name}": ${why}. Write them as "query_<id>(name='value', other='value')", with \\' for a quote inside a value.`,
    );
  };
  let i = 0;
  const skipSpaces = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  skipSpaces();
  while (i < text.length) {
    const equals = text.indexOf('=', i);
    if (equals === -1) fail(`expected name='value' at "${text.slice(i, i + 20)}"`);
    const key = text.slice(i, equals).trim();
    if (!/^[A-Za-z_][\w -]*$/.test(key)) fail(`"${key}" is not a parameter name`);
    if (values.has(key)) fail(`"${key}" is given twice`);
    i = equals + 1;
    skipSpaces();
    if (text[i] !== "'") fail(`the value of "${key}" must be in single quotes`);
    i++;
    let value = '';
    for (;;) {
      if (i >= text.length) fail(`the value of "${key}" has no closing quote`);
      const char = text[i]!;
      if (char === '\\' && (text[i + 1] === "'" || text[i + 1] === '\\')) {
        value += text[i + 1];
        i += 2;
      } else if (char === "'") {
        i++;
        break;
      } else {
        value += char;
        i++;
      }
    }
    values.set(key, value);
    skipSpaces();
    if (i < text.length) {
      if (text[i] !== ',') fail(`expected a comma after the value of "${key}"`);
      i++;
      skipSpaces();
      if (i >= text.length) fail('a comma ends the list');
    }
  }
  return values;
}

/** A value as it is written inside a query view's quotes (the inverse of the reading above). */
export function quoteViewArgument(value: string): string {
  return value.replaceAll('\\', '\\\\').replaceAll("'", "\\'");
}

/**
 * A called query's SQL as one table expression: comments dropped and line breaks outside string
 * literals made spaces (so an error's line in the caller's SQL stays the caller's line), without a
 * trailing semicolon.
 */
export function inlineStatement(sql: string): string {
  let out = '';
  const space = () => {
    if (out !== '' && !out.endsWith(' ')) out += ' ';
  };
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      let j = i + 1;
      while (j < sql.length && !(sql[j] === char && sql[j + 1] !== char)) j += sql[j] === char ? 2 : 1;
      out += sql.slice(i, j + 1);
      i = j + 1;
    } else if (char === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      space();
    } else if (char === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
      space();
    } else {
      if (/\s/.test(char)) space();
      else out += char;
      i++;
    }
  }
  return out.replace(/[\s;]+$/, '').trim();
}

/**
 * A query view as the SQL that ran holds it: `sql.slice(start, end)` is the called query's SQL
 * (parenthesized), which the user wrote as `text` (`query_42`).
 */
export interface InlinedView {
  start: number;
  end: number;
  text: string;
}

export interface Position {
  line: number;
  column: number;
}

/**
 * Where an error position in the SQL that ran (query views inlined) is in the SQL the user wrote:
 * inside a called query it is the call (and `view` names it), after one it moves back by what the
 * inlining added. Positions are 1-based, columns in UTF-16 units, as the engines report them.
 */
export function positionAsWritten(
  ran: string,
  views: readonly InlinedView[],
  at: Position,
): { position: Position; view?: string } {
  const offset = offsetOf(ran, at);
  if (offset === undefined) return { position: at };
  let written = '';
  let copied = 0;
  let mapped: number | undefined;
  let view: string | undefined;
  for (const inlined of [...views].sort((a, b) => a.start - b.start)) {
    if (mapped === undefined && offset < inlined.start) mapped = written.length + (offset - copied);
    if (mapped === undefined && offset < inlined.end) {
      mapped = written.length + (inlined.start - copied);
      view = inlined.text;
    }
    written += ran.slice(copied, inlined.start) + inlined.text;
    copied = inlined.end;
  }
  mapped ??= written.length + (offset - copied);
  written += ran.slice(copied);
  return { position: positionOf(written, mapped), ...(view ? { view } : {}) };
}

function offsetOf(sql: string, { line, column }: Position): number | undefined {
  let offset = 0;
  for (let current = 1; current < line; current++) {
    const next = sql.indexOf('\n', offset);
    if (next === -1) return undefined;
    offset = next + 1;
  }
  return offset + column - 1 <= sql.length ? offset + column - 1 : undefined;
}

function positionOf(sql: string, offset: number): Position {
  const before = sql.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}
