/**
 * The MCP Inspector CLI (`@modelcontextprotocol/inspector --cli`, v2) against the local host: a
 * separate process, the client people actually run to check a server. It lists the 20 tools and
 * the 2 resources and calls a tool. The Inspector needs Node ≥ 22.19; this test fails (never
 * skips) when it cannot run, saying why.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../functions/local/host';
import { MCP_TOOLS } from '../support/mcp-tools';
import { type Json, startTestHost, type TestHost } from '../support/test-host';

const INSPECTOR = join(REPO_ROOT, 'node_modules/.bin/mcp-inspector');
/** Per Inspector run; the first one also pays for loading the CLI bundle. */
const RUN_TIMEOUT_MS = 45_000;

const TOOLS = MCP_TOOLS;

/** JSON Schema keywords clients that map tool schemas onto one-type dialects reject. */
const UNPORTABLE = new Set(['$ref', 'definitions', '$defs', 'propertyNames']);

/**
 * Where in a schema an unportable keyword appears (`tool.inputSchema.properties.options.propertyNames`),
 * or an array schema has no `items` (`….anyOf[4] (array without items)`), which VS Code Copilot
 * ("tool parameters array type must have items") and OpenAI function calling ("array schema
 * missing items") refuse, some hosts dropping the whole server.
 */
function unportableKeys(schema: Json, at: string): string[] {
  if (schema === null || typeof schema !== 'object') return [];
  // Under `properties` the keys name fields: a field called `definitions` or `type` is not the keyword.
  const isSchema = !Array.isArray(schema) && !at.endsWith('.properties');
  const types = isSchema ? [schema.type].flat() : [];
  const itemless = types.includes('array') && !('items' in schema) ? [`${at} (array without items)`] : [];
  return [
    ...itemless,
    ...Object.entries(schema).flatMap(([key, value]) => {
      const path = Array.isArray(schema) ? `${at}[${key}]` : `${at}.${key}`;
      return [...(isSchema && UNPORTABLE.has(key) ? [path] : []), ...unportableKeys(value, path)];
    }),
  ];
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('MCP Inspector CLI against the local host', () => {
  let host: TestHost;
  let home: string;

  /**
   * Runs `mcp-inspector --cli <url> --transport http --header "x-service-api-key: …" --format json
   * <args>` with this Node (`withKey: false` leaves the header out).
   */
  function inspector(args: string[], withKey = true): Promise<Run> {
    const url = `${host.baseUrl}/mcp/v1`;
    return new Promise((resolve, reject) => {
      execFile(
        process.execPath,
        [
          INSPECTOR,
          '--cli',
          url,
          '--transport',
          'http',
          ...(withKey ? ['--header', `x-service-api-key: ${host.apiKey}`] : ['--stored-auth-only']),
          '--connect-timeout',
          '15000',
          '--format',
          'json',
          ...args,
        ],
        {
          cwd: REPO_ROOT,
          timeout: RUN_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          maxBuffer: 32 * 1024 * 1024,
          // Its catalog, client config and OAuth store live under a throwaway home.
          env: {
            ...process.env,
            HOME: home,
            MCP_CATALOG_PATH: join(home, 'mcp.json'),
            MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
            NO_COLOR: '1',
          },
        },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== 'number') {
            reject(
              new Error(
                `The MCP Inspector CLI could not run (${error.message}; signal ${error.signal ?? 'none'}).\n` +
                  `stdout: ${stdout}\nstderr: ${stderr}`,
              ),
            );
            return;
          }
          resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
        },
      );
    });
  }

  /** The `result` of the one JSON object the CLI prints with `--format json`; fails with its output otherwise. */
  function parsed(run: Run, what: string): Json {
    const detail = `${what}: exit ${run.code}\nstdout: ${run.stdout.slice(0, 2000)}\nstderr: ${run.stderr.slice(0, 2000)}`;
    expect(run.code, detail).toBe(0);
    const start = run.stdout.indexOf('{');
    expect(start, detail).toBeGreaterThanOrEqual(0);
    let body: Json;
    try {
      body = JSON.parse(run.stdout.slice(start));
    } catch (error) {
      throw new Error(`${detail}\n(not JSON: ${(error as Error).message})`);
    }
    expect(body, detail).toHaveProperty('result');
    return body.result;
  }

  beforeAll(async () => {
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) {
      throw new Error(
        `The MCP Inspector CLI v2 needs Node >= 22.19, this is ${process.version}: run the tests through ` +
          'npm (npm test / npx vitest) so the Node 22 from node_modules/.bin is used.',
      );
    }
    home = await mkdtemp(join(tmpdir(), 'mcp-inspector-home-'));
    host = await startTestHost();
  });
  afterAll(async () => {
    await host?.stop();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('lists the 20 tools, with schemas that pass its portability lint (--strict)', {
    timeout: 60_000,
  }, async () => {
    const run = await inspector(['--method', 'tools/list', '--strict']);
    // Issue 10 item 6: nullable fields as type arrays made it warn "Schema portability: 15 warnings".
    expect(run.stderr).not.toMatch(/portability|Issue:/i);
    const out = parsed(run, 'tools/list');
    const names = (out.tools as Json[]).map((t) => t.name).sort();
    expect(names).toEqual(TOOLS);
    const search = (out.tools as Json[]).find((t) => t.name === 'searchTables');
    expect(search.inputSchema.properties).toHaveProperty('query');
    expect(search.outputSchema.type).toBe('object');
    // The lint lets these pass, but Gemini's and OpenAI's function declarations (and, for an array
    // without items, VS Code Copilot) refuse them.
    const unportable = (out.tools as Json[]).flatMap((tool) =>
      ['inputSchema', 'outputSchema'].flatMap((which) =>
        unportableKeys(tool[which], `${tool.name}.${which}`),
      ),
    );
    expect(unportable).toEqual([]);
  });

  it('lists the 2 resources', { timeout: 60_000 }, async () => {
    const out = parsed(await inspector(['--method', 'resources/list']), 'resources/list');
    expect((out.resources as Json[]).map((r) => r.uri).sort()).toEqual([
      'service://docs/query-engine-functions-and-operators',
      'service://docs/query-engine-writing-efficient-queries',
    ]);
  });

  it('calls listBlockchains', { timeout: 60_000 }, async () => {
    const out = parsed(
      await inspector(['--method', 'tools/call', '--tool-name', 'listBlockchains']),
      'tools/call listBlockchains',
    );
    expect(out.isError ?? false).toBe(false);
    const chains = (out.structuredContent.blockchains as Json[]).map((b) => b.name);
    expect(chains).toEqual(expect.arrayContaining(['ethereum', 'base', 'arbitrum', 'bitcoin']));
    const text = (out.content as Json[]).map((c) => c.text ?? '').join('\n');
    for (const chain of ['ethereum', 'base', 'arbitrum', 'bitcoin']) expect(text).toContain(chain);
  });

  it('exits with auth_required (3) without the API key: the server answers 401', {
    timeout: 60_000,
  }, async () => {
    const run = await inspector(['--method', 'tools/list'], false);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('auth_required');
    expect(run.stderr).toContain('Missing credentials');
    expect(run.stdout).not.toContain('listBlockchains');
  });
});
