/**
 * The OpenAPI document is fit for client generators: `openapi-typescript` generates types from the
 * live host's `/v1/openapi.json`, a small `openapi-fetch` client is compiled against them with the
 * TypeScript compiler (strict), and the compiled client then makes real requests to the host. The
 * client code assigns typed fields and marks two wrong calls `@ts-expect-error`, so the compile fails
 * if an operation, a request body or an answer loses its schema (types degrade to `unknown`/`any`).
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../support/test-host';

const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './service-api';

export async function useTheApi(baseUrl: string, apiKey: string) {
  const api = createClient<paths>({ baseUrl, headers: { 'x-service-api-key': apiKey } });
  const created = await api.POST('/v1/query', {
    body: { name: 'typed client', query_sql: 'select 1 as one', is_private: true },
  });
  if (!created.data) throw new Error('create failed: ' + created.error?.error);
  const queryId: number = created.data.query_id;
  const read = await api.GET('/v1/query/{query_id}', { params: { path: { query_id: queryId } } });
  const name: string | undefined = read.data?.name;
  const sql: string | undefined = read.data?.query_sql;
  const missing = await api.GET('/v1/query/{query_id}', { params: { path: { query_id: 2_000_000_000 } } });
  const refusal: string | undefined = missing.error?.error;
  // @ts-expect-error a path this API does not have
  void api.GET('/v1/no-such-route');
  // @ts-expect-error saving a query needs its SQL
  void api.POST('/v1/query', { body: { name: 'no sql' } });
  return { queryId, name, sql, missingStatus: missing.response.status, refusal };
}
`;

/** What a user's project would compile with: strict, ES modules, fetch's types from the DOM lib. */
const STRICT: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  skipLibCheck: true,
};

describe('a client generated from /v1/openapi.json', () => {
  let host: TestHost;
  let dir: string;
  beforeAll(async () => {
    host = await startTestHost();
    dir = await mkdtemp(join(tmpdir(), 'openapi-client-'));
    // The compiled client resolves openapi-fetch from the project's install.
    await symlink(join(import.meta.dirname, '../../node_modules'), join(dir, 'node_modules'), 'dir');
  });
  afterAll(async () => {
    await host?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** What `npx openapi-typescript $BASE/v1/openapi.json -o service-api.d.ts` writes. */
  async function generateTypes(): Promise<void> {
    const document = (await (await host.call('/v1/openapi.json', { apiKey: null })).json()) as OpenAPI3;
    await writeFile(join(dir, 'service-api.d.ts'), astToString(await openapiTS(document)));
  }

  it('generates types, compiles a strict typed client against them, and the client works', async () => {
    await generateTypes();
    await writeFile(join(dir, 'client.ts'), CLIENT);

    const program = ts.createProgram([join(dir, 'client.ts')], { ...STRICT, outDir: join(dir, 'out') });
    const emitted = program.emit();
    const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics].map((d) =>
      ts.flattenDiagnosticMessageText(d.messageText, '\n'),
    );
    expect(problems).toEqual([]);

    const outFile = join(dir, 'out', 'client.js');
    await writeFile(join(dir, 'out', 'package.json'), '{"type": "module"}');
    const client = await import(pathToFileURL(outFile).href);
    const outcome = await client.useTheApi(host.baseUrl, host.apiKey);
    expect(outcome).toMatchObject({
      name: 'typed client',
      sql: 'select 1 as one',
      missingStatus: 404,
    });
    expect(outcome.queryId).toBeGreaterThan(0);
    expect(outcome.refusal).toMatch(/not found/i);
  });

  it('the compile check can fail: a client using a field the document does not have is refused', async () => {
    await generateTypes();
    await writeFile(
      join(dir, 'wrong.ts'),
      `import createClient from 'openapi-fetch';
import type { paths } from './service-api';
const api = createClient<paths>({ baseUrl: 'http://x' });
const read = await api.GET('/v1/query/{query_id}', { params: { path: { query_id: 1 } } });
export const id: string = read.data!.no_such_field;
`,
    );
    const program = ts.createProgram([join(dir, 'wrong.ts')], { ...STRICT, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems.join('\n')).toMatch(/no_such_field/);
  });
});
