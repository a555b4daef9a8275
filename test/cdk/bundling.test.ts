import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAPIDOC_FILE } from '../../functions/apidocs/page';
import { POLYGLOT_WASM } from '../../functions/dunesql/wasm-file';
import { type RouteDefinition, routes } from '../../functions/routes';
import { RASTERIZER_FILES } from '../../functions/visualizations/rasterizer-files';
import { RUNNER_ENTRY, RUNNER_HANDLER } from '../../lib/constructs/executions';
import { type BundledFile, functionBundling } from '../../lib/constructs/service-function';
import { REPO_ROOT } from '../../lib/paths';
import { ServiceStack } from '../../lib/service-stack';
import { cdkJsonContext, FIXTURE_ENTRY } from './helpers';

/**
 * Real asset bundling, as `cdk synth` does it: the locally installed esbuild, never Docker. Docker
 * is pointed at a binary that does not exist, so a fallback to Docker bundling fails the test.
 */
const BUNDLING_TIMEOUT_MS = 180_000;
const outdirs: string[] = [];
let savedDocker: string | undefined;

beforeAll(() => {
  savedDocker = process.env.CDK_DOCKER;
  process.env.CDK_DOCKER = '/nonexistent/docker-must-not-be-used';
});

afterAll(() => {
  if (savedDocker === undefined) delete process.env.CDK_DOCKER;
  else process.env.CDK_DOCKER = savedDocker;
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/** Key of the node runner's bundle in `synthWithBundling` (route bundles use the function name). */
const RUNNER = 'NodeRunner';

/**
 * Synthesizes the service with bundling on and returns each function's bundle directory, by route
 * function name, and the node runner's (present in every stack) as `RUNNER`.
 */
function synthWithBundling(table: readonly RouteDefinition[]): {
  outdir: string;
  bundles: Map<string, string>;
} {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-bundling-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: cdkJsonContext() });
  const stack = new ServiceStack(app, 'BundlingTest', { routes: table });
  const template = Template.fromStack(stack);
  app.synth();
  const bundles = new Map<string, string>();
  const functions = [...stack.api.functions, [RUNNER, stack.executions.runner] as const];
  for (const [name, fn] of functions) {
    const logicalId = stack.getLogicalId(fn.node.defaultChild as Parameters<typeof stack.getLogicalId>[0]);
    const code = template.toJSON().Resources[logicalId].Properties.Code as { S3Key: string };
    bundles.set(name, join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`));
  }
  return { outdir, bundles };
}

/**
 * Bundles a fixture with the service's bundling options and the given run-time files, then runs its
 * handler in plain Node from a directory with no repository above it (the fixtures import no AWS
 * SDK), so every file it reads can only come from the bundle.
 */
function runBundledFixture(entry: string, files: readonly BundledFile[]): unknown {
  const outdir = mkdtempSync(join(tmpdir(), 'cdk-fixture-'));
  outdirs.push(outdir);
  const app = new App({ outdir, context: cdkJsonContext() });
  const stack = new Stack(app, 'Fixture');
  const fn = new NodejsFunction(stack, 'Fixture', {
    entry: join(REPO_ROOT, entry),
    runtime: Runtime.NODEJS_22_X,
    bundling: functionBundling(files),
    depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
    projectRoot: REPO_ROOT,
  });
  const template = Template.fromStack(stack);
  app.synth();
  const logicalId = stack.getLogicalId(fn.node.defaultChild as Parameters<typeof stack.getLogicalId>[0]);
  const code = template.toJSON().Resources[logicalId].Properties.Code as { S3Key: string };
  const dir = join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
  const script = `const m = await import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)});
    process.stdout.write(JSON.stringify(await m.handler()));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: outdir }),
  );
}

/** `import ... from "x"` or `import "x"` (a dynamic `import("x")` is fine: it loads on demand). */
function staticImportsOf(source: string): string[] {
  const found = source.matchAll(/\bimport\s*(?:[\w$*{},\s]+?\s*from\s*)?["']([^"']+)["']/g);
  return [...found].map((m) => m[1]!);
}

const LOCAL_ONLY = /^(dynalite|@duckdb\/)/;

/**
 * Imports bundles in a plain Node ESM process, as Lambda does, and returns each one's export
 * names. The bundles live in a temporary directory with no node_modules above it: whatever they
 * import statically must be inside them (or be Node's own).
 */
function loadInNode(bundleDirs: readonly string[]): string[][] {
  const urls = bundleDirs.map((dir) => pathToFileURL(join(dir, 'index.mjs')).href);
  const script = `const keys = [];
    for (const url of ${JSON.stringify(urls)}) keys.push(Object.keys(await import(url)));
    process.stdout.write(JSON.stringify(keys));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }),
  );
}

describe('function bundling (local esbuild, no Docker)', () => {
  it(
    'produces a runnable ESM bundle: require banner, source map, the AWS SDK inside, local engines external',
    async () => {
      const route: RouteDefinition = {
        method: 'GET',
        path: '/v1/fixture',
        entry: FIXTURE_ENTRY,
        handler: 'handler',
        functionName: 'Fixture',
      };
      const { bundles } = synthWithBundling([route]);
      const dir = bundles.get('Fixture')!;
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');

      // Run it like Lambda does: plain Node ESM in its own process (vitest's module runner would
      // supply a `require` and hide a missing banner), with no node_modules to resolve from: the
      // SDK has to be in the bundle.
      const script = `const m = await import(${JSON.stringify(pathToFileURL(join(dir, 'index.mjs')).href)});
        process.stdout.write(JSON.stringify(await m.handler({})));`;
      const response = JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], {
          encoding: 'utf8',
          cwd: dir,
        }),
      ) as { statusCode: number; body: string };
      expect(response.statusCode).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ platform: process.platform, sdk: 'function' });

      expect(code.startsWith('import { createRequire as __cdkCreateRequire }')).toBe(true);
      expect(existsSync(join(dir, 'index.mjs.map'))).toBe(true);
      expect(staticImportsOf(code).filter((m) => LOCAL_ONLY.test(m))).toEqual([]);
      expect(code).toMatch(/import\(\s*["']@duckdb\/node-api["']\s*\)/);
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'bundles every route entry and the node runner, exporting their handlers, without static imports of local-only modules',
    () => {
      // Routes sharing an entry file get identical bundles: bundle one route per entry.
      const onePerEntry = routes.filter((r, i) => routes.findIndex((o) => o.entry === r.entry) === i);
      const { bundles } = synthWithBundling(onePerEntry);
      // A cold start of each, the node runner last: it loads from its bundle alone (SDK inside).
      const loaded = loadInNode([
        ...onePerEntry.map((r) => bundles.get(r.functionName)!),
        bundles.get(RUNNER)!,
      ]);
      onePerEntry.forEach((first, i) => {
        const code = readFileSync(join(bundles.get(first.functionName)!, 'index.mjs'), 'utf8');
        expect(
          staticImportsOf(code).filter((m) => LOCAL_ONLY.test(m)),
          first.entry,
        ).toEqual([]);
        if (first.entry === 'functions/mcp/handler.ts') {
          // The function reference is static data: the MCP Lambda never loads DuckDB, even on demand.
          expect(code, first.entry).not.toContain('@duckdb/');
        }
        for (const route of routes.filter((r) => r.entry === first.entry)) {
          expect(loaded[i], `${route.entry} exports ${route.handler}`).toContain(route.handler);
        }
      });

      const runnerCode = readFileSync(join(bundles.get(RUNNER)!, 'index.mjs'), 'utf8');
      expect(
        staticImportsOf(runnerCode).filter((m) => LOCAL_ONLY.test(m)),
        RUNNER_ENTRY,
      ).toEqual([]);
      expect(loaded.at(-1)).toContain(RUNNER_HANDLER);
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'ships the README and docs/ in the MCP bundle, where searchDocs finds them; keeps function names',
    async () => {
      const mcp = routes.find((r) => r.entry === 'functions/mcp/handler.ts')!;
      const { bundles } = synthWithBundling([mcp]);
      const dir = bundles.get(mcp.functionName)!;
      expect(existsSync(join(dir, 'README.md'))).toBe(true);
      expect(existsSync(join(dir, 'docs', 'aws.md'))).toBe(true);
      expect(readFileSync(join(dir, 'docs', 'aws.md'), 'utf8')).toBe(
        readFileSync(join(REPO_ROOT, 'docs', 'aws.md'), 'utf8'),
      );
      // The index built from the bundle directory (as the bundled module resolves it) has the docs.
      const { searchDocs } = await import('../../functions/mcp/docs-search');
      const hits = await searchDocs('Athena workgroup scan cutoff', 5, dir);
      expect(hits.some((hit) => hit.path.startsWith('docs/aws.md#'))).toBe(true);
      // keepNames: esbuild re-attaches the real names (`static{a(this,"BadRequestError")}`).
      expect(readFileSync(join(dir, 'index.mjs'), 'utf8')).toMatch(/\(this,"BadRequestError"\)/);
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'ships resvg (WASM) and the chart fonts with the PNG renderers, and renders a PNG from the bundle alone',
    () => {
      const png = routes.find((r) => r.path.endsWith('/image.png'))!;
      const mcp = routes.find((r) => r.entry === 'functions/mcp/handler.ts')!;
      const { bundles } = synthWithBundling([png, mcp]);
      for (const name of [png.functionName, mcp.functionName]) {
        for (const file of RASTERIZER_FILES) {
          const shipped = join(bundles.get(name)!, file);
          expect(readFileSync(shipped).equals(readFileSync(join(REPO_ROOT, file))), `${name}: ${file}`).toBe(
            true,
          );
        }
      }
      // The same bundling options on a fixture that renders, run from the bundle alone.
      const answer = runBundledFixture('test/cdk/fixtures/png-handler.ts', RASTERIZER_FILES) as {
        png: string | null;
      };
      expect(answer.png).not.toBeNull();
      const bytes = Buffer.from(answer.png!, 'base64');
      expect([...bytes.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
      // 120×40 at zoom 1.5: the IHDR width and height.
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([180, 60]);
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    "ships polyglot's WASM with the runner, the pipeline routes and the MCP server, where the translator and the lineage parser load it",
    () => {
      const pipelines = routes.find((r) => r.entry === 'functions/pipelines/handlers.ts')!;
      // The MCP server translates a saved query's SQL to check it (createServiceQuery).
      const mcp = routes.find((r) => r.entry === 'functions/mcp/handler.ts')!;
      const { bundles } = synthWithBundling([pipelines, mcp]);
      const wasm = readFileSync(join(REPO_ROOT, POLYGLOT_WASM.from));
      for (const name of [pipelines.functionName, mcp.functionName, RUNNER]) {
        expect(readFileSync(join(bundles.get(name)!, POLYGLOT_WASM.to)).equals(wasm), name).toBe(true);
      }
      const answer = runBundledFixture('test/cdk/fixtures/sql-handler.ts', [POLYGLOT_WASM]) as {
        athena: string;
        tables: string[];
      };
      expect(answer.athena).toContain("X'deadbeef'");
      expect(answer.tables.sort()).toEqual(['dex.trades', 'mv.local.result_daily']);
    },
    BUNDLING_TIMEOUT_MS,
  );

  it(
    'ships the vendored RapiDoc bundle beside the API reference handler, where it looks for it',
    () => {
      const renderer = routes.find((r) => r.handler === 'apiReferenceRenderer')!;
      // A stack needs one route behind the authorizer; the MCP one is already bundled above.
      const mcp = routes.find((r) => r.entry === 'functions/mcp/handler.ts')!;
      const { bundles } = synthWithBundling([renderer, mcp]);
      const shipped = join(bundles.get(renderer.functionName)!, RAPIDOC_FILE);
      expect(readFileSync(shipped).equals(readFileSync(join(REPO_ROOT, RAPIDOC_FILE)))).toBe(true);
    },
    BUNDLING_TIMEOUT_MS,
  );
});
