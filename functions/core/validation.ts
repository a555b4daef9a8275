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
    anyOf: (['string', 'number', 'boolean', 'null', 'array', 'object'] as const).map((type) => ({
      type,
      description: `a JSON ${type}`,
    })),
  });

/**
 * A free-form JSON object (options, result rows): `additionalProperties`, not the `propertyNames`
 * that `z.record()` writes and the same dialects reject.
 */
export const jsonObject = () => z.looseObject({}).catchall(jsonValue());
