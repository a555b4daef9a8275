import { type core, type ZodError, z } from 'zod';

/** One readable line per problem, naming where it is: `body.limit: Too big: expected number to be <=250`. */
export function formatZodError(error: ZodError, root?: string): string {
  return readableIssues(error.issues)
    .map((issue) => {
      const path = [root, ...issue.path.map(String)].filter(Boolean).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** zod's message for a failed union that names no reason. */
const UNION_DEFAULT_MESSAGE = 'Invalid input';

/**
 * A union that failed with zod's bare "Invalid input" is reported by the one branch the value's
 * kind matched (a list for the list form, an object for the object form): that branch's own
 * messages say what is wrong. A union with its own message, or one no branch matched, keeps it.
 */
function readableIssues(issues: readonly core.$ZodIssue[]): core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'invalid_union' || issue.message !== UNION_DEFAULT_MESSAGE) return [issue];
    const matched = issue.errors.filter((branch) => !branch.every(isRootTypeMismatch));
    if (matched.length !== 1) return [issue];
    return readableIssues(matched[0]!).map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }));
  });
}

const isRootTypeMismatch = (issue: core.$ZodIssue) =>
  issue.code === 'invalid_type' && issue.path.length === 0;

const JSON_TYPES = ['string', 'number', 'boolean', 'null', 'array', 'object'] as const;

/**
 * A JSON value as clients see it in the schema: one `anyOf` branch per JSON type, not the `$ref`
 * recursion `z.json()` writes, which clients mapping tool schemas onto one-type dialects (Gemini's
 * and OpenAI's function declarations) reject. Anything that arrived as JSON or leaves as JSON is
 * one of these, so the check itself accepts any value: validating 25 result rows cell by cell
 * against `z.json()` was a fifth of getExecutionResults' MCP overhead (66 vs 23 µs a page,
 * test/bench/mcp-latency.ts).
 */
const jsonValue = () =>
  z.unknown().meta({
    anyOf: JSON_TYPES.map((type) => ({ ...jsonTypeSchema(type, 0), description: `a JSON ${type}` })),
  });

/**
 * How deep the schema spells out arrays in arrays (`[[1, 2], [3, 4]]`); elements deeper than that
 * are described as scalars or objects, though the check itself still accepts any value there.
 */
const ARRAY_NESTING = 2;

/**
 * One JSON type's branch. An array always has `items`: without it VS Code Copilot ("tool
 * parameters array type must have items") and OpenAI function calling ("array schema missing
 * items") refuse the tool, some hosts dropping the whole server. `items: {}` would do for them, but
 * a schema that constrains nothing is flagged by the MCP Inspector's portability lint, so the
 * items are the same branches again, without recursion (`$ref` is what those dialects refuse).
 */
function jsonTypeSchema(type: (typeof JSON_TYPES)[number], depth: number): Record<string, unknown> {
  if (type !== 'array') return { type };
  const inner = JSON_TYPES.filter((t) => t !== 'array' || depth + 1 < ARRAY_NESTING);
  return { type, items: { anyOf: inner.map((t) => jsonTypeSchema(t, depth + 1)) } };
}

/**
 * A free-form JSON object (options, result rows): `additionalProperties`, not the `propertyNames`
 * that `z.record()` writes and the same dialects reject.
 */
export const jsonObject = () => z.looseObject({}).catchall(jsonValue());

/**
 * The query string of an API route that takes no options (functions/http/route-handler.ts uses it
 * for every route without a query schema): any option is refused as a likely typo (400 naming
 * it), as on the routes that take some; `_=` (a cache-buster) and the API key never reach it.
 */
export const noQueryOptions = z.strictObject({});
