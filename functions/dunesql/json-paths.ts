/**
 * Trino's SQL/JSON path language (json_exists, json_value, json_query: a mode, then `$` and
 * accessors; https://trino.io/docs/current/functions/json.html#json-path-language) as DuckDB's JSON
 * paths, for the local engine. Trino takes only a literal path, so each is converted once, here.
 * The accessors both have are converted: members (`.key`, `."key"`, `.*`) and array elements
 * (`[n]`, `[last]`, `[last - n]`, `[*]`). The rest (filters, `..`, item methods, ranges, several
 * subscripts, arithmetic, variables) has no DuckDB form: the caller refuses it, naming the path.
 * Lax mode's unnesting of arrays under a member accessor, and its wrapping of a non-array under
 * an array accessor, are not done: such an item is not found.
 */

/** A path DuckDB reads, and whether it may match several items (a wildcard: DuckDB answers a list). */
export interface DuckDbJsonPath {
  path: string;
  wildcard: boolean;
}

const MODE = /^\s*(?:(lax|strict)\s+)?\$/i;
const ACCESSOR =
  /^\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\.\s*"([^"\\]*)"|\.\s*(\*)|\[\s*(\d+)\s*\]|\[\s*last\s*(?:-\s*(\d+)\s*)?\]|\[\s*(\*)\s*\])/;

/** DuckDB's form of a SQL/JSON path, or undefined when it has an accessor DuckDB's paths lack. */
export function duckDbJsonPath(sqlJsonPath: string): DuckDbJsonPath | undefined {
  const mode = MODE.exec(sqlJsonPath);
  if (!mode) return undefined;
  let rest = sqlJsonPath.slice(mode[0].length);
  let path = '$';
  let wildcard = false;
  while (rest.trim() !== '') {
    const step = ACCESSOR.exec(rest);
    if (!step) return undefined;
    const [, name, quoted, memberWildcard, index, fromLast, elementWildcard] = step;
    if (name !== undefined) path += `.${name}`;
    else if (quoted !== undefined) path += `."${quoted}"`;
    else if (index !== undefined) path += `[${Number(index)}]`;
    else if (memberWildcard !== undefined || elementWildcard !== undefined) {
      path += memberWildcard ? '.*' : '[*]';
      wildcard = true;
    } else path += `[#-${Number(fromLast ?? 0) + 1}]`;
    rest = rest.slice(step[0].length);
  }
  return { path, wildcard };
}

/** Why a path cannot run locally, for the function that reads it. */
export function unsupportedPathMessage(functionName: string, sqlJsonPath: string): string {
  return (
    `${functionName}: the local engine reads JSON paths of members and array elements only ` +
    `(lax $.key, $."key", $.*, $[0], $[last], $[*]), not ${JSON.stringify(sqlJsonPath)} ` +
    '(filters, .., item methods, ranges and variables run on Dune only); the path must be a string literal.'
  );
}

const UNPARSED_CLAUSE =
  /^(?:(?:DEFAULT\b[^()]*?|NULL|ERROR|EMPTY\s+(?:ARRAY|OBJECT)|TRUE|FALSE|UNKNOWN)\s+ON\s+(?:EMPTY|ERROR)|(?:KEEP|OMIT)\s+QUOTES\s+ON\s+SCALAR\s+STRING|ON\s+SCALAR\s+STRING|PASSING|FORMAT\s+JSON)\b/i;

/**
 * A clause of json_exists, json_value or json_query that the translator's parser does not read
 * (`DEFAULT 'none' ON EMPTY`, `NULL ON EMPTY`, `TRUE ON ERROR`, `PASSING`, …), where a parse failed
 * at `offset`: the message to refuse it with, instead of "Expected RParen".
 */
export function unparsedJsonClause(text: string, offset: number): string | undefined {
  const clause = UNPARSED_CLAUSE.exec(text.slice(offset));
  if (!clause) return undefined;
  // The call whose parenthesis is open at the offset.
  let depth = 0;
  for (let i = offset - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && depth-- === 0) {
      const name = /\b(json_exists|json_value|json_query)\s*$/i.exec(text.slice(0, i))?.[1]?.toLowerCase();
      if (!name) return undefined;
      const written = clause[0].replace(/\s+/g, ' ');
      const reads =
        name === 'json_exists'
          ? 'it reads the input and the path'
          : 'it reads RETURNING, the ARRAY WRAPPER and QUOTES options and NULL ON ERROR';
      const instead = /SCALAR STRING$/i.test(written)
        ? 'write KEEP QUOTES or OMIT QUOTES without ON SCALAR STRING (they apply to scalar strings only).'
        : `leave it out: where nothing is found or it fails, ${name} is ${name === 'json_exists' ? 'false' : 'NULL'}, ` +
          `so coalesce(${name}(…), <default>) gives a default.`;
      return `${name}: the local engine cannot read ${written} (${reads}); ${instead}`;
    }
  }
  return undefined;
}
