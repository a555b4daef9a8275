/**
 * (e) A query pipeline on the sample data, end to end: six materialized views and a report query
 * forming a realistic lineage over `dex.trades`, `prices.usd` and `tokens.transfers`, created
 * through the REST API, then the report's pipeline run N times on the real local host
 * (aws-local-stepfunctions, the polling dependency gate, DuckDB). Reports the makespan against the
 * critical path of the measured node durations and the orchestration overhead per node.
 * Prints figures; asserts nothing; not part of `npm test`.
 *
 *   npx tsx test/bench/pipeline-real-data.ts [--scale 1] [--runs 21]
 *
 * Lineage (arrows point from a view to what reads it):
 *
 *   trades_daily ─────┬──────────────→ volume_eth ─────┐
 *   prices_daily ─────┼──┬───────────↗                 ├→ summary ─┐
 *   transfers_daily ──┼──┴──────────→ token_activity ──┘           ├→ report (query)
 *                     └────────────────────────────────────────────┘
 *
 * Definitions (per run; medians over runs in the summary):
 *   node      node started_at → ended_at as the runner records them: creating the execution,
 *             taking a slot, the engine run. A node ends when its execution does (since
 *             2026-11-29; before, once its outcome was recorded, which `post` measured): the
 *             recording now overlaps its dependents' start and counts in their hand-off.
 *   engine    the node's execution: execution_started_at → execution_ended_at
 *             (`result_metadata.execution_time_millis`); `engineMillis` is the runner's own clock.
 *   CP        critical path: the heaviest dependency chain with node weights = node durations
 *             (`CP engine`: weights = engine times).
 *   makespan  pipeline started_at (the first node starts) → ended_at (Finish recorded it).
 *   total     submitted_at → ended_at (adds validation, recording, workflow compile and start).
 *   wall      POST …/pipeline/execute → the status poll (every 20 ms) that saw it finished.
 *   overhead per node  (makespan − CP) / nodes on the critical path: what each dependency hop adds
 *             (gate poll, Choice, Run dispatch, the Finish task spread over the path).
 *   hand-off  per non-root node: its start − the latest end among its dependencies.
 */
import {
  type BenchHost,
  type Figure,
  type Json,
  median,
  ms,
  ratio,
  runBench,
  say,
  sleep,
  waitFinished,
} from './support';

const POLL_MS = 20;
/** Upper bound on one pipeline run, whatever happens. */
const RUN_TIMEOUT_MS = 10 * 60_000;
/** Upper bound on one view's first refresh. */
const REFRESH_TIMEOUT_MS = 5 * 60_000;
const MAX_RUNS = 50;
const FINISHED = new Set(['completed', 'failed', 'cancelled']);

/** The views, in an order where every view comes after the views it reads. */
const VIEWS: readonly { name: string; sql: string }[] = [
  {
    name: 'result_bench_trades_daily',
    sql: `select block_date as day, blockchain, count(*) as trades, sum(amount_usd) as volume_usd
          from dex.trades group by 1, 2`,
  },
  {
    name: 'result_bench_prices_daily',
    sql: `select cast(minute as date) as day, symbol, avg(price) as price, min(price) as low, max(price) as high
          from prices.usd group by 1, 2`,
  },
  {
    name: 'result_bench_transfers_daily',
    sql: `select block_date as day, symbol, count(*) as transfers, sum(amount) as amount,
                 sum(amount_usd) as amount_usd
          from tokens.transfers group by 1, 2`,
  },
  {
    name: 'result_bench_volume_eth',
    sql: `select t.day, t.blockchain, t.trades, t.volume_usd, t.volume_usd / p.price as volume_eth
          from mv.local.result_bench_trades_daily t
          join mv.local.result_bench_prices_daily p on p.day = t.day and p.symbol = 'WETH'`,
  },
  {
    name: 'result_bench_token_activity',
    sql: `select x.day, x.symbol, x.transfers, x.amount, x.amount_usd,
                 x.amount * p.price as amount_usd_at_daily_avg
          from mv.local.result_bench_transfers_daily x
          join mv.local.result_bench_prices_daily p on p.day = x.day and p.symbol = x.symbol`,
  },
  {
    name: 'result_bench_summary',
    sql: `with v as (
            select day, sum(trades) as trades, sum(volume_usd) as volume_usd, sum(volume_eth) as volume_eth
            from mv.local.result_bench_volume_eth group by 1
          ), a as (
            select day, sum(transfers) as transfers, sum(amount_usd) as transfer_usd, count(*) as tokens
            from mv.local.result_bench_token_activity group by 1
          )
          select v.day, v.trades, v.volume_usd, v.volume_eth, a.transfers, a.transfer_usd, a.tokens
          from v left join a on a.day = v.day`,
  },
];

const REPORT = {
  name: 'bench daily report',
  sql: `select t.day, t.blockchain, t.volume_usd, t.volume_usd / s.volume_usd as share_of_day,
               s.volume_eth, s.transfers, s.transfer_usd
        from mv.local.result_bench_trades_daily t
        join mv.local.result_bench_summary s on s.day = t.day
        order by t.day, t.blockchain`,
};

interface GraphNode {
  id: number;
  dependencies: number[];
  label: string;
}

interface NodeSample {
  id: number;
  label: string;
  dependencies: number[];
  status: string;
  /** ms since the pipeline's started_at. */
  start: number;
  end: number;
  node: number;
  engine: number;
  engineMillis: number;
  /** node start → execution started (create execution, slot). */
  pre: number;
  /** execution ended → node end (record outcome). */
  post: number;
  /** start − latest dependency end; for roots start − submitted_at. */
  handoff: number;
  credits: number;
}

interface RunSample {
  id: string;
  status: string;
  wall: number;
  total: number;
  makespan: number;
  startup: number;
  credits: number;
  polls: number;
  nodes: NodeSample[];
  cp: Path;
  cpEngine: Path;
}

interface Path {
  length: number;
  ids: number[];
}

/** The heaviest chain through the graph (node weights), with the nodes on it. */
function criticalPath(nodes: readonly GraphNode[], weight: (id: number) => number): Path {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const memo = new Map<number, Path>();
  const heaviestEndingAt = (id: number, depth = 0): Path => {
    if (depth > nodes.length) throw new Error('cycle in the pipeline graph');
    const known = memo.get(id);
    if (known) return known;
    let best: Path = { length: 0, ids: [] };
    for (const dep of byId.get(id)!.dependencies) {
      const path = heaviestEndingAt(dep, depth + 1);
      if (path.length > best.length) best = path;
    }
    const path = { length: best.length + weight(id), ids: [...best.ids, id] };
    memo.set(id, path);
    return path;
  };
  return nodes.map((n) => heaviestEndingAt(n.id)).reduce((a, b) => (b.length > a.length ? b : a));
}

const at = (iso: string | undefined) => (iso ? Date.parse(iso) : Number.NaN);
const short = (name: string) => name.replace(/^mv\.local\.result_bench_/, '').replace(/^result_bench_/, '');

async function createViews(bench: BenchHost): Promise<Map<string, number>> {
  const queryIds = new Map<string, number>();
  // Views whose inputs are all base tables or views already refreshed go together.
  const done = new Set<string>();
  const pending = [...VIEWS];
  for (let round = 0; pending.length > 0 && round < VIEWS.length; round++) {
    const ready = pending.filter((view) =>
      [...view.sql.matchAll(/mv\.local\.(result_[a-z0-9_]+)/g)].every((m) => done.has(m[1]!)),
    );
    const t0 = performance.now();
    const refreshed = await Promise.all(
      ready.map(async (view) => {
        const { query_id } = await bench.api('/v1/query', {
          json: { name: `bench ${short(view.name)}`, query_sql: view.sql, is_private: true },
        });
        queryIds.set(view.name, query_id);
        const upsert = await bench.api('/v1/materialized-views', {
          json: { name: view.name, query_id },
        });
        const { status } = await waitFinished(bench, upsert.execution_id, {
          everyMs: POLL_MS,
          timeoutMs: REFRESH_TIMEOUT_MS,
        });
        return { view, upsert, status };
      }),
    );
    for (const { view, upsert, status } of refreshed) {
      done.add(view.name);
      pending.splice(pending.indexOf(view), 1);
      const meta = status.result_metadata;
      say(
        `  ${upsert.name.padEnd(36)} query ${String(queryIds.get(view.name)).padStart(2)}: first refresh ` +
          `${String(meta?.row_count ?? '?').padStart(6)} rows, engine ${ms(meta?.execution_time_millis ?? Number.NaN)}, ` +
          `${status.execution_cost_credits} credits`,
      );
    }
    say(`  round ${round + 1}: ${ready.length} view(s) ready in ${ms(performance.now() - t0)}`);
  }
  if (pending.length) throw new Error(`views never became ready: ${pending.map((v) => v.name).join(', ')}`);
  return queryIds;
}

async function runPipeline(
  bench: BenchHost,
  rootId: number,
  graph: readonly GraphNode[],
): Promise<RunSample> {
  const t0 = performance.now();
  const { pipeline_execution_id: id } = await bench.api(`/v1/query/${rootId}/pipeline/execute`, {
    json: {},
  });
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  let status: Json;
  let polls = 0;
  for (;;) {
    status = await bench.api(`/v1/pipelines/executions/${id}/status`);
    polls++;
    if (FINISHED.has(status.status)) break;
    if (Date.now() > deadline) throw new Error(`pipeline ${id} still ${status.status} after timeout`);
    await sleep(POLL_MS);
  }
  const wall = performance.now() - t0;
  if (status.status !== 'completed') {
    throw new Error(`pipeline ${id} ended ${status.status}: ${JSON.stringify(status.error ?? status)}`);
  }
  const started = at(status.started_at);
  const labels = new Map(graph.map((n) => [n.id, n.label]));
  const raw = await Promise.all(
    (status.node_executions as Json[]).map(async (n) => {
      const s = n.query_execution_status ?? n.materialized_view_refresh_status;
      const exec = await bench.api(`/v1/execution/${s.execution_id}/status`);
      const stored = await bench.host.services.executions.get(s.execution_id);
      return { id: n.id as number, dependencies: n.dependencies as number[], s, exec, stored };
    }),
  );
  const ends = new Map(raw.map((r) => [r.id, at(r.s.ended_at)]));
  const nodes: NodeSample[] = raw.map(({ id: nodeId, dependencies, s, exec, stored }) => {
    const nodeStart = at(s.started_at);
    const nodeEnd = at(s.ended_at);
    const execStart = at(exec.execution_started_at);
    const execEnd = at(exec.execution_ended_at);
    const ready = dependencies.length
      ? Math.max(...dependencies.map((d) => ends.get(d)!))
      : at(status.submitted_at);
    return {
      id: nodeId,
      label: labels.get(nodeId) ?? String(nodeId),
      dependencies,
      status: s.status,
      start: nodeStart - started,
      end: nodeEnd - started,
      node: nodeEnd - nodeStart,
      engine: exec.result_metadata?.execution_time_millis ?? execEnd - execStart,
      engineMillis: stored?.engineMillis ?? Number.NaN,
      pre: execStart - nodeStart,
      post: nodeEnd - execEnd,
      handoff: nodeStart - ready,
      credits: s.execution_cost_credits,
    };
  });
  const byId = new Map(nodes.map((n) => [n.id, n]));
  return {
    id,
    status: status.status,
    wall,
    total: at(status.ended_at) - at(status.submitted_at),
    makespan: at(status.ended_at) - started,
    startup: started - at(status.submitted_at),
    credits: status.execution_cost_credits,
    polls,
    nodes,
    cp: criticalPath(graph, (n) => byId.get(n)!.node),
    cpEngine: criticalPath(graph, (n) => byId.get(n)!.engine),
  };
}

/**
 * The makespan split exactly along the critical path of node durations: engine + pre + post of
 * its nodes, and the gaps (first node's start offset, dependency end → next node's start on the
 * path, last node's end → pipeline finished).
 */
function splitAlongCp(run: RunSample): { engine: number; pre: number; post: number; gaps: number } {
  const byId = new Map(run.nodes.map((n) => [n.id, n]));
  const path = run.cp.ids.map((id) => byId.get(id)!);
  const sum = (f: (n: NodeSample) => number) => path.reduce((total, n) => total + f(n), 0);
  const gaps =
    path[0]!.start +
    path.slice(1).reduce((total, n, i) => total + (n.start - path[i]!.end), 0) +
    (run.makespan - path[path.length - 1]!.end);
  return { engine: sum((n) => n.engine), pre: sum((n) => n.pre), post: sum((n) => n.post), gaps };
}

function printRun(run: RunSample, index: number): void {
  const onCp = new Set(run.cp.ids);
  say(
    `\nrun ${index + 1} (${run.id}): ${run.status}, makespan ${ms(run.makespan)}, total ${ms(run.total)}, ` +
      `wall ${ms(run.wall)} (${run.polls} polls), start-up ${ms(run.startup)}, ${run.credits} credits`,
  );
  const header = [
    'node',
    'deps',
    'start',
    'end',
    'node ms',
    'engine',
    'engineMs',
    'pre',
    'post',
    'hand-off',
    'credits',
  ];
  const rows = [...run.nodes]
    .sort((a, b) => a.start - b.start)
    .map((n) => [
      `${onCp.has(n.id) ? '*' : ' '}${n.id} ${n.label}`,
      n.dependencies.join(',') || '–',
      n.start.toFixed(0),
      n.end.toFixed(0),
      n.node.toFixed(0),
      n.engine.toFixed(0),
      n.engineMillis.toFixed(0),
      n.pre.toFixed(0),
      n.post.toFixed(0),
      n.handoff.toFixed(0),
      String(n.credits),
    ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  say(`  ${line(header)}`);
  for (const row of rows) say(`  ${line(row)}`);
  const hops = run.cp.ids.length;
  say(
    `  CP (node durations) ${ms(run.cp.length)} over ${hops} nodes [${run.cp.ids.join(' → ')}]; ` +
      `makespan/CP ${ratio(run.makespan, run.cp.length)}, overhead per node ${ms((run.makespan - run.cp.length) / hops)}`,
  );
  say(
    `  CP (engine times)   ${ms(run.cpEngine.length)} over ${run.cpEngine.ids.length} nodes [${run.cpEngine.ids.join(' → ')}]; ` +
      `makespan/CP ${ratio(run.makespan, run.cpEngine.length)}, overhead per node ${ms((run.makespan - run.cpEngine.length) / run.cpEngine.ids.length)}`,
  );
  const split = splitAlongCp(run);
  say(
    `  makespan along the CP: engine ${ms(split.engine)} + pre ${ms(split.pre)} + post ${ms(split.post)} + gaps ${ms(split.gaps)}`,
  );
}

async function body(bench: BenchHost, runs: number): Promise<Figure[]> {
  say('creating the views (each waits for its first refresh):');
  const queryIds = await createViews(bench);
  const { query_id: rootId } = await bench.api('/v1/query', {
    json: { name: REPORT.name, query_sql: REPORT.sql, is_private: true },
  });
  const names = new Map([...queryIds].map(([name, queryId]) => [queryId, name]));

  const definition = await bench.api(`/v1/query/${rootId}/pipeline`);
  const graph: GraphNode[] = (definition.pipeline.nodes as Json[]).map((n) => ({
    id: n.id,
    dependencies: n.dependencies,
    label: n.materialized_view_refresh
      ? `refresh ${short(n.materialized_view_refresh.name)}`
      : `query ${n.query_execution.query_id}${n.query_execution.query_id === rootId ? ' (report)' : ` ${short(names.get(n.query_execution.query_id) ?? '')}`}`,
  }));
  say(`\npipeline of query ${rootId} (GET /v1/query/${rootId}/pipeline):`);
  for (const node of graph) {
    say(`  node ${node.id}: ${node.label.padEnd(32)} depends on [${node.dependencies.join(', ')}]`);
  }
  say(`  execution_order: ${JSON.stringify(definition.execution_order)}`);
  say(`  estimated_bytes_scanned: ${definition.estimated_bytes_scanned.toLocaleString('en-US')}`);

  const samples: RunSample[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await runPipeline(bench, rootId, graph);
    printRun(run, i);
    samples.push(run);
  }

  const pick = (f: (run: RunSample) => number) => median(samples.map(f));
  const allNodes = samples.flatMap((s) => s.nodes);
  const nonRoot = allNodes.filter((n) => n.dependencies.length > 0);
  const makespan = pick((r) => r.makespan);
  const cp = pick((r) => r.cp.length);
  const cpEngine = pick((r) => r.cpEngine.length);
  const overhead = pick((r) => (r.makespan - r.cp.length) / r.cp.ids.length);
  const overheadEngine = pick((r) => (r.makespan - r.cpEngine.length) / r.cpEngine.ids.length);
  const n = `median of ${samples.length}`;
  const levels = (definition.execution_order as number[][]).length;
  const medianRun = [...samples].sort((a, b) => a.makespan - b.makespan)[
    Math.floor((samples.length - 1) / 2)
  ]!;
  const split = splitAlongCp(medianRun);
  say(
    `\nper run (makespan / CP / overhead per node): ${samples
      .map(
        (r) => `${ms(r.makespan)} / ${ms(r.cp.length)} / ${ms((r.makespan - r.cp.length) / r.cp.ids.length)}`,
      )
      .join('; ')}`,
  );
  return [
    {
      bench: '(e) pipeline',
      measure: `makespan (first node start → finished) vs CP of node durations, ${n}`,
      value: ms(makespan),
      baseline: `${ms(cp)} CP (${samples[0]!.cp.ids.length} nodes)`,
      ratio: ratio(makespan, cp),
    },
    {
      bench: '(e) pipeline',
      measure: 'overhead per node on the CP: (makespan − CP) / CP nodes',
      value: ms(overhead),
      baseline: `${ms(overheadEngine)} vs CP of engine times`,
    },
    {
      bench: '(e) pipeline',
      measure: 'makespan split along the CP (the median run)',
      value: `engine ${ms(split.engine)}, pre ${ms(split.pre)}`,
      baseline: `post ${ms(split.post)}, gaps ${ms(split.gaps)}`,
    },
    {
      bench: '(e) pipeline',
      measure: `makespan vs CP of engine times (execution_time_millis), ${n}`,
      value: ms(makespan),
      baseline: `${ms(cpEngine)} CP engine`,
      ratio: ratio(makespan, cpEngine),
    },
    {
      bench: '(e) pipeline',
      measure: `total (submitted → finished) and wall (POST → poll saw it), ${n}`,
      value: `${ms(pick((r) => r.total))}, wall ${ms(pick((r) => r.wall))}`,
      baseline: `start-up ${ms(pick((r) => r.startup))}`,
    },
    {
      bench: '(e) pipeline',
      measure: `per node (${graph.length} nodes, ${levels} levels), medians over runs`,
      value: `node ${ms(median(allNodes.map((x) => x.node)))}, engine ${ms(median(allNodes.map((x) => x.engine)))}`,
      baseline: `pre ${ms(median(allNodes.map((x) => x.pre)))}, post ${ms(median(allNodes.map((x) => x.post)))}`,
    },
    {
      bench: '(e) pipeline',
      measure: 'hand-off: dependency end → node start (non-root nodes), p50 / max',
      value: `${ms(median(nonRoot.map((x) => x.handoff)))} / ${ms(Math.max(...nonRoot.map((x) => x.handoff)))}`,
    },
    {
      bench: '(e) pipeline',
      measure: 'credits per pipeline run',
      value: `${pick((r) => r.credits)}`,
      baseline: `engine Σ ${ms(pick((r) => r.nodes.reduce((sum, x) => sum + x.engineMillis, 0)))}`,
    },
  ];
}

/**
 * Runs by default: the median of 21 moved by a few ms between benches of the same code, the
 * median of 5 by ±30 ms (a run is 150–400 ms on 2 cores, with outliers).
 */
const DEFAULT_RUNS = 21;

/** Takes `--runs N` out of the arguments; the rest are the common ones (`--scale`, `--summary-file`). */
function parseRuns(argv: string[]): { runs: number; rest: string[] } {
  const index = argv.indexOf('--runs');
  if (index < 0) return { runs: DEFAULT_RUNS, rest: argv };
  const runs = Number(argv[index + 1]);
  if (!Number.isInteger(runs) || runs < 1 || runs > MAX_RUNS) {
    throw new Error(`--runs must be an integer between 1 and ${MAX_RUNS}`);
  }
  return { runs, rest: [...argv.slice(0, index), ...argv.slice(index + 2)] };
}

const { runs, rest } = parseRuns(process.argv.slice(2));
say(`pipeline-real-data: ${runs} runs`);
await runBench('pipeline-real-data', (bench) => body(bench, runs), rest);
