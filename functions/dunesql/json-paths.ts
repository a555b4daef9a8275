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
