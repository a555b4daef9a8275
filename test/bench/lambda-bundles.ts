/**
 * (i) Lambda bundles: what `cdk synth` ships per function and what a cold start pays to load it.
 * Synthesizes the service with real bundling (local esbuild), then for one function per handler
 * file: the bundle's size (index.mjs, and with the files it reads at run time), and the time a
 * fresh Node process takes to import it (median of 5; the bundles carry the AWS SDK, so they are
 * imported from a directory with no node_modules, as in Lambda), against a minimal bundle (one
 * DynamoDB client and a CommonJS dependency) measured the same way in the same run. Last, the
 * lineage parser's cold start: loading polyglot's WASM and the first parse, in a fresh process.
 *
 *   npx tsx test/bench/lambda-bundles.ts          (also: npm run bench -- --only lambda-bundles)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { routes } from '../../functions/routes';
import { functionBundling } from '../../lib/constructs/service-function';
import { REPO_ROOT } from '../../lib/paths';
import { ServiceStack } from '../../lib/service-stack';
import { cdkJsonContext, FIXTURE_ENTRY } from '../cdk/helpers';
import { type Figure, median, mib, ms, parseArgs, printTable, ratio, say } from './support';

const RUNS = 5;
const started = performance.now();
const outdir = mkdtempSync(join(tmpdir(), 'bench-bundles-'));
process.env.CDK_DOCKER = '/nonexistent/docker-must-not-be-used';
try {
  say('[synth] the service stack with bundling (one function per handler file) and a minimal fixture');
  const app = new App({ outdir, context: cdkJsonContext() });
  const onePerEntry = routes.filter((r, i) => routes.findIndex((o) => o.entry === r.entry) === i);
  const service = new ServiceStack(app, 'BundleBench', { routes: onePerEntry });
  const fixtureStack = new Stack(app, 'BundleBenchFixture');
  const fixture = new NodejsFunction(fixtureStack, 'Minimal', {
    entry: join(REPO_ROOT, FIXTURE_ENTRY),
    runtime: Runtime.NODEJS_22_X,
    bundling: functionBundling(),
    depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
    projectRoot: REPO_ROOT,
  });
  app.synth();
  const assetDir = (stack: Stack, fn: { node: { defaultChild?: unknown } }) => {
    const id = stack.getLogicalId(fn.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
    const code = Template.fromStack(stack).toJSON().Resources[id].Properties.Code as { S3Key: string };
    return join(outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
  };
  const entryOf = new Map(onePerEntry.map((r) => [r.functionName, r.entry]));
  const bundles = [
    ...[...service.api.functions].map(([name, fn]) => ({
      name: entryOf.get(name) ?? name,
      dir: assetDir(service, fn),
    })),
    { name: 'functions/runner/handler.ts (node runner)', dir: assetDir(service, service.executions.runner) },
  ];
  const baselineDir = assetDir(fixtureStack, fixture);
  const baseline = coldImport(baselineDir);
  say(`minimal bundle: ${mib(statSync(join(baselineDir, 'index.mjs')).size)}, cold import ${ms(baseline)}`);

  const measured = bundles.map(({ name, dir }) => {
    const code = readFileSync(join(dir, 'index.mjs'));
    const row = {
      name,
      indexBytes: code.length,
      gzipBytes: gzipSync(code).length,
      totalBytes: directoryBytes(dir, (file) => !file.endsWith('.map')),
      importMs: coldImport(dir),
    };
    say(
      `  ${name}: index.mjs ${mib(row.indexBytes)} (gzip ${mib(row.gzipBytes)}), with files ${mib(row.totalBytes)}, cold import ${ms(row.importMs)}`,
    );
    return row;
  });
  const largest = [...measured].sort((a, b) => b.totalBytes - a.totalBytes).slice(0, 4);
  const slowest = [...measured].sort((a, b) => b.importMs - a.importMs).slice(0, 4);
  const parser = lineageParserColdStart();
  say(
    `lineage parser: polyglot load ${ms(parser.load)}, first parse ${ms(parser.first)}, RSS ${mib(parser.rss)}`,
  );

  const bench = '(i) bundles';
  const figures: Figure[] = [
    ...largest.map((row) => ({
      bench,
      measure: `largest: ${row.name} (index.mjs / gzip / with run-time files)`,
      value: `${mib(row.indexBytes)} / ${mib(row.gzipBytes)} / ${mib(row.totalBytes)}`,
    })),
    ...slowest.map((row) => ({
      bench,
      measure: `slowest cold import (median of ${RUNS}): ${row.name}`,
      value: ms(row.importMs),
      baseline: `${ms(baseline)} minimal bundle`,
      ratio: ratio(row.importMs, baseline),
    })),
    ...measured
      .filter((row) => row.name === 'functions/mcp/handler.ts')
      .map((row) => ({
        bench,
        measure: `MCP server cold import (median of ${RUNS})`,
        value: ms(row.importMs),
        baseline: `${ms(baseline)} minimal bundle`,
        ratio: ratio(row.importMs, baseline),
      })),
    {
      bench,
      measure: 'all handler bundles: total index.mjs, largest, median cold import',
      value: `${mib(measured.reduce((sum, row) => sum + row.indexBytes, 0))}, ${mib(Math.max(...measured.map((r) => r.indexBytes)))}`,
      baseline: `${ms(median(measured.map((r) => r.importMs)))} median import`,
    },
    {
      bench,
      measure: 'lineage parser cold start in a fresh process: polyglot load + first parse',
      value: `${ms(parser.load)} + ${ms(parser.first)}`,
      baseline: `RSS ${mib(parser.rss)}`,
    },
  ];
  say('');
  printTable(figures);
  const seconds = (performance.now() - started) / 1000;
  say(`lambda-bundles took ${seconds.toFixed(1)} s`);
  // run-all collects the figures from this file (as runBench does for the host benchmarks).
  const { summaryFile } = parseArgs();
  if (summaryFile)
    writeFileSync(summaryFile, JSON.stringify({ name: 'lambda-bundles', seconds, figures }, null, 2));
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

/** Median time for a fresh Node process to import the bundle (module evaluation included). */
function coldImport(dir: string): number {
  const url = pathToFileURL(join(dir, 'index.mjs')).href;
  const script = `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`;
  const times = Array.from({ length: RUNS }, () =>
    Number(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: dir }),
    ),
  );
  return median(times);
}

function directoryBytes(dir: string, include: (file: string) => boolean): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && include(entry.name)) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** What the first lineage request of a Lambda instance pays: the parser module, its WASM, one parse. */
function lineageParserColdStart(): { load: number; first: number; rss: number } {
  const script = `
    const t0 = performance.now();
    const polyglot = await import('@polyglot-sql/sdk');
    const t1 = performance.now();
    const parsed = polyglot.parse('SELECT a FROM mv.local.result_x JOIN dex.trades USING (tx_hash)', polyglot.Dialect.Trino);
    if (!parsed.success) throw new Error('parse failed');
    const t2 = performance.now();
    process.stdout.write(JSON.stringify({ load: t1 - t0, first: t2 - t1, rss: process.memoryUsage.rss() }));`;
  const runs = Array.from(
    { length: 3 },
    () =>
      JSON.parse(
        execFileSync(process.execPath, ['--input-type=module', '-e', script], {
          encoding: 'utf8',
          cwd: REPO_ROOT,
        }),
      ) as {
        load: number;
        first: number;
        rss: number;
      },
  );
  return {
    load: median(runs.map((r) => r.load)),
    first: median(runs.map((r) => r.first)),
    rss: median(runs.map((r) => r.rss)),
  };
}
