import { existsSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import type { TableStats } from '../../core/catalog';
import { BASE_TABLES } from '../../datasets/base-tables';
import { DEFAULT_SAMPLE_SEED, generateSampleData } from './generate';
import { measureTableStats } from './table-stats';

const USAGE = `Builds the sample onchain warehouse (a DuckDB file).

Usage: npm run generate-data -- [--scale 1] [--seed ${DEFAULT_SAMPLE_SEED}] [--build-date YYYY-MM-DD] [--out .data/warehouse.duckdb] [--force]

  --scale  volume multiplier (1 = >= 100k transactions per EVM chain)
  --seed   pseudo-random seed; the same seed, scale and build date give identical data
  --build-date  UTC day the data ends at (exclusive; default today): the window is the 30 days before it
  --out    output file (refuses to overwrite an existing file unless --force)`;

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(1);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      scale: { type: 'string', default: '1' },
      seed: { type: 'string', default: String(DEFAULT_SAMPLE_SEED) },
      'build-date': { type: 'string' },
      out: { type: 'string', default: '.data/warehouse.duckdb' },
      force: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const scale = Number(values.scale);
  const seed = Number(values.seed);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`--scale must be a positive number\n\n${USAGE}`);
  if (!Number.isSafeInteger(seed)) throw new Error(`--seed must be an integer\n\n${USAGE}`);
  const out = resolve(values.out);
  if (existsSync(out)) {
    if (!values.force) {
      console.error(`${out} already exists; pass --force to overwrite it.`);
      return 1;
    }
    await rm(out, { force: true });
  }
  await rm(`${out}.wal`, { force: true });
  await mkdir(dirname(out), { recursive: true });

  console.log(`Generating sample data (scale ${scale}, seed ${seed}) into ${out} ...`);
  const started = performance.now();
  const instance = await DuckDBInstance.create(out);
  let built: number;
  let measured: number;
  let stats: TableStats[];
  try {
    const connection = await instance.connect();
    try {
      const plan = await generateSampleData(connection, {
        scale,
        seed,
        buildDate: values['build-date'],
        onPhase: (phase, millis) => console.log(`  ${phase.padEnd(20)} ${(millis / 1000).toFixed(1)} s`),
      });
      console.log(`  window ${plan.window.start} to ${plan.window.end} UTC (end exclusive)`);
      const checkpointStarted = performance.now();
      await connection.run('CHECKPOINT');
      console.log(
        `  ${'checkpoint'.padEnd(20)} ${((performance.now() - checkpointStarted) / 1000).toFixed(1)} s`,
      );
      built = performance.now();
      stats = await measureTableStats(connection, BASE_TABLES);
      measured = performance.now();
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }

  const width = Math.max(...stats.map((entry) => entry.fullName.length));
  const line = (name: string, rows: number, bytes: number) =>
    `${name.padEnd(width)}  ${rows.toLocaleString('en-US').padStart(10)}  ${mb(bytes).padStart(9)}`;
  console.log(`\n${'table'.padEnd(width)}  ${'rows'.padStart(10)}  ${'size MB'.padStart(9)}`);
  for (const entry of stats) console.log(line(entry.fullName, entry.rowCount, entry.sizeBytes));
  console.log(
    line(
      'total',
      stats.reduce((sum, entry) => sum + entry.rowCount, 0),
      stats.reduce((sum, entry) => sum + entry.sizeBytes, 0),
    ),
  );
  const file = await stat(out);
  console.log(
    `\nBuilt in ${((built - started) / 1000).toFixed(1)} s (generate + checkpoint), ` +
      `statistics in ${((measured - built) / 1000).toFixed(1)} s; file ${mb(file.size)} MB ` +
      '(table sizes are uncompressed full-scan estimates).',
  );
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
