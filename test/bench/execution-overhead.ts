/**
 * (a) End-to-end overhead of an execution: POST /v1/sql/execute → poll /status every 10 ms → read
 * every results page (limit 30000, following next_offset), against the same SQL run directly on
 * DuckDB over the same warehouse file (the service's DuneSQL translated once, outside the timing,
 * its session setup run on each connection). Two queries: a cheap one and an aggregation over the
 * largest sample table. Each is measured twice on the same host: just after it started (runs 3–12)
 * and warm (runs 41–60), since a host that has served a few dozen queries answers faster (its
 * JavaScript compiled, its caches filled).
 *
 *   npx tsx test/bench/execution-overhead.ts [--scale N]
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { translate } from '../../functions/dunesql';
import {
  type BenchHost,
  type Figure,
  median,
  ms,
  percentile,
  ratio,
  runBench,
  say,
  submitSql,
  waitFinished,
} from './support';

/**
 * Runs after the host started: the first two are dropped, the next ten are the "just started"
 * figures (JIT-cold code, as every earlier session measured), and the runs after WARM_AFTER are
 * the warm host's, as a host that has served a few dozen queries answers.
 */
const COLD_SKIP = 2;
const COLD_RUNS = 10;
const WARM_AFTER = 40;
const WARM_RUNS = 20;
const POLL_MS = 10;
/** Upper bound on the whole measuring loop of one query, whatever happens. */
const QUERY_BUDGET_MS = 5 * 60_000;
/** The medium tier's engine settings (DEFAULT_TIERS.medium), so both paths get the same engine. */
const DIRECT_CONFIG = { access_mode: 'READ_ONLY', threads: '1', memory_limit: '1GB' } as const;

interface ServiceSample {
  total: number;
  submit: number;
  /** submitted_at → execution_started_at (workflow start, slot, state write). */
  queued: number;
  /** Engine time as recorded by the runner (sandbox open, bind, COPY to Parquet). */
  engine: number;
  /** execution_ended_at → the poll that saw it finished. */
  detect: number;
  results: number;
  polls: number;
  pages: number;
  rows: number;
}

async function serviceRun(bench: BenchHost, sql: string): Promise<ServiceSample> {
  const t0 = performance.now();
  const executionId = await submitSql(bench, sql);
  const t1 = performance.now();
  const { status, polls } = await waitFinished(bench, executionId, { everyMs: POLL_MS });
  const seenAt = Date.now();
  const t2 = performance.now();
  let rows = 0;
  let pages = 0;
  let offset: number | undefined = 0;
  while (offset !== undefined && pages < 1000) {
    const page = await bench.api(`/v1/execution/${executionId}/results?limit=30000&offset=${offset}`);
    rows += page.result.rows.length;
    pages++;
    offset = page.next_offset;
  }
  const t3 = performance.now();
  const execution = await bench.host.services.executions.get(executionId);
  return {
    total: t3 - t0,
    submit: t1 - t0,
    queued: Date.parse(status.execution_started_at) - Date.parse(status.submitted_at),
    engine: execution?.engineMillis ?? Number.NaN,
    detect: seenAt - Date.parse(status.execution_ended_at),
    results: t3 - t2,
    polls,
    pages,
    rows,
  };
}

/** The DuneSQL statement as DuckDB runs it: the session setup it needs, then the statement. */
interface DuckDbStatement {
  setup: string;
  sql: string;
}

async function directRun(
  instance: DuckDBInstance,
  { setup, sql }: DuckDbStatement,
): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const connection = await instance.connect();
  try {
    await connection.run(setup);
    const rows = (await connection.runAndReadAll(sql)).getRows();
    return { ms: performance.now() - t0, rows: rows.length };
  } finally {
    connection.closeSync();
  }
}

/** What the service pays per run on top of the query: a fresh instance (catalog load) each time. */
async function directFreshRun(
  path: string,
  { setup, sql }: DuckDbStatement,
): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const instance = await DuckDBInstance.create(path, DIRECT_CONFIG);
  try {
    const connection = await instance.connect();
    await connection.run(setup);
    const rows = (await connection.runAndReadAll(sql)).getRows();
    connection.closeSync();
    return { ms: performance.now() - t0, rows: rows.length };
  } finally {
    instance.closeSync();
  }
}

/** The largest sample table by rows, and an aggregation over it by day with sums. */
function aggregationOverLargest(bench: BenchHost): { table: string; rows: number; sql: string } {
  const stats = [...bench.host.warehouse.manifest.stats].sort((a, b) => b.rowCount - a.rowCount);
  const largest = stats[0]!;
  const columns = Object.keys(largest.columnBytes);
  const time = ['minute', 'block_time', 'evt_block_time', 'time'].find((c) => columns.includes(c));
  const measures = ['price', 'amount_usd', 'gas_used', 'amount', 'value', 'fee', 'index'].filter((c) =>
    columns.includes(c),
  );
  if (!time || measures.length === 0) {
    throw new Error(`no time/measure columns known for ${largest.fullName}: ${columns.join(', ')}`);
  }
  const groups = ['blockchain', 'symbol', 'contract_address'].filter((c) => columns.includes(c)).slice(0, 2);
  const sums = measures
    .slice(0, 2)
    .map((m) => `sum(${m}) as sum_${m}, max(${m}) as max_${m}`)
    .join(', ');
  const keys = Array.from({ length: groups.length + 1 }, (_, i) => i + 1).join(', ');
  const sql =
    `select date_trunc('day', ${time}) as day${groups.map((g) => `, ${g}`).join('')}, count(*) as n, ${sums} ` +
    `from ${largest.fullName} group by ${keys} order by ${keys}`;
  return { table: largest.fullName, rows: largest.rowCount, sql };
}

/** The figures of one phase: end to end vs direct (median, p90), vs a fresh instance, the split. */
function phaseFigures(
  label: string,
  runs: readonly { service: ServiceSample; direct: number; fresh: number }[],
): Figure[] {
  const pick = (key: keyof ServiceSample) => runs.map((run) => run.service[key]);
  const total = pick('total');
  const direct = runs.map((run) => run.direct);
  const fresh = runs.map((run) => run.fresh);
  return [
    {
      bench: '(a) e2e',
      measure: `${label}: median (${runs.length} runs)`,
      value: ms(median(total)),
      baseline: `${ms(median(direct))} direct`,
      ratio: ratio(median(total), median(direct)),
    },
    {
      bench: '(a) e2e',
      measure: `${label}: difference of medians`,
      value: `+${ms(median(total) - median(direct))}`,
      baseline: `${ms(median(direct))} direct`,
    },
    {
      bench: '(a) e2e',
      measure: `${label}: p90`,
      value: ms(percentile(total, 90)),
      baseline: `${ms(percentile(direct, 90))} direct`,
      ratio: ratio(percentile(total, 90), percentile(direct, 90)),
    },
    {
      bench: '(a) e2e',
      measure: `${label}: median vs fresh DuckDB instance per run`,
      value: ms(median(total)),
      baseline: `${ms(median(fresh))} fresh`,
      ratio: ratio(median(total), median(fresh)),
    },
    {
      bench: '(a) e2e',
      measure: `${label}: where the time goes (medians)`,
      value:
        `submit ${ms(median(pick('submit')))}, queued ${median(pick('queued'))} ms, ` +
        `engine ${median(pick('engine'))} ms, detect ${median(pick('detect'))} ms, ` +
        `results ${ms(median(pick('results')))}, ${median(pick('polls'))} polls`,
    },
  ];
}

await runBench('execution-overhead', async (bench) => {
  const largest = aggregationOverLargest(bench);
  say(`largest table: ${largest.table} (${largest.rows.toLocaleString('en-US')} rows)`);
  const queries = [
    { label: 'cheap', sql: "select count(*) as n from prices.usd where symbol = 'WETH'" },
    { label: `agg ${largest.table}`, sql: largest.sql },
  ];
  const path = bench.host.warehouse.path;
  const shared = await DuckDBInstance.create(path, DIRECT_CONFIG);
  const figures: Figure[] = [];
  try {
    for (const query of queries) {
      say(`\n[${query.label}] ${query.sql}`);
      const translation = await translate(query.sql, 'duckdb');
      const statement = { setup: translation.sessionSetup, sql: translation.sql };
      const runs: { service: ServiceSample; direct: number; fresh: number }[] = [];
      const deadline = Date.now() + QUERY_BUDGET_MS;
      for (let i = 0; i < WARM_AFTER + WARM_RUNS && Date.now() < deadline; i++) {
        const s = await serviceRun(bench, query.sql);
        const d = await directRun(shared, statement);
        const f = await directFreshRun(path, statement);
        if (s.rows !== d.rows || f.rows !== d.rows) {
          throw new Error(`row counts differ: service ${s.rows}, direct ${d.rows}, fresh ${f.rows}`);
        }
        runs.push({ service: s, direct: d.ms, fresh: f.ms });
        const measured =
          i >= WARM_AFTER
            ? `warm run ${i - WARM_AFTER + 1}`
            : i >= COLD_SKIP && i < COLD_SKIP + COLD_RUNS
              ? `run ${i - COLD_SKIP + 1}`
              : undefined;
        if (measured) {
          say(
            `  ${measured}: service ${ms(s.total)} (submit ${ms(s.submit)}, queued ${s.queued} ms, ` +
              `engine ${s.engine} ms, detect ${s.detect} ms, ${s.polls} polls, results ${ms(s.results)} ` +
              `in ${s.pages} page(s), ${s.rows} rows) | direct ${ms(d.ms)} | direct fresh instance ${ms(f.ms)}`,
          );
        }
      }
      figures.push(
        ...phaseFigures(`${query.label}, warm host`, runs.slice(WARM_AFTER)),
        ...phaseFigures(`${query.label}, just started`, runs.slice(COLD_SKIP, COLD_SKIP + COLD_RUNS)),
      );
    }
  } finally {
    shared.closeSync();
  }
  return figures;
});
