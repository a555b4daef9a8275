import { DuneSqlError } from './errors';
import { type ReferenceEntry, referenceEntries } from './function-support';

/**
 * `SHOW FUNCTIONS [LIKE pattern [ESCAPE 'c']]`, which Dune's docs point users to for the list of
 * functions: answered from the function catalog (function-catalog.ts), listing what runs on the
 * engine the statement is translated for, one row per signature, with Trino's output columns. The
 * catalog writes signatures for people (`rpad(string, size, pad)`, `max_by(x, y)`), so `Argument
 * Types` holds the arguments as the signature writes them.
 */

const PATTERN = "'(?:[^']|'')*'";
const SHOW_FUNCTIONS = new RegExp(
  String.raw`^\s*SHOW\s+FUNCTIONS(?:\s+LIKE\s+(${PATTERN})(?:\s+ESCAPE\s+(${PATTERN}))?)?\s*;?\s*$`,
  'i',
);
/** Any SHOW FUNCTIONS, also one this module refuses (`FROM schema`): said in words, not as "not a query". */
const ANY_SHOW_FUNCTIONS = /^\s*SHOW\s+FUNCTIONS\b/i;

/** Trino's columns, in its order. */
const COLUMNS = [
  'Function',
  'Return Type',
  'Argument Types',
  'Function Type',
  'Deterministic',
  'Description',
];

/**
 * Functions whose value differs between calls in one query (Trino declares them
 * `deterministic = false`); `now()` and `current_timestamp` are fixed per query, so deterministic.
 */
const NONDETERMINISTIC = new Set(['rand', 'random', 'uuid', 'shuffle']);

interface SignatureParts {
  name: string;
  /** Undefined for a bare name (`all_match` after `any_match(array, x -> condition) → boolean`). */
  args?: string;
  returns?: string;
}

/**
 * A function's signature split into its name (an entry's signatures may name variants and aliases:
 * `rand()` beside `random()`), arguments and return type: `name(arguments) → type`,
 * `name(arguments)`, `name → type` or `name`; undefined for an operator or keyword form (`x || y`,
 * `exists (subquery)`, `case … end`).
 */
function signatureParts(signature: string): SignatureParts | undefined {
  const head = /^[a-z_][a-z0-9_]*/i.exec(signature);
  if (!head) return undefined;
  const name = head[0].toLowerCase();
  let rest = signature.slice(head[0].length);
  if (/^\s+\(/.test(rest)) return undefined;
  rest = rest.trim();
  let args: string | undefined;
  if (rest.startsWith('(')) {
    // The argument list ends at its matching parenthesis (types like decimal(38,0) nest).
    let depth = 0;
    let end = -1;
    for (let i = 0; i < rest.length && end < 0; i++) {
      if (rest[i] === '(') depth++;
      else if (rest[i] === ')' && --depth === 0) end = i;
    }
    if (end < 0) return undefined;
    args = rest.slice(1, end).trim();
    rest = rest.slice(end + 1).trim();
  }
  if (rest === '') return { name, args };
  const returns = /^→\s*(.+)$/.exec(rest)?.[1]?.trim();
  return returns === undefined ? undefined : { name, args, returns };
}

export function isShowFunctions(text: string): boolean {
  return ANY_SHOW_FUNCTIONS.test(text);
}

/** One row per signature of every function available on the target. */
function functionRows(target: 'duckdb' | 'athena'): string[][] {
  const available = (entry: ReferenceEntry) => (target === 'duckdb' ? entry.local : entry.athena).available;
  // A function documented in two categories (array_agg: aggregate, and again among the array
  // functions) is listed as the first declares it.
  const listedBy = new Map<string, ReferenceEntry>();
  const rows = referenceEntries()
    .filter(available)
    .flatMap((entry) => {
      // The catalog writes a variant's return type (and a bare name's arguments) once, on the
      // signature before it: `['count(*) → bigint', 'count(x)']`.
      let previous: SignatureParts = { name: '' };
      return entry.signatures.flatMap((signature) => {
        const parts = signatureParts(signature.trim());
        if (!parts) return [];
        const args = parts.args ?? previous.args ?? '';
        const returns = parts.returns ?? previous.returns ?? '';
        previous = { name: parts.name, args, returns };
        if ((listedBy.get(parts.name) ?? entry) !== entry) return [];
        listedBy.set(parts.name, entry);
        const deterministic = String(!NONDETERMINISTIC.has(parts.name));
        return [[parts.name, returns, args, functionType(entry), deterministic, entry.description]];
      });
    });
  // Stable: a function's signatures keep their catalog order.
  return rows.sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

function functionType(entry: ReferenceEntry): string {
  if (entry.category === 'Aggregate functions') return 'aggregate';
  if (entry.category === 'Window functions') return 'window';
  return 'scalar';
}

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The query `SHOW FUNCTIONS` stands for (text without comments), or undefined for any other
 * statement. Its LIKE filters the function names with the engine's LIKE (case-sensitive, as
 * Trino's); names are lower case.
 */
export function showFunctionsQuery(text: string, target: 'duckdb' | 'athena'): string | undefined {
  if (!isShowFunctions(text)) return undefined;
  const match = SHOW_FUNCTIONS.exec(text);
  if (!match) {
    throw new DuneSqlError(
      'unsupported',
      "SHOW FUNCTIONS lists the built-in functions: write SHOW FUNCTIONS or SHOW FUNCTIONS LIKE 'array%' (there are no user-defined functions, so no FROM schema).",
    );
  }
  const [, pattern, escapeLiteral] = match;
  if (escapeLiteral !== undefined && escapeLiteral.slice(1, -1).replaceAll("''", "'").length !== 1) {
    throw new DuneSqlError('syntax', 'Escape string must be a single character.');
  }
  // Plain SQL both engines run as it is (translate.ts does not translate it again): literals, the
  // columns named c0 (the order) to c6, renamed to Trino's in the select list. Every function is
  // listed and the engine's LIKE filters them (some 30 KB of SQL, which nothing parses here).
  const values = functionRows(target)
    .map(
      (row, index) => `(${index}, ${row.map((value, i) => (i === 4 ? value : literal(value))).join(', ')})`,
    )
    .join(', ');
  const select = COLUMNS.map((name, i) => `c${i + 1} AS "${name}"`).join(', ');
  const names = ['c0', ...COLUMNS.map((_, i) => `c${i + 1}`)].join(', ');
  const where =
    pattern === undefined
      ? ''
      : ` WHERE c1 LIKE ${pattern}${escapeLiteral === undefined ? '' : ` ESCAPE ${escapeLiteral}`}`;
  return `SELECT ${select} FROM (VALUES ${values}) AS v(${names})${where} ORDER BY c0`;
}
