/**
 * polyglot-sql (a WebAssembly port of sqlglot) is 24 MB of WASM and takes ~240 ms to load, so it is
 * imported once per process, on first use, never per request.
 */
type Polyglot = typeof import('@polyglot-sql/sdk');

let loading: Promise<Polyglot> | undefined;

export function loadPolyglot(): Promise<Polyglot> {
  loading ??= import('@polyglot-sql/sdk');
  return loading;
}

/** A parsed polyglot AST node: plain JSON with one key naming the node type. */
// biome-ignore lint/suspicious/noExplicitAny: polyglot's AST is serde JSON; rewrites read it structurally
export type AstNode = any;

/**
 * polyglot as one translation uses it: faster where the SDK's defaults are slow for us, and made
 * per translation, so what it keeps is gone once that is done.
 * - Its query analysis answers each question once: the typing passes of one translation (operand
 *   checks, typed rewrites, Athena's casts and nested outputs) ask the same ones, and an answer
 *   takes time that grows faster than the SQL (tens of ms for a query of a few CTEs and joins).
 * - Generation takes the AST as JSON text: the SDK converts an AST array to WebAssembly value by
 *   value, property by property across the boundary, 2–2.7× slower than JSON (measured on
 *   statements of 15–150 characters); an AST that is not an array goes through JSON.stringify.
 */
export function polyglotForOneTranslation(polyglot: Polyglot): Polyglot {
  type Options = { dialect?: unknown; schema?: object };
  const answers = new Map<string, ReturnType<Polyglot['analyzeQuery']>>();
  const schemaKeys = new WeakMap<object, string>();
  const keyOf = (schema: object | undefined) => {
    if (!schema) return '';
    let key = schemaKeys.get(schema);
    if (key === undefined) {
      key = JSON.stringify(schema);
      schemaKeys.set(schema, key);
    }
    return key;
  };
  const analyzeQuery = (sql: string, options: Options = {}) => {
    const key = `${String(options.dialect)}\u0000${keyOf(options.schema)}\u0000${sql}`;
    let answer = answers.get(key);
    if (!answer) {
      answer = polyglot.analyzeQuery(sql, options as Parameters<Polyglot['analyzeQuery']>[1]);
      answers.set(key, answer);
    }
    return answer;
  };
  const generate: Polyglot['generate'] = (ast, dialect) => {
    if (!Array.isArray(ast)) return polyglot.generate(ast, dialect);
    const answer = polyglot.generate({ toJSON: () => ast }, dialect);
    // Its JSON reader stops at 128 levels of nesting (a UNION of a hundred SELECTs is deeper).
    return !answer.success && /recursion limit/i.test(answer.error ?? '')
      ? polyglot.generate(ast, dialect)
      : answer;
  };
  return { ...polyglot, analyzeQuery, generate } as Polyglot;
}
