import aslValidator from 'asl-validator';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import {
  criticalPathLength,
  dependencyGate,
  type NodeOutcome,
  type PipelineGraph,
  type PipelineNode,
  topologicalOrder,
} from '../../functions/core/pipeline-graph';
import {
  compilePipelineWorkflow,
  EVENTS_PER_NODE_POLL,
  estimateHistoryEvents,
  LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
  LOCAL_TASK_CONTEXT,
  nodeIdOfState,
  nodePollBudget,
  nodePollSeconds,
  type PipelineWorkflowOptions,
  pipelineRunnerInput,
  pipelineWorkflowInput,
  STEP_FUNCTIONS_LIMITS,
} from '../../functions/core/pipeline-workflow';
import { type AslState, type AslStateMachine, taskStateNames } from '../../functions/core/workflows';
import { LOCAL_RUNNER_ARN } from '../../functions/local/step-functions';

const OPTIONS: PipelineWorkflowOptions = {
  runnerResource: LOCAL_RUNNER_ARN,
  nodeTimeoutSeconds: 30,
  awaitTimeoutSeconds: 60,
};

const node = (id: number, dependencies: number[] = []): PipelineNode => ({
  id,
  dependencies,
  queryExecution: { queryId: 1000 + id, performance: 'medium' },
});
const graphOf = (edges: Record<number, number[]>): PipelineGraph => ({
  nodes: Object.entries(edges).map(([id, deps]) => node(Number(id), deps)),
});

/** A deterministic pseudo-random DAG: node i depends on up to 3 earlier nodes. */
function randomGraph(size: number, seed: number): PipelineGraph {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const nodes: PipelineNode[] = [];
  for (let i = 1; i <= size; i++) {
    const deps = new Set<number>();
    const wanted = i === 1 ? 0 : Math.floor(random() * 4);
    for (let k = 0; k < wanted; k++) deps.add(1 + Math.floor(random() * (i - 1)));
    nodes.push(node(i, [...deps]));
  }
  return { nodes };
}

/** The node branches of a compiled pipeline, in order, through groups if any. */
function nodeBranches(machine: AslStateMachine): AslStateMachine[] {
  return Object.values(machine.States).flatMap((state) =>
    ((state.Branches as AslStateMachine[] | undefined) ?? []).flatMap((branch) =>
      branch.StartAt.startsWith('Await_') ? [branch] : nodeBranches(branch),
    ),
  );
}

/** All states of a machine, Parallel branches included. */
function allStates(machine: AslStateMachine): [string, AslState][] {
  return Object.entries(machine.States).flatMap(([name, state]) => [
    [name, state] as [string, AslState],
    ...((state.Branches as AslStateMachine[] | undefined) ?? []).flatMap(allStates),
  ]);
}

const SAMPLE_GRAPHS: Record<string, PipelineGraph> = {
  single: graphOf({ 1: [] }),
  diamond: graphOf({ 1: [], 2: [1], 3: [1], 4: [2, 3] }),
  n: graphOf({ 1: [], 2: [], 3: [1], 4: [1, 2] }),
  random60: randomGraph(60, 7),
  max300: randomGraph(300, 11),
};

describe('compilePipelineWorkflow: the generated ASL', () => {
  it.each(Object.entries(SAMPLE_GRAPHS))(
    '%s: valid, JSONPath only, timeouts, short unique names',
    (_, graph) => {
      const machine = compilePipelineWorkflow(graph, OPTIONS);
      // asl-validator (also run by aws-local-stepfunctions) adds QueryLanguage to every state of the
      // object it is given: validate a copy.
      const result = aslValidator(structuredClone(machine), { checkPaths: true, checkArn: true });
      expect(result.isValid, result.errorsText()).toBe(true);
      expect(JSON.stringify(machine)).not.toMatch(/JSONata|QueryLanguage|"Arguments"|"Assign"|"Output"|\{%/);

      const states = allStates(machine);
      const names = states.map(([name]) => name);
      expect(new Set(names).size).toBe(names.length);
      expect(names.every((name) => name.length <= STEP_FUNCTIONS_LIMITS.stateNameLength)).toBe(true);
      for (const [name, state] of states) {
        if (state.Type !== 'Task') continue;
        expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
      }
      // No Task inside a branch can fail the branch (and with it the Parallel).
      const parallel = machine.States.Nodes!;
      for (const branch of parallel.Branches as AslStateMachine[]) {
        for (const [name, state] of Object.entries(branch.States)) {
          if (state.Type === 'Task') {
            expect(state.Catch, name).toEqual([expect.objectContaining({ ErrorEquals: ['States.ALL'] })]);
          }
          expect(state.Type, name).not.toBe('Fail');
        }
      }
      expect(taskStateNames(machine)).toHaveLength(5 * graph.nodes.length + 1);
    },
  );

  it('has one branch per node in topological order, carrying ids only', () => {
    const graph = SAMPLE_GRAPHS.n!;
    const machine = compilePipelineWorkflow({ nodes: [...graph.nodes].reverse() }, OPTIONS);
    const branches = machine.States.Nodes!.Branches as AslStateMachine[];
    expect(branches.map((branch) => branch.StartAt)).toEqual(['Await_1', 'Await_2', 'Await_3', 'Await_4']);
    const d = branches[3]!.States;
    expect(d.Await_4).toMatchObject({
      Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
      Parameters: {
        FunctionName: LOCAL_RUNNER_ARN,
        Payload: {
          action: 'await_dependencies',
          'pipeline_execution_id.$': '$.pipeline_execution_id',
          node_id: 4,
          'task_token.$': '$$.Task.Token',
        },
      },
      TimeoutSeconds: 60,
      ResultPath: '$.gate',
    });
    const pollLimits = { poll_budget: nodePollBudget(4), poll_window_seconds: 30 };
    expect(d.Start_4).toMatchObject({
      Resource: LOCAL_RUNNER_ARN,
      Parameters: {
        action: 'start_node',
        'pipeline_execution_id.$': '$.pipeline_execution_id',
        node_id: 4,
        ...pollLimits,
      },
      ResultPath: '$.node',
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Fail_4' }],
      Next: 'Poll_4',
    });
    // No function waits on a running query: the branch polls from Wait states.
    expect(d.Poll_4).toMatchObject({
      Choices: [
        { Variable: '$.node.status', StringEquals: 'running', Next: 'WaitForQuery_4' },
        { Variable: '$.node.status', StringEquals: 'waiting', Next: 'WaitForSlot_4' },
      ],
      Default: 'Done_4',
    });
    expect(d.WaitForQuery_4).toEqual({ Type: 'Wait', SecondsPath: '$.node.wait_seconds', Next: 'Check_4' });
    // Nor on a slot: the node parks on the slot gate with its token, as a single query does.
    expect(d.WaitForSlot_4).toEqual({
      Type: 'Task',
      Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
      Parameters: {
        FunctionName: LOCAL_RUNNER_ARN,
        Payload: {
          action: 'acquire_slot',
          'execution_id.$': '$.node.execution_id',
          'task_token.$': '$$.Task.Token',
        },
      },
      ResultPath: '$.node.slot',
      TimeoutSeconds: 60,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.node.slot', Next: 'Check_4' }],
      Next: 'Check_4',
    });
    // Check_n gets the progress Start_n/Check_n answered: ids, execution, polls and poll limits.
    expect(d.Check_4).toMatchObject({
      Parameters: { action: 'check_node', 'progress.$': '$.node' },
      ResultPath: '$.node',
      TimeoutSeconds: 300,
      Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Fail_4' }],
      Next: 'Poll_4',
    });
    expect(d.Fail_4).toMatchObject({
      Parameters: {
        action: 'record_node_failure',
        'pipeline_execution_id.$': '$$.Execution.Name',
        node_id: 4,
        'error.$': '$.Error',
        'cause.$': '$.Cause',
      },
      ResultPath: '$',
      Retry: [expect.objectContaining({ MaxAttempts: 2 })],
    });
    expect(machine.States.Nodes).toMatchObject({ ResultPath: null, Next: 'Finish' });
    expect(machine.States.Finish).toMatchObject({
      Parameters: { action: 'finish_pipeline', 'pipeline_execution_id.$': '$.pipeline_execution_id' },
    });
    // No SQL or query definitions in the definition: the runner loads them by node id.
    expect(JSON.stringify(machine)).not.toContain('1004');
    expect(nodeIdOfState('Fail_4')).toBe(4);
    expect(nodeIdOfState('Finish')).toBeUndefined();
  });

  it('keeps a 300-node pipeline under the definition-size and history-event limits', () => {
    const machine = compilePipelineWorkflow(SAMPLE_GRAPHS.max300!, OPTIONS);
    // A real ARN is longer than the local placeholder; measure with a long one.
    const awsMachine = compilePipelineWorkflow(SAMPLE_GRAPHS.max300!, {
      ...OPTIONS,
      runnerResource: `arn:aws:lambda:ap-southeast-2:123456789012:function:${'x'.repeat(64)}`,
    });
    for (const definition of [machine, awsMachine]) {
      const bytes = Buffer.byteLength(JSON.stringify(definition));
      expect(bytes).toBeLessThan(STEP_FUNCTIONS_LIMITS.definitionBytes);
    }
    expect(estimateHistoryEvents(300)).toBeLessThan(STEP_FUNCTIONS_LIMITS.historyEvents);
    expect(estimateHistoryEvents(300)).toBe(18_674);
    console.info(
      `300 nodes: ${Buffer.byteLength(JSON.stringify(awsMachine))} bytes with a 64-character runner name`,
    );
  });

  it("spreads each node's polls so the history stays under 25,000 events however long nodes run", () => {
    expect([1, 7, 100, 300].map((n) => nodePollBudget(n))).toEqual([2_491, 350, 18, 2]);
    for (const nodes of [1, 7, 40, 100, 300]) {
      const budget = nodePollBudget(nodes);
      // Polls a node makes while running for the whole window (1,920 s: a large query + margin).
      let polls = 0;
      for (let elapsed = 0; elapsed < 1_920; polls++) elapsed += nodePollSeconds(polls, budget, 1_920);
      expect(polls, `${nodes} nodes`).toBeLessThanOrEqual(budget);
      const events = estimateHistoryEvents(nodes) + nodes * budget * EVENTS_PER_NODE_POLL;
      expect(events).toBeLessThanOrEqual(STEP_FUNCTIONS_LIMITS.historyEvents);
    }
    // A small pipeline polls like a single query at first: 1 s, 1 s, 1 s, 2 s, …
    expect([0, 1, 2, 3, 6].map((p) => nodePollSeconds(p, nodePollBudget(7), 1_920))).toEqual([1, 1, 1, 2, 4]);
  });

  it('groups node branches by 40 past 40 nodes, keeping topological order', () => {
    const graph = randomGraph(100, 5);
    const machine = compilePipelineWorkflow(graph, OPTIONS);
    const groups = machine.States.Nodes!.Branches as AslStateMachine[];
    expect(groups.map((group) => group.StartAt)).toEqual(['Group_1', 'Group_2', 'Group_3']);
    expect(groups.map((group) => (group.States[group.StartAt]!.Branches as unknown[]).length)).toEqual([
      40, 40, 20,
    ]);
    expect(nodeBranches(machine).map((branch) => nodeIdOfState(branch.StartAt))).toEqual(
      topologicalOrder(graph),
    );
    const flat = compilePipelineWorkflow(graph, { ...OPTIONS, branchGroupSize: 1000 });
    expect((flat.States.Nodes!.Branches as AslStateMachine[]).map((b) => b.StartAt)).toEqual(
      topologicalOrder(graph).map((id) => `Await_${id}`),
    );
  });

  it('validates the graph before compiling', () => {
    expect(() => compilePipelineWorkflow(graphOf({ 1: [2], 2: [1] }), OPTIONS)).toThrow(/cycle: 1 → 2 → 1/);
  });

  it('unwraps lambda:invoke payloads for local dispatch', () => {
    const payload = { action: 'start_node', pipeline_execution_id: 'p', node_id: 1 };
    expect(pipelineRunnerInput(payload)).toEqual(payload);
    expect(pipelineRunnerInput({ FunctionName: LOCAL_RUNNER_ARN, Payload: payload })).toEqual(payload);
  });
});

// ---------------------------------------------------------------------------------------------
// Exact semantics on aws-local-stepfunctions, against an in-memory simulated runner.

interface NodeRecord {
  outcome?: NodeOutcome;
  started?: number;
  ended?: number;
  runs: number;
  error?: string;
}

interface Scenario {
  durations?: Record<number, number>;
  /** Nodes whose run throws (a query failure). */
  failing?: number[];
  /** Nodes whose status reads block until the run ends (a stuck read). */
  hangingChecks?: number[];
  /** Nodes whose first run throws a transient error, then succeeds. */
  flaky?: number[];
  /** Answer of await_dependencies for these nodes (simulates a broken runner). */
  gateOverride?: Record<number, unknown>;
  failRecordBroken?: number[];
  options?: Partial<PipelineWorkflowOptions>;
  /** Cancel the pipeline this many ms after start. */
  cancelAfterMs?: number;
}

/**
 * The runner, simulated: node outcomes in a map, `await_dependencies` parks until the dependency
 * gate opens (skip early when a dependency ended without succeeding), `run_node` sleeps.
 */
async function simulate(graph: PipelineGraph, scenario: Scenario = {}) {
  const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
  const records = new Map(graph.nodes.map((n) => [n.id, { runs: 0 } as NodeRecord]));
  const listeners = new Set<() => void>();
  const actions: string[] = [];
  let cancelled = false;
  let finished = 0;
  const running = new Map<number, () => void>();
  let t0 = performance.now();
  const now = () => performance.now() - t0;
  const end = (id: number, outcome: NodeOutcome, error?: string) => {
    const record = records.get(id)!;
    if (record.outcome) return;
    Object.assign(record, { outcome, error, ended: record.ended ?? now() });
    for (const listener of [...listeners]) listener();
  };

  const handler = async (raw: unknown): Promise<unknown> => {
    // Await_n gets {FunctionName, Payload}; the other Tasks get the payload itself. Check_n gets
    // the progress the previous answer carried (ids, execution, polls, limits), as the runner does.
    const received = pipelineRunnerInput(raw);
    const input = received.progress ? { ...received, ...received.progress } : received;
    actions.push(`${input.action}:${input.node_id ?? ''}`);
    expect(input.pipeline_execution_id).toBe('pipe-1');
    const id = input.node_id!;
    switch (input.action) {
      case 'await_dependencies': {
        expect(input.task_token).toBe('local');
        if (scenario.gateOverride && id in scenario.gateOverride) return scenario.gateOverride[id];
        const deps = nodes.get(id)!.dependencies;
        for (;;) {
          if (cancelled) {
            end(id, 'cancelled');
            return { proceed: false };
          }
          const gate = dependencyGate(deps.map((dep) => records.get(dep)!.outcome));
          if (gate === 'proceed') return { proceed: true };
          if (gate === 'skip') {
            end(id, 'skipped');
            return { proceed: false };
          }
          await new Promise<void>((resolve) => {
            const listener = () => {
              listeners.delete(listener);
              resolve();
            };
            listeners.add(listener);
          });
        }
      }
      case 'start_node': {
        const record = records.get(id)!;
        record.runs++;
        record.started ??= now();
        if (scenario.flaky?.includes(id) && record.runs === 1) {
          throw Object.assign(new Error('engine busy'), { name: 'Engine.Unavailable' });
        }
        expect(input).toMatchObject({ poll_budget: expect.any(Number), poll_window_seconds: 30 });
        // Submitted: the branch polls from its Wait state (0 s here).
        return progress(id, 'running', 0);
      }
      case 'check_node': {
        expect(input.execution_id).toBe(`exec-${id}`);
        const record = records.get(id)!;
        // A status read that returns when the run changes (as the local engine's does), or after 50 ms.
        const left = record.started! + (scenario.durations?.[id] ?? 20) - now();
        const interrupted = await new Promise<boolean>((resolve) => {
          const wait = scenario.hangingChecks?.includes(id) ? left : Math.min(left, 50);
          const timer = setTimeout(() => resolve(false), Math.max(0, wait));
          running.set(id, () => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        running.delete(id);
        const polls = Number(input.polls) + 1;
        if (interrupted) {
          end(id, 'cancelled');
          return { status: 'finished', polls, wait_seconds: 0 };
        }
        if (left > 50 && !scenario.hangingChecks?.includes(id)) return progress(id, 'running', polls);
        if (scenario.failing?.includes(id)) {
          records.get(id)!.ended = now();
          throw Object.assign(new Error(`query of node ${id} failed`), { name: 'QueryFailed' });
        }
        end(id, 'succeeded');
        return { status: 'finished', polls, wait_seconds: 0 };
      }
      case 'record_node_failure':
        if (scenario.failRecordBroken?.includes(id)) throw new Error('store down');
        end(id, 'failed', `${input.error}: ${input.cause}`);
        return { recorded: true };
      case 'finish_pipeline':
        finished++;
        return {};
      default:
        throw new Error(`unexpected action ${input.action}`);
    }
  };

  /** A NodeProgress as the runner answers it: the node's ids and limits ride along for Check_n. */
  function progress(id: number, status: 'running' | 'finished', polls: number) {
    return {
      status,
      execution_id: `exec-${id}`,
      polls,
      wait_seconds: 0,
      pipeline_execution_id: 'pipe-1',
      node_id: id,
      poll_budget: 10,
      poll_window_seconds: 30,
    };
  }

  const definition = compilePipelineWorkflow(graph, { ...OPTIONS, ...scenario.options });
  const machine = new StateMachine(structuredClone(definition) as never, {
    validationOptions: { checkArn: true, checkPaths: true },
  });
  const names = taskStateNames(definition);
  t0 = performance.now(); // makespan excludes building and validating the machine
  const execution = machine.run(pipelineWorkflowInput('pipe-1') as never, {
    overrides: {
      taskResourceLocalHandlers: Object.fromEntries(names.map((name) => [name, handler])) as never,
      retryIntervalOverrides: Object.fromEntries(names.map((name) => [name, 1])),
    },
    // The workflow's name is the pipeline execution id (Fail_n reads it), as the hosts start it.
    context: { Execution: { Id: 'pipe-1', Name: 'pipe-1' }, ...LOCAL_TASK_CONTEXT } as never,
  });
  if (scenario.cancelAfterMs !== undefined) {
    setTimeout(() => {
      // Cooperative cancel: parked nodes are woken (AWS: SendTaskSuccess {proceed:false}) and
      // running ones interrupted; both end `cancelled`.
      cancelled = true;
      for (const interrupt of running.values()) interrupt();
      for (const listener of [...listeners]) listener();
    }, scenario.cancelAfterMs);
  }
  const output = await execution.result;
  return { records, actions, finished, output, makespan: now() };
}

/** Every node that ran started only after all its dependencies had ended, successfully. */
function expectDependenciesRespected(graph: PipelineGraph, records: Map<number, NodeRecord>) {
  for (const n of graph.nodes) {
    const record = records.get(n.id)!;
    if (record.started === undefined) continue;
    for (const dep of n.dependencies) {
      const depRecord = records.get(dep)!;
      expect(depRecord.outcome, `${dep} before ${n.id}`).toBe('succeeded');
      expect(record.started, `${n.id} starts after ${dep} ended`).toBeGreaterThanOrEqual(depRecord.ended!);
    }
  }
}

const outcomes = (records: Map<number, NodeRecord>) =>
  Object.fromEntries([...records].map(([id, r]) => [id, r.outcome]));

describe('pipeline workflow semantics on aws-local-stepfunctions', () => {
  it('diamond: a → b, a → c, b,c → d', async () => {
    const graph = graphOf({ 1: [], 2: [1], 3: [1], 4: [2, 3] });
    const { records, finished, output } = await simulate(graph, {
      durations: { 1: 30, 2: 60, 3: 20, 4: 20 },
    });
    expect(outcomes(records)).toEqual({ 1: 'succeeded', 2: 'succeeded', 3: 'succeeded', 4: 'succeeded' });
    expectDependenciesRespected(graph, records);
    // b and c overlap; d waits for the slower b.
    expect(records.get(3)!.started!).toBeLessThan(records.get(2)!.ended!);
    expect(records.get(4)!.started!).toBeGreaterThanOrEqual(records.get(2)!.ended!);
    expect(finished).toBe(1);
    expect(output).toEqual(pipelineWorkflowInput('pipe-1'));
  });

  it('fan-out and fan-in', async () => {
    const fanOut = graphOf({ 1: [], 2: [1], 3: [1], 4: [1], 5: [1], 6: [1] });
    const out = await simulate(fanOut, { durations: { 1: 30 } });
    expectDependenciesRespected(fanOut, out.records);
    const starts = [2, 3, 4, 5, 6].map((id) => out.records.get(id)!.started!);
    expect(Math.max(...starts) - Math.min(...starts)).toBeLessThan(100); // all released together

    const fanIn = graphOf({ 1: [], 2: [], 3: [], 4: [], 5: [], 6: [1, 2, 3, 4, 5] });
    const durations = { 1: 10, 2: 30, 3: 50, 4: 70, 5: 90 };
    const inn = await simulate(fanIn, { durations });
    expectDependenciesRespected(fanIn, inn.records);
    expect(inn.records.get(6)!.started!).toBeGreaterThanOrEqual(inn.records.get(5)!.ended!);
    expect(Object.values(outcomes(inn.records)).every((o) => o === 'succeeded')).toBe(true);
  });

  it('"N" graph: c starts right after a, without waiting for b (no over-synchronization)', async () => {
    // a=1, b=2, c=3, d=4: a → c, a → d, b → d. b is slow.
    const graph = graphOf({ 1: [], 2: [], 3: [1], 4: [1, 2] });
    const { records } = await simulate(graph, { durations: { 1: 20, 2: 400, 3: 20, 4: 20 } });
    expectDependenciesRespected(graph, records);
    const [a, b, c, d] = [1, 2, 3, 4].map((id) => records.get(id)!);
    expect(c!.started! - a!.ended!).toBeLessThan(100);
    expect(c!.ended!).toBeLessThan(b!.ended!);
    expect(d!.started!).toBeGreaterThanOrEqual(b!.ended!);
  });

  it('a failed node skips its downstream nodes while unrelated branches complete', async () => {
    // 1 → 2 → 3 → 7, 1 → 4, 2 → 8 ← 5; 5 → 6 independent. Node 2 fails.
    const graph = graphOf({ 1: [], 2: [1], 3: [2], 7: [3], 4: [1], 5: [], 6: [5], 8: [2, 5] });
    const { records, actions, finished } = await simulate(graph, {
      failing: [2],
      durations: { 4: 150, 6: 150 },
    });
    expect(outcomes(records)).toEqual({
      1: 'succeeded',
      2: 'failed',
      3: 'skipped',
      7: 'skipped',
      8: 'skipped',
      4: 'succeeded',
      5: 'succeeded',
      6: 'succeeded',
    });
    expect(records.get(2)!.error).toBe('QueryFailed: query of node 2 failed');
    for (const id of [3, 7, 8]) {
      expect(records.get(id)!.runs, `node ${id} never runs`).toBe(0);
      expect(actions).not.toContain(`start_node:${id}`);
    }
    // The skip happened as soon as 2 failed, not after the slow unrelated nodes.
    expect(records.get(7)!.ended!).toBeLessThan(records.get(4)!.ended!);
    expectDependenciesRespected(graph, records);
    expect(finished).toBe(1);
  });

  it('retries transient runner errors, then runs the node once more', async () => {
    const graph = graphOf({ 1: [], 2: [1] });
    const { records, actions } = await simulate(graph, { flaky: [1] });
    expect(outcomes(records)).toEqual({ 1: 'succeeded', 2: 'succeeded' });
    expect(records.get(1)!.runs).toBe(2);
    expect(actions.filter((a) => a === 'record_node_failure:1')).toEqual([]);
  });

  it('a node whose status read hangs past its timeout is recorded failed with States.Timeout', async () => {
    const graph = graphOf({ 1: [], 2: [1], 3: [] });
    const { records } = await simulate(graph, {
      durations: { 1: 1_400 },
      hangingChecks: [1],
      options: { checkTimeoutSeconds: 1 },
    });
    expect(outcomes(records)).toEqual({ 1: 'failed', 2: 'skipped', 3: 'succeeded' });
    expect(records.get(1)!.error).toMatch(/^States\.Timeout/);
  });

  it('never fails the pipeline on a bad gate answer or an unrecordable failure', async () => {
    const graph = graphOf({ 1: [], 2: [], 3: [2], 4: [] });
    const { records, actions, finished } = await simulate(graph, {
      gateOverride: { 1: {} },
      failing: [2],
      failRecordBroken: [2],
      options: { awaitTimeoutSeconds: 1 },
    });
    // 1: a gate answer without `proceed` takes the skip path (finish_pipeline settles such nodes).
    expect(records.get(1)!.runs).toBe(0);
    expect(records.get(1)!.outcome).toBeUndefined();
    // 2: failed and could not be recorded; the branch still ends, the others complete.
    expect(actions.filter((a) => a === 'record_node_failure:2')).toHaveLength(1);
    expect(records.get(2)!.outcome).toBeUndefined();
    // 3 never hears about 2: its await times out and it is recorded failed.
    expect(records.get(3)!.runs).toBe(0);
    expect(records.get(3)!.outcome).toBe('failed');
    expect(records.get(3)!.error).toMatch(/^States\.Timeout/);
    expect(records.get(4)!.outcome).toBe('succeeded');
    expect(finished).toBe(1);
  });

  it('cancel: running and waiting nodes end cancelled, the pipeline still finishes', async () => {
    const graph = graphOf({ 1: [], 2: [1], 3: [2], 4: [] });
    const { records, finished } = await simulate(graph, {
      durations: { 1: 40, 2: 400, 4: 400 },
      cancelAfterMs: 150,
    });
    expect(outcomes(records)).toEqual({ 1: 'succeeded', 2: 'cancelled', 3: 'cancelled', 4: 'cancelled' });
    expect(records.get(3)!.runs).toBe(0);
    expect(finished).toBe(1);
  });

  it.each([
    ['grouped by 40 (default)', undefined],
    ['flat, one Parallel of 120 branches', 1000],
  ])('runs a 120-node graph, %s, past the 40-branch local limit without deadlock', async (_, groupSize) => {
    const graph = randomGraph(120, 3);
    const durations = Object.fromEntries(graph.nodes.map((n) => [n.id, 20 + (n.id % 4) * 10]));
    const { records, makespan } = await simulate(graph, {
      durations,
      options: { branchGroupSize: groupSize },
    });
    expect(Object.values(outcomes(records)).every((o) => o === 'succeeded')).toBe(true);
    expect([...records.values()].every((r) => r.runs === 1)).toBe(true);
    expectDependenciesRespected(graph, records);
    // Loose bound (timing on a shared machine); test/bench/pipeline-dag.ts measures ≈ 1.0x.
    const critical = criticalPathLength(graph, (id) => durations[id]!);
    expect(makespan / critical).toBeLessThan(3);
  });
});
