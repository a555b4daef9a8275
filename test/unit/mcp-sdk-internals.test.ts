import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import type { Account } from '../../functions/core/accounts';
import { buildMcpServer } from '../../functions/mcp/server';
import type { Services } from '../../functions/services';

/**
 * functions/mcp/server.ts replaces two private steps of the SDK's McpServer on each server it
 * builds. These tests fail when an SDK update renames or changes them, so the replacements can
 * never silently stop applying.
 */
type Internals = {
  validateToolOutput(tool: unknown, result: unknown, name: string): Promise<void>;
  createToolError(message: string): { content: { text: string }[]; isError: true };
};

const built = () =>
  buildMcpServer({
    services: {} as Services,
    account: { accountId: 'a1', handle: 'someone' } as Account,
    baseUrl: 'http://localhost',
  }) as unknown as Internals;

describe("the SDK's private McpServer steps the service replaces", () => {
  it('validateToolOutput: the SDK refuses a result off its schema; a built server leaves that to clients', async () => {
    const sdk = McpServer.prototype as unknown as Internals;
    expect(typeof sdk.validateToolOutput).toBe('function');
    const server = new McpServer({ name: 't', version: '1' });
    const tool = (server as unknown as { _registeredTools: Record<string, unknown> })._registeredTools;
    const { z } = await import('zod');
    server.registerTool('t', { outputSchema: { n: z.number() } }, async () => ({
      content: [],
      structuredContent: { n: 1 },
    }));
    const registered = tool.t;
    const offSchema = { content: [], structuredContent: { n: 'one' } };
    await expect(
      (server as unknown as Internals).validateToolOutput(registered, offSchema, 't'),
    ).rejects.toThrow(/Output validation error/);
    await expect(built().validateToolOutput(registered, offSchema, 't')).resolves.toBeUndefined();
  });

  it('createToolError: the SDK builds its isError results there; a built server rewrites their text', () => {
    expect(typeof (McpServer.prototype as unknown as Internals).createToolError).toBe('function');
    const answer = built().createToolError('MCP error -32602: Tool nope not found');
    expect(answer.isError).toBe(true);
    expect(answer.content[0]!.text).toMatch(/^Unknown tool nope: this server has no tool by that name\./);
  });
});
