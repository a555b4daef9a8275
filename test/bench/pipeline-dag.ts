/**
 * Pipeline DAG scheduling quality: random DAGs compiled to ASL (encoding D, ADR 0004) and run on
 * aws-local-stepfunctions against a simulated runner (nodes sleep their duration). Reports
 * makespan / critical path per size bucket, next to what a level-by-level schedule (encoding A) and
 * ready-set rounds (encoding E) would give on the same graphs, and the orchestration overhead.
 * Prints figures; asserts nothing; not part of `npm test`.
 *
 *   npx tsx test/bench/pipeline-dag.ts [--graphs 50] [--scale 1] [--seed 1] [--flat 1]
 *
 * 70 % of the graphs are deep (long chains), 30 % wide (many roots, often > 40 nodes ready at
 * once). Each graph runs with the default compilation (node branches grouped by 40); `--flat 1`
 * also runs it as one flat Parallel, to show what the local 40-branch cap costs. With the defaults
 * the run takes about 3 minutes (6 with --flat 1); --scale 0.5 halves the durations.
 *
 * Definitions (per graph, then mean / p90 / max over graphs):
 *   CP        critical path: heaviest dependency chain, node weights = simulated durations.
 *   makespan  run() → result resolved (the Finish task included; engine set-up and validation not).
 *   levels    Σ over topological levels of the longest node in the level (encoding A, zero overhead).
 *   ready-set Σ over levels of the level list-scheduled on 40 slots (encoding E: inline Map rounds,
 *             zero overhead; with unlimited slots it equals `levels`).
 *   cap40     zero-overhead makespan of a flat Parallel under the local engine's limit: branches
 *             start in topological order, at most 40 at once, each holding its slot from its start
 *             until its node ends (aws-local-stepfunctions runs branches through p-limit(40)).
 *   overhead/hop  (makespan − CP) / nodes on the critical path, grouped compilation: what each
 *             dependency hop adds to the makespan (gate answer → Choice → Run → node end).
 *   hand-off  per node: start_node called − (latest end among its dependencies, or run() for roots).
 */
import { StateMachine } from 'aws-local-stepfunctions';
import {
  criticalPathLength,
  dependencyGate,
  executionLevels,
  type NodeOutcome,
  type PipelineGraph,
  type PipelineNode,
  topologicalOrder,
} from '../../functions/core/pipeline-graph';
import {
  compilePipelineWorkflow,
  LOCAL_TASK_CONTEXT,
  pipelineRunnerInput,
  pipelineWorkflowInput,
} from '../../functions/core/pipeline-workflow';
import { taskStateNames } from '../../functions/core/workflows';

const LOCAL_PARALLEL_CAP = 40;
const RUNNER_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:local-node-runner';

interface Args {
  graphs: number;
  scale: number;
  seed: number;
  flat: number;
}

function parseArgs(argv = process.argv.slice(2)): Args {
  const args: Args = { graphs: 50, scale: 1, seed: 1, flat: 0 };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]?.replace(/^--/, '');
    const value = Number(argv[i + 1]);
    const known = name === 'graphs' || name === 'scale' || name === 'seed' || name === 'flat';
    if (!known || !Number.isFinite(value) || value < 0) {
      throw new Error(
        `Bad argument ${argv[i]} ${argv[i + 1]}; use --graphs N --scale X --seed N --flat 0|1.`,
      );
    }
    args[name] = value;
  }
  return args;
}

/** mulberry32: small deterministic PRNG. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface BenchGraph {
  graph: PipelineGraph;
  durations: Map<number, number>;
}

type Shape = 'deep' | 'wide';

/**
 * A random DAG: `size` nodes with shuffled ids placed in a random order. `deep`: each node depends
 * on 0–4 earlier nodes, mostly recent ones, so long chains form. `wide`: 0–2 dependencies on any
 * earlier node, so many roots and short chains (often more than 40 nodes ready at once).
 */
function randomDag(random: () => number, size: number, shape: Shape, scale: number): BenchGraph {
  const ids = Array.from({ length: size }, (_, i) => i + 1);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const nodes: PipelineNode[] = [];
  const durations = new Map<number, number>();
  ids.forEach((id, position) => {
    const deps = new Set<number>();
    const wanted = position === 0 ? 0 : Math.floor(random() * (shape === 'deep' ? 5 : 3));
    for (let k = 0; k < wanted; k++) {
      const window = shape === 'deep' && random() < 0.7 ? Math.min(position, 12) : position;
      deps.add(ids[position - 1 - Math.floor(random() * window)]!);
    }
    nodes.push({ id, dependencies: [...deps], queryExecution: { queryId: id, performance: 'medium' } });
    durations.set(id, Math.round((20 + random() * 180) * scale));
  });
  // Shuffle the node list too: the compiler must not rely on input order.
  nodes.sort(() => random() - 0.5);
  return { graph: { nodes }, durations };
}

/** Zero-overhead makespan of `durations` list-scheduled in order on `slots` parallel slots. */
function listSchedule(durations: number[], slots: number): number {
  const free: number[] = Array.from({ length: Math.min(slots, durations.length) }, () => 0);
  for (const duration of durations) {
    free.sort((a, b) => a - b);
    free[0]! += duration;
  }
  return Math.max(0, ...free);
}

/** Zero-overhead makespan with branches started in topological order, at most `cap` at a time. */
function cappedMakespan(graph: PipelineGraph, durations: Map<number, number>, cap: number): number {
  const deps = new Map(graph.nodes.map((n) => [n.id, n.dependencies]));
  const end = new Map<number, number>();
  const slotFree: number[] = Array.from({ length: cap }, () => 0); // times slots become free
  for (const id of topologicalOrder(graph)) {
    slotFree.sort((a, b) => a - b);
    const branchStart = slotFree[0]!;
    const ready = Math.max(0, ...deps.get(id)!.map((d) => end.get(d)!));
    const finish = Math.max(branchStart, ready) + durations.get(id)!;
    end.set(id, finish);
    slotFree[0] = finish;
  }
  return Math.max(...end.values());
}

function nodesOnCriticalPath(graph: PipelineGraph, durations: Map<number, number>): number {
  const deps = new Map(graph.nodes.map((n) => [n.id, n.dependencies]));
  const best = new Map<number, { end: number; count: number }>();
  for (const id of topologicalOrder(graph)) {
    let start = 0;
    let count = 0;
    for (const d of deps.get(id)!) {
      const b = best.get(d)!;
      if (b.end > start || (b.end === start && b.count > count)) ({ end: start, count } = b);
    }
    best.set(id, { end: start + durations.get(id)!, count: count + 1 });
  }
  return [...best.values()].reduce((a, b) => (b.end > a.end ? b : a)).count;
}

interface RunResult {
  makespan: number;
  /** Per node: dependencies done → start_node called. */
  handoffs: number[];
}

/** Runs the compiled ASL on aws-local-stepfunctions with a simulated runner. */
async function runOnLocalStepFunctions(
  { graph, durations }: BenchGraph,
  branchGroupSize?: number,
): Promise<RunResult> {
  const deps = new Map(graph.nodes.map((n) => [n.id, n.dependencies]));
  const outcome = new Map<number, NodeOutcome>();
  const ended = new Map<number, number>();
  const started = new Map<number, number>();
  const listeners = new Set<() => void>();
  let t0 = 0;

  const handler = async (raw: unknown): Promise<unknown> => {
    // Await_n receives {FunctionName, Payload}; the other Tasks the payload itself.
    const input = pipelineRunnerInput(raw);
    const id = input.node_id!;
    switch (input.action) {
      case 'await_dependencies':
        for (;;) {
          const gate = dependencyGate(deps.get(id)!.map((d) => outcome.get(d)));
          if (gate !== 'wait') return { proceed: gate === 'proceed' };
          await new Promise<void>((resolve) => {
            const listener = () => {
              listeners.delete(listener);
              resolve();
            };
            listeners.add(listener);
          });
        }
      case 'start_node':
        // The whole node in its Start Task: this measures the workflow's hand-offs, not polling.
        started.set(id, performance.now());
        await new Promise((resolve) => setTimeout(resolve, durations.get(id)!));
        ended.set(id, performance.now());
        outcome.set(id, 'succeeded');
        for (const listener of [...listeners]) listener();
        return { status: 'finished', polls: 0, wait_seconds: 0 };
      default:
        return {};
    }
  };

  const definition = compilePipelineWorkflow(graph, {
    runnerResource: RUNNER_ARN,
    nodeTimeoutSeconds: 60,
    awaitTimeoutSeconds: 600,
    branchGroupSize,
  });
  const machine = new StateMachine(definition as never, {
    validationOptions: { checkArn: true, checkPaths: true },
  });
  const names = taskStateNames(definition);
  t0 = performance.now();
  const execution = machine.run(pipelineWorkflowInput('bench') as never, {
    overrides: { taskResourceLocalHandlers: Object.fromEntries(names.map((n) => [n, handler])) as never },
    context: LOCAL_TASK_CONTEXT as never,
  });
  await execution.result;
  const makespan = performance.now() - t0;
  if (outcome.size !== graph.nodes.length) throw new Error('not every node ran');
  const ready = (n: PipelineNode) => Math.max(t0, ...n.dependencies.map((d) => ended.get(d)!));
  const handoffs = graph.nodes.map((n) => started.get(n.id)! - ready(n));
  return { makespan, handoffs };
}

interface Sample {
  size: number;
  cp: number;
  makespan: number;
  flatMakespan?: number;
  levels: number;
  readySet: number;
  cap40: number;
  hopOverhead: number;
  handoffs: number[];
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
const f = (value: number, digits = 3) => value.toFixed(digits);
const stats = (values: number[], digits = 3) =>
  values.length === 0
    ? '–'
    : `${f(mean(values), digits)} / ${f(quantile(values, 0.9), digits)} / ${f(Math.max(...values), digits)}`;

const COLUMNS: [string, number][] = [
  ['bucket', 10],
  ['n', 3],
  ['makespan/CP', 22],
  ['flat makespan/CP', 22],
  ['cap40/CP', 22],
  ['levels/CP (A)', 22],
  ['ready-set/CP (E)', 22],
  ['overhead/hop ms', 18],
  ['hand-off ms p50/p90', 20],
];

function row(cells: string[]): string {
  return cells
    .map((cell, i) => (i === 0 ? cell.padEnd(COLUMNS[i]![1]) : cell.padStart(COLUMNS[i]![1])))
    .join('  ');
}

function report(label: string, samples: Sample[]): void {
  if (samples.length === 0) return;
  const handoffs = samples.flatMap((s) => s.handoffs);
  const flat = samples.filter((s) => s.flatMakespan !== undefined);
  console.log(
    row([
      label,
      String(samples.length),
      stats(samples.map((s) => s.makespan / s.cp)),
      stats(flat.map((s) => s.flatMakespan! / s.cp)),
      stats(samples.map((s) => s.cap40 / s.cp)),
      stats(samples.map((s) => s.levels / s.cp)),
      stats(samples.map((s) => s.readySet / s.cp)),
      stats(
        samples.map((s) => s.hopOverhead),
        1,
      ),
      `${f(quantile(handoffs, 0.5), 1)} / ${f(quantile(handoffs, 0.9), 1)}`,
    ]),
  );
}

async function main(): Promise<void> {
  const args = parseArgs();
  const random = prng(args.seed);
  const samples: Sample[] = [];
  const started = performance.now();
  console.log(
    `pipeline DAG bench: ${args.graphs} random DAGs, 10–200 nodes, durations ${20 * args.scale}–${200 * args.scale} ms, seed ${args.seed}`,
  );
  for (let g = 0; g < args.graphs; g++) {
    const size = 10 + Math.floor(random() * 191);
    const shape: Shape = random() < 0.3 ? 'wide' : 'deep';
    const bench = randomDag(random, size, shape, args.scale);
    const duration = (id: number) => bench.durations.get(id)!;
    const cp = criticalPathLength(bench.graph, duration);
    const levels = executionLevels(bench.graph);
    const levelSum = levels.reduce((sum, level) => sum + Math.max(...level.map(duration)), 0);
    // Encoding E (ready-set rounds): round k runs exactly level k (a node becomes ready once the
    // round holding its last dependency ends), through an inline Map of at most 40 at a time.
    const readySet = levels.reduce((sum, level) => sum + listSchedule(level.map(duration), 40), 0);
    const cap40 = cappedMakespan(bench.graph, bench.durations, LOCAL_PARALLEL_CAP);
    const { makespan, handoffs } = await runOnLocalStepFunctions(bench);
    const flatMakespan = args.flat ? (await runOnLocalStepFunctions(bench, 10_000)).makespan : undefined;
    const hops = nodesOnCriticalPath(bench.graph, bench.durations);
    samples.push({
      size,
      cp,
      makespan,
      flatMakespan,
      levels: levelSum,
      readySet,
      cap40,
      hopOverhead: (makespan - cp) / hops,
      handoffs,
    });
    const widest = Math.max(...levels.map((l) => l.length));
    console.log(
      `  #${String(g + 1).padStart(2)} ${shape} ${String(size).padStart(3)} nodes, ${String(levels.length).padStart(2)} levels, widest ${String(widest).padStart(3)}: ` +
        `CP ${f(cp, 0)} ms, makespan ${f(makespan / cp)}x` +
        (flatMakespan === undefined ? '' : `, flat ${f(flatMakespan / cp)}x`) +
        `, cap40 ${f(cap40 / cp)}x, levels ${f(levelSum / cp)}x, ready-set ${f(readySet / cp)}x`,
    );
  }
  console.log('\nmean / p90 / max over graphs');
  console.log(row(COLUMNS.map(([name]) => name)));
  for (const [low, high] of [
    [10, 50],
    [51, 100],
    [101, 150],
    [151, 200],
  ] as const) {
    report(
      `${low}–${high}`,
      samples.filter((s) => s.size >= low && s.size <= high),
    );
  }
  report(
    'cap40=CP',
    samples.filter((s) => s.cap40 === s.cp),
  );
  report(
    'cap40>CP',
    samples.filter((s) => s.cap40 > s.cp),
  );
  report('all', samples);
  console.log(`\ntotal bench time ${f((performance.now() - started) / 1000, 1)} s`);
}

await main();
