import { BadRequestError } from './errors';
import type { QueryParameter } from './queries';
import { quoteViewArgument } from './query-views';

/** The start of a quoted identifier that calls a query view with parameters. */
const QUERY_VIEW_CALL = /^"query_\d+\(/i;

/** `{{ name }}`: letters, digits, underscores, dashes and spaces inside double braces. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w -]*?)\s*\}\}/g;

export type ParameterOverrides = Record<string, string | number | boolean | string[] | null>;

/** The names used in the SQL, in order of first use. */
export function placeholdersIn(sql: string): string[] {
  return [...new Set([...sql.matchAll(PLACEHOLDER)].map((match) => match[1]!))];
}

/** Checks parameter declarations when a query is saved: every placeholder declared, defaults valid. */
export function validateParameterDefinitions(sql: string, parameters: readonly QueryParameter[]): void {
  const keys = new Set<string>();
  for (const parameter of parameters) {
    if (keys.has(parameter.key)) throw new BadRequestError(`Parameter "${parameter.key}" is declared twice.`);
    keys.add(parameter.key);
    if (parameter.value !== '') literalFor(parameter, parameter.value, false);
  }
  for (const name of placeholdersIn(sql)) {
    if (!keys.has(name)) {
      throw new BadRequestError(
        `The SQL uses {{${name}}} but no parameter "${name}" is declared; add it to parameters (key, type, value).`,
      );
    }
  }
}

/**
 * Replaces every `{{name}}` with a SQL literal built from the typed value, so no value can change
 * the statement's structure: numbers must be numbers, datetimes datetimes, enums one of their
 * options, and text becomes an escaped string literal. A placeholder already inside single quotes
 * (`timestamp '{{start}}'`, as Dune queries write it) receives the escaped value without quotes.
 */
export function bindParameters(
  sql: string,
  parameters: readonly QueryParameter[],
  overrides: ParameterOverrides = {},
  /** SQL text for these names, put in as written: the values a query view passes (core/query-views.ts). */
  viewArguments: ReadonlyMap<string, string> = new Map(),
): string {
  const byKey = checkParameterValues(parameters, overrides);
  const contexts = lexicalContexts(sql);
  return sql.replace(PLACEHOLDER, (_placeholder, name: string, offset: number) => {
    const parameter = byKey.get(name);
    if (!parameter) {
      throw new BadRequestError(`The SQL uses {{${name}}} but the query declares no parameter "${name}".`);
    }
    const passed = viewArguments.get(name);
    if (passed !== undefined) return passed;
    const { context, start } = contexts(offset);
    const inViewCall = context === 'identifier' && QUERY_VIEW_CALL.test(sql.slice(start, start + 40));
    if (context === 'identifier' && !inViewCall) {
      throw new BadRequestError(
        `{{${name}}} is inside a double-quoted identifier; parameters can only stand for values (or for a value passed to a query view, "query_<id>(name='{{${name}}}')").`,
      );
    }
    const override = overrides[name];
    const raw = override === undefined || override === null ? parameter.value : override;
    if (raw === '' || (Array.isArray(raw) && raw.length === 0)) {
      throw new BadRequestError(
        `Parameter "${name}" has no value and no default; pass it in query_parameters.`,
      );
    }
    const literal = literalFor(parameter, raw, context !== 'code');
    // Passed on inside a view's quoted name: the value as the called query's SQL receives it.
    return inViewCall ? quoteViewArgument(literal).replaceAll('"', '""') : literal;
  });
}

/**
 * Checks values given for a query's parameters, as a run binds them: each names a declared
 * parameter and fits its type (also where nothing runs: `params.<name>=` asking for a latest result).
 */
export function checkParameterValues(
  parameters: readonly QueryParameter[],
  values: ParameterOverrides,
): Map<string, QueryParameter> {
  const byKey = new Map(parameters.map((parameter) => [parameter.key, parameter]));
  for (const [key, value] of Object.entries(values)) {
    const parameter = byKey.get(key);
    if (!parameter) {
      const known = parameters.map((p) => p.key);
      throw new BadRequestError(
        `Unknown parameter "${key}"; this query has ${known.length ? `parameters ${known.map((k) => `"${k}"`).join(', ')}` : 'no parameters'}.`,
      );
    }
    if (value !== null && value !== '') literalFor(parameter, value, false);
  }
  return byKey;
}

type LexicalContext = 'code' | 'string' | 'identifier' | 'comment';

/**
 * Tells for a character offset whether it sits in plain SQL, a 'string' (with '' escapes), a
 * "quoted identifier" or a comment, so a value lands inside a string literal only as escaped text.
 */
function lexicalContexts(sql: string): (offset: number) => { context: LexicalContext; start: number } {
  const spans: { start: number; end: number; context: LexicalContext }[] = [];
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const start = i;
    if (char === "'" || char === '"') {
      i++;
      while (i < sql.length && !(sql[i] === char && sql[i + 1] !== char)) i += sql[i] === char ? 2 : 1;
      spans.push({ start, end: ++i, context: char === "'" ? 'string' : 'identifier' });
    } else if (char === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
      spans.push({ start, end: i, context: 'comment' });
    } else if (char === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close === -1 ? sql.length : close + 2;
      spans.push({ start, end: i, context: 'comment' });
    } else i++;
  }
  return (offset) =>
    spans.find((span) => offset > span.start && offset < span.end) ?? { context: 'code', start: 0 };
}

function literalFor(
  parameter: QueryParameter,
  raw: string | number | boolean | string[],
  insideQuotes: boolean,
): string {
  const name = parameter.key;
  if (Array.isArray(raw)) {
    if (parameter.type !== 'enum' || !parameter.isMultiselect) {
      throw new BadRequestError(`Parameter "${name}" takes one value, not a list.`);
    }
    return raw.map((value) => literalFor({ ...parameter, isMultiselect: false }, value, false)).join(', ');
  }
  const value = String(raw).trim();
  switch (parameter.type) {
    case 'number': {
      if (!isNumberText(value)) {
        throw new BadRequestError(`Parameter "${name}" must be a number, got "${truncate(value)}".`);
      }
      return value.replace(/^\+/, '');
    }
    case 'datetime':
    case 'date': {
      const canonical = canonicalDatetime(value);
      if (!canonical) {
        throw new BadRequestError(
          `Parameter "${name}" must be a date or datetime like 2024-03-05 or 2024-03-05 14:30:00, got "${truncate(value)}".`,
        );
      }
      return insideQuotes ? canonical : `TIMESTAMP '${canonical}'`;
    }
    case 'enum': {
      if (!isFreeform(parameter) && !parameter.enumOptions?.includes(value)) {
        throw new BadRequestError(
          `Parameter "${name}" must be one of ${parameter.enumOptions?.map((o) => `"${o}"`).join(', ')}, got "${truncate(value)}".`,
        );
      }
      return stringLiteral(value, insideQuotes);
    }
    case 'text':
      return stringLiteral(String(raw), insideQuotes);
  }
}

/** An enum without options (as the Dune SDKs create them) takes any value, like `isFreeformAllowed`. */
function isFreeform(parameter: QueryParameter): boolean {
  return parameter.isFreeformAllowed === true || !parameter.enumOptions?.length;
}

function stringLiteral(value: string, insideQuotes: boolean): string {
  if (value.includes('\0')) throw new BadRequestError('Parameter values cannot contain NUL characters.');
  const escaped = value.replaceAll("'", "''");
  return insideQuotes ? escaped : `'${escaped}'`;
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/;

/** A finite decimal number: `1e400` is written like one but is past any number type (Infinity). */
function isNumberText(value: string): boolean {
  return NUMBER.test(value) && Number.isFinite(Number(value));
}

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?)?(Z|[+-]00:?00| UTC)?$/;

/** `YYYY-MM-DD HH:MM:SS[.fff]` in UTC, or undefined when the text is not a real date/time. */
function canonicalDatetime(value: string): string | undefined {
  const match = DATETIME.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = ''] = match;
  const date = new Date(
    Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)),
  );
  const valid =
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    date.getUTCHours() === Number(hour) &&
    date.getUTCMinutes() === Number(minute) &&
    date.getUTCSeconds() === Number(second);
  return valid ? `${year}-${month}-${day} ${hour}:${minute}:${second}${fraction}` : undefined;
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}

/** The value each declared parameter had in a run: the override if given, else the saved default. */
export type ParameterValues = Record<string, string | string[]>;

export function effectiveParameterValues(
  parameters: readonly QueryParameter[],
  overrides: ParameterOverrides = {},
): ParameterValues {
  return Object.fromEntries(
    parameters.map((parameter) => {
      const override = overrides[parameter.key];
      if (override === undefined || override === null) return [parameter.key, parameter.value];
      return [parameter.key, Array.isArray(override) ? override.map(String) : String(override)];
    }),
  );
}

/** Whether a run used every value asked for (`params.<name>=` on the latest-result endpoints). */
export function usedParameterValues(run: ParameterValues, requested: Record<string, string>): boolean {
  return Object.entries(requested).every(([key, value]) => {
    const used = run[key];
    return Array.isArray(used) ? used.join(',') === value : used === value;
  });
}

/**
 * Declarations from bare values (`query_parameters: {"k": "5"}`, how the Dune TypeScript SDK sends
 * parameters when it creates or updates a query): a name declared already keeps its type and
 * options and takes the new default; a new one is typed by its value (number, date-time or text).
 */
export function parametersFromValues(
  values: Record<string, string | number | boolean>,
  declared: readonly QueryParameter[] = [],
): QueryParameter[] {
  const byKey = new Map(declared.map((parameter) => [parameter.key, parameter]));
  return Object.entries(values).map(([key, raw]) => {
    const value = String(raw).trim();
    const existing = byKey.get(key);
    if (existing) return { ...existing, value };
    return { key, type: inferredType(raw, value), value };
  });
}

function inferredType(raw: string | number | boolean, value: string): QueryParameter['type'] {
  if (typeof raw === 'number' || isNumberText(value)) return 'number';
  if (canonicalDatetime(value)) return 'datetime';
  return 'text';
}
