import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ZodError, z } from 'zod';
import { ServiceError } from '../core/errors';
import { formatZodError } from '../core/validation';
import { logger } from '../http/logger';

/**
 * Schema spellings that travel: zod writes a nullable primitive as a `type` array and an unknown
 * value as a bare `{}`, both of which clients that map tool schemas onto one-type dialects reject
 * (the MCP Inspector's portability lint flags them). Described branches stay separate `anyOf`s.
 */
export const nullableNumber = () => z.union([z.number().describe('a number'), z.null().describe('none')]);
export const nullable = <T extends z.ZodType>(schema: T) =>
  z.union([schema.describe(schema.description ?? 'the value'), z.null().describe('none')]);
/** A free-form JSON object (options, result rows), spelled portably (functions/core/validation.ts). */
export { jsonObject } from '../core/validation';

/** A successful tool result: the structured value plus a compact readable copy for older clients. */
export function ok<T extends Record<string, unknown>>(structured: T, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A tool failure the model can act on: `isError` with a message that says what to do instead. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * Runs a tool body and turns expected failures (not found, forbidden, bad input, credit limit…)
 * into `isError` results with the use case's own message; anything else is logged and reported
 * with a generic message, never as a protocol error.
 */
export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ServiceError) return toolError(error.message);
    if (error instanceof ZodError) return toolError(formatZodError(error));
    logger.error('mcp tool failed', { error: error as Error });
    return toolError('Internal error while running this tool; try again, and report it if it persists.');
  }
}

/**
 * An update that names nothing to change, refused in the tool's own argument names (the use
 * case's message names the REST fields); undefined when something is to change.
 */
export function nothingToChange(
  tool: string,
  args: Record<string, unknown>,
  changes: readonly string[],
): CallToolResult | undefined {
  if (changes.some((name) => args[name] !== undefined)) return undefined;
  return toolError(`Nothing to change: ${tool} needs at least one of ${changes.join(', ')}.`);
}

/** Trims free text for compact listings. */
export function trimText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** Sizes in MCP text as in the engines' messages (binary units: KiB, MiB, GiB). */
export { formatBytes } from '../core/result-limits';

/**
 * Tool annotations (hints for clients): none of our tools reaches outside the service, so
 * `openWorldHint` is always false; unset hints default to false.
 */
export function annotate(
  title: string,
  hints: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean } = {},
) {
  return {
    title,
    readOnlyHint: hints.readOnly ?? false,
    destructiveHint: hints.destructive ?? false,
    idempotentHint: hints.idempotent ?? false,
    openWorldHint: false,
  };
}
