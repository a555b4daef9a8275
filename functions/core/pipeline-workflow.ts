/**
 * Compiles a pipeline graph to ASL (JSONPath only) with exact dependency semantics: encoding D of
 * ADR 0004, one Parallel state with one branch per node (nested in groups of 40 past 40 nodes, see
 * `compilePipelineWorkflow`), each branch parked on a task token until the runner says its
 * dependencies are done.
 *
 * Branch of node n (branches in topological order):
 *
 *   Await_n  lambda:invoke.waitForTaskToken {action: await_dependencies} → $.gate = {proceed}
 *   Gate_n   Choice: $.gate.proceed === true → Start_n, otherwise → Skipped_n (Succeed)
 *   Start_n  runner Lambda {action: start_node} → $.node = NodeProgress: creates the node's execution,
 *            takes a slot and submits its query if it can; Catch States.ALL → Fail_n
 *   Poll_n   Choice: $.node.status running → WaitForQuery_n, waiting → WaitForSlot_n, else → Done_n
 *   WaitForQuery_n   Wait $.node.wait_seconds → Check_n
 *   WaitForSlot_n    lambda:invoke.waitForTaskToken {action: acquire_slot} → $.node.slot: parks on
 *            the slot gate until a slot is handed on (no polling) → Check_n; Catch → Fail_n
 *   Check_n  runner Lambda {action: check_node} → $.node: one status read (or the submit, once a
 *            slot is held); the runner ends the node when its execution has ended; Catch → Fail_n
 *   Fail_n   runner Lambda {action: record_node_failure, error, cause}; Catch States.ALL → Unrecorded_n
 *
 * No function waits on a running query: like the single-query workflow, the branch's Wait states
 * poll (a Lambda returns at once each time). The runner spaces the polls so a node never logs more
 * than its share of the 25,000 history events (`nodePollBudget`, `nodePollSeconds`).
 *
 * then, after the Parallel: Finish (runner {action: finish_pipeline}) → Finished (Succeed).
 *
 * No branch can fail the Parallel (which would abort every other branch): every Task in a branch
 * has a Catch, and a Choice without a boolean `proceed` falls to the skip path. Payloads carry ids
 * only; node status, SQL and results live in DynamoDB / result storage.
 *
 * Local runs (aws-local-stepfunctions): every Task is bound to the in-process runner by state name
 * and receives the evaluated `Parameters`. For `Await_n` that is the lambda:invoke shape
 * `{FunctionName, Payload: {...}}`, for the other Tasks the payload itself, so local dispatch must
 * read `input.Payload ?? input` (`pipelineRunnerInput` does this). `.waitForTaskToken` means
 * nothing locally: the local `await_dependencies` handler simply resolves with `{proceed}` once the
 * node's dependencies are done; `$$.Task.Token` must be supplied through the run's context
 * (`run(input, {context: {Task: {Token: 'local'}}})`, see `LOCAL_TASK_CONTEXT`).
 */
import { type PipelineGraph, topologicalOrder, validatePipelineGraph } from './pipeline-graph';
import {
  type AslState,
  type AslStateMachine,
  LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
  QUERY_STATES,
  queryPollSeconds,
  type SlotResult,
  TRANSIENT_ERRORS,
} from './workflows';

/** Actions of the pipeline runner (the same Lambda / local handler as the single-query runner). */
export type PipelineRunnerAction =
  | 'await_dependencies'
  | 'start_node'
  | 'check_node'
  | 'record_node_failure'
  | 'finish_pipeline';

export interface PipelineRunnerInput {
  action: PipelineRunnerAction;
  pipeline_execution_id: string;
  /** Absent for finish_pipeline. */
  node_id?: number;
  /** await_dependencies only: the token to pass to SendTaskSuccess ('local' in local runs). */
  task_token?: string;
  /** record_node_failure only: the ASL error name and cause caught from a Task of the branch. */
  error?: string;
  cause?: string;
  /**
   * check_node of definitions before `progress`: the node's execution (from start_node's answer)
   * and the polls so far.
   */
  execution_id?: string;
  polls?: number;
  /**
   * check_node: the node's progress as the branch holds it (its execution and polls; `slot` when
   * WaitForSlot_n was handed one by the gate).
   */
  progress?: Partial<NodeProgress> & { slot?: SlotResult };
  /** start_node and check_node: how many polls the node may make, spread over `poll_window_seconds`. */
  poll_budget?: number;
  poll_window_seconds?: number;
  /** check_node (carried in its progress): the node follows a refresh someone else runs. */
  shared?: true;
}

/**
 * What start_node and check_node answer: poll again after `wait_seconds`, or the node has ended.
 * It also carries the node's ids and poll limits, so Check_n passes just this object back (its
 * Parameters repeat on every node of the definition, which must stay under 1 MiB).
 */
export interface NodeProgress {
  /** waiting: for an execution slot; running: the query runs; finished: the node has ended. */
  status: 'waiting' | 'running' | 'finished';
  execution_id?: string;
  polls: number;
  wait_seconds: number;
  pipeline_execution_id?: string;
  node_id?: number;
  poll_budget?: number;
  poll_window_seconds?: number;
  /** The node joined its view's running refresh: it only reads that execution's status. */
  shared?: true;
}

/** What `await_dependencies` resolves with (SendTaskSuccess output in AWS, handler result locally). */
export interface DependencyGateResult {
  /** true: all dependencies succeeded, run the node. false: the runner recorded the node skipped. */
  proceed: boolean;
}

export interface PipelineWorkflowOptions {
  /** The pipeline-runner Lambda ARN (a placeholder ARN locally, where Tasks are bound by name). */
  runnerResource: string;
  /** How long a node may run (the longest tier's time limit plus a margin): its polls spread over it. */
  nodeTimeoutSeconds: number;
  /** Limit of one `check_node` call (it may index a finished Athena result). Default 300. */
  checkTimeoutSeconds?: number;
  /** Limit of a node's wait for its dependencies (at least the pipeline's expected duration). */
  awaitTimeoutSeconds: number;
  /** Node branches per Parallel before they are split into groups (default BRANCH_GROUP_SIZE). */
  branchGroupSize?: number;
}

/** aws-local-stepfunctions runs at most 40 branches of a Parallel at once. */
export const BRANCH_GROUP_SIZE = 40;

export { LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN };

/** The context local runs must pass so `$$.Task.Token` resolves (it is static locally). */
export const LOCAL_TASK_CONTEXT = { Task: { Token: 'local' } } as const;

/** Short-lived runner calls (await registration, node start, failure record, finish). */
const BOOKKEEPING_TIMEOUT_SECONDS = 60;
/** A status read that may index a finished Athena result (one pass over its CSV). */
const CHECK_TIMEOUT_SECONDS = 300;

/** Retry of transient errors on every Task: at most this many retries per Task. */
export const TRANSIENT_RETRY_ATTEMPTS = 3;

/**
 * 1 s, doubling, 3 attempts: the States Language defaults of IntervalSeconds, BackoffRate and
 * MaxAttempts, left out because they repeat on every Task of every node (a 300-node definition
 * must stay under 1 MiB).
 */
const retryTransient = [{ ErrorEquals: TRANSIENT_ERRORS, JitterStrategy: 'FULL' }];

/** Fail_n retries once less: its events are part of every node's worst case (`estimateHistoryEvents`). */
const FAILURE_RECORD_ATTEMPTS = 2;
const retryFailureRecord = [
  { ErrorEquals: TRANSIENT_ERRORS, MaxAttempts: FAILURE_RECORD_ATTEMPTS, JitterStrategy: 'FULL' },
];

/** Name of the Parallel state that holds the node branches. */
export const NODES_STATE = 'Nodes';
export const FINISH_STATE = 'Finish';

export const pipelineStateNames = (nodeId: number) => ({
  await: `Await_${nodeId}`,
  gate: `Gate_${nodeId}`,
  start: `Start_${nodeId}`,
  poll: `Poll_${nodeId}`,
  waitForQuery: `${QUERY_STATES.waitForQuery}_${nodeId}`,
  waitForSlot: `${QUERY_STATES.waitForSlot}_${nodeId}`,
  check: `Check_${nodeId}`,
  done: `Done_${nodeId}`,
  fail: `Fail_${nodeId}`,
  skipped: `Skipped_${nodeId}`,
  unrecorded: `Unrecorded_${nodeId}`,
});

/** The node id a branch state name belongs to (`Check_12` → 12), or undefined. */
export function nodeIdOfState(stateName: string): number | undefined {
  const match =
    /^(?:Await|Gate|Start|Poll|WaitForQuery|WaitForSlot|Check|Done|Fail|Skipped|Unrecorded)_(-?\d+)$/.exec(
      stateName,
    );
  return match ? Number(match[1]) : undefined;
}

/** History events one poll of a node logs: Wait (2), the Check Task (5–6), the Poll Choice (2). */
export const EVENTS_PER_NODE_POLL = 10;

/**
 * How many polls (slot attempts and status reads) each node of an `nodeCount`-node pipeline may
 * make: the history events left after the worst case of everything else (`estimateHistoryEvents`),
 * shared evenly. 1 node: 2,491; 7 nodes: 350; 100: 18; 300: 2.
 */
export function nodePollBudget(nodeCount: number, branchGroupSize = BRANCH_GROUP_SIZE): number {
  const spare = STEP_FUNCTIONS_LIMITS.historyEvents - estimateHistoryEvents(nodeCount, branchGroupSize);
  return Math.max(1, Math.floor(spare / (EVENTS_PER_NODE_POLL * nodeCount)));
}

/**
 * Seconds before a node's next poll: the single-query schedule (1 s, doubling every 3 polls, at
 * most 10 s) for the first half of its budget, then the rest of the budget spread evenly over its
 * time limit, so no node can exceed its share of the history however long it runs.
 */
export function nodePollSeconds(polls: number, budget: number, windowSeconds: number): number {
  const half = Math.max(1, Math.floor(budget / 2));
  if (polls < half) return queryPollSeconds(polls);
  return Math.max(queryPollSeconds(polls), Math.ceil(windowSeconds / Math.max(1, budget - half)));
}

function nodeBranch(
  nodeId: number,
  options: PipelineWorkflowOptions,
  pollLimits: { poll_budget: number; poll_window_seconds: number },
): AslStateMachine {
  const names = pipelineStateNames(nodeId);
  const ids = { 'pipeline_execution_id.$': '$.pipeline_execution_id', node_id: nodeId };
  // Await, Start, Check: a crash or timeout records the node failed (its dependents get skipped).
  // The caught {Error, Cause} becomes Fail_n's whole input (no ResultPath: fewer bytes per node).
  const catchToFail = [{ ErrorEquals: ['States.ALL'], Next: names.fail }];
  const states: Record<string, AslState> = {
    [names.await]: {
      Type: 'Task',
      Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
      Parameters: {
        FunctionName: options.runnerResource,
        Payload: { action: 'await_dependencies', ...ids, 'task_token.$': '$$.Task.Token' },
      },
      // AWS: the SendTaskSuccess output; locally: the handler's return value. Either is {proceed}.
      ResultPath: '$.gate',
      TimeoutSeconds: options.awaitTimeoutSeconds,
      Retry: retryTransient,
      // Timeout or runner error while waiting: record the node failed (its dependents get skipped).
      Catch: catchToFail,
      Next: names.gate,
    },
    [names.gate]: {
      Type: 'Choice',
      Choices: [
        {
          // IsPresent/IsBoolean first: a missing or odd value must not fail the branch (a Choice
          // has no Catch); it takes the skip path and finish_pipeline settles the node.
          And: [
            { Variable: '$.gate.proceed', IsPresent: true },
            { Variable: '$.gate.proceed', IsBoolean: true },
            { Variable: '$.gate.proceed', BooleanEquals: true },
          ],
          Next: names.start,
        },
      ],
      Default: names.skipped,
    },
    // The runner already recorded the node skipped when it answered proceed=false.
    [names.skipped]: { Type: 'Succeed' },
    [names.start]: {
      Type: 'Task',
      Resource: options.runnerResource,
      Parameters: { action: 'start_node', ...ids, ...pollLimits },
      // Status and results live in DynamoDB; the branch keeps the few bytes of NodeProgress.
      ResultPath: '$.node',
      TimeoutSeconds: BOOKKEEPING_TIMEOUT_SECONDS,
      Retry: retryTransient,
      Catch: catchToFail,
      Next: names.poll,
    },
    [names.poll]: {
      Type: 'Choice',
      Choices: [
        { Variable: '$.node.status', StringEquals: 'running', Next: names.waitForQuery },
        { Variable: '$.node.status', StringEquals: 'waiting', Next: names.waitForSlot },
      ],
      Default: names.done,
    },
    [names.waitForQuery]: { Type: 'Wait', SecondsPath: '$.node.wait_seconds', Next: names.check },
    // No slot free: the node parks on the slot gate with its token, as a single query's AcquireSlot
    // does (the same runner action). Whoever frees a slot hands it on and submits the node's query;
    // Check_n then reads its status. However long the wait, it costs one Task's events.
    [names.waitForSlot]: {
      Type: 'Task',
      Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
      Parameters: {
        FunctionName: options.runnerResource,
        Payload: {
          action: 'acquire_slot',
          'execution_id.$': '$.node.execution_id',
          'task_token.$': '$$.Task.Token',
        },
      },
      // Kept beside the node's progress: Check_n submits at once when the slot was handed on.
      ResultPath: '$.node.slot',
      TimeoutSeconds: options.awaitTimeoutSeconds,
      // Whatever ends the wait (a Lambda error, the timeout), Check_n takes the next step: it tries
      // for a slot itself and parks again, or ends the node if its execution has ended (the sweep
      // ends a pipeline past its bound). A Catch instead of a Retry: fewer bytes per node.
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.node.slot', Next: names.check }],
      Next: names.check,
    },
    [names.check]: {
      Type: 'Task',
      Resource: options.runnerResource,
      // The node's progress: its ids, execution, polls and limits, and after WaitForSlot_n the slot.
      Parameters: { action: 'check_node', 'progress.$': '$.node' },
      ResultPath: '$.node',
      TimeoutSeconds: options.checkTimeoutSeconds ?? CHECK_TIMEOUT_SECONDS,
      Retry: retryTransient,
      Catch: catchToFail,
      Next: names.poll,
    },
    [names.done]: { Type: 'Succeed' },
    [names.fail]: {
      Type: 'Task',
      Resource: options.runnerResource,
      // Its input is the caught error; the workflow's name is the pipeline execution id.
      Parameters: {
        action: 'record_node_failure',
        'pipeline_execution_id.$': '$$.Execution.Name',
        node_id: nodeId,
        'error.$': '$.Error',
        'cause.$': '$.Cause',
      },
      // Replaces the caught {Error, Cause} so the branch output stays a few bytes.
      ResultSelector: { recorded: true },
      ResultPath: '$',
      TimeoutSeconds: BOOKKEEPING_TIMEOUT_SECONDS,
      Retry: retryFailureRecord,
      // Could not even record the failure: end the branch anyway; finish_pipeline settles the node.
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: names.unrecorded }],
      End: true,
    },
    [names.unrecorded]: { Type: 'Succeed' },
  };
  return { StartAt: names.await, States: states };
}

/**
 * The state machine of one pipeline (encoding D, ADR 0004). Validates the graph first; the
 * execution input is `pipelineWorkflowInput(id)`.
 *
 * Node branches are in topological order (level by level). Up to `branchGroupSize` nodes they sit
 * directly in the `Nodes` Parallel; beyond that `Nodes` holds one branch per group of
 * `branchGroupSize` consecutive nodes, each a `Group_<k>` Parallel of node branches. Same
 * semantics on AWS (a few more events); locally it lifts the 40-branches-at-a-time cap of
 * aws-local-stepfunctions to 40 × 40, so every node of a 300-node pipeline is parked on its gate
 * at once instead of waiting for a branch slot (see the ADR for the measured difference).
 * Topological order keeps either shape deadlock-free under a cap: the earliest unfinished node
 * always has a started branch and finished dependencies.
 */
export function compilePipelineWorkflow(
  graph: PipelineGraph,
  options: PipelineWorkflowOptions,
): AslStateMachine {
  validatePipelineGraph(graph);
  const groupSize = options.branchGroupSize ?? BRANCH_GROUP_SIZE;
  if (!Number.isSafeInteger(groupSize) || groupSize < 1)
    throw new Error('branchGroupSize must be a positive integer');
  const pollLimits = {
    poll_budget: nodePollBudget(graph.nodes.length, groupSize),
    poll_window_seconds: options.nodeTimeoutSeconds,
  };
  const nodeBranches = topologicalOrder(graph).map((id) => nodeBranch(id, options, pollLimits));
  const branches =
    nodeBranches.length <= groupSize
      ? nodeBranches
      : chunk(nodeBranches, groupSize).map((group, index) => groupBranch(group, index + 1));
  return {
    Comment: `Pipeline of ${graph.nodes.length} nodes (one branch per node, task-token dependency gates)`,
    StartAt: NODES_STATE,
    States: {
      [NODES_STATE]: {
        Type: 'Parallel',
        Parameters: { 'pipeline_execution_id.$': '$.pipeline_execution_id' },
        Branches: branches,
        // The array of branch outputs is dropped; status lives in DynamoDB.
        ResultPath: null,
        // A branch cannot fail by design; if the Parallel fails anyway, still finish the pipeline.
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: FINISH_STATE }],
        Next: FINISH_STATE,
      },
      [FINISH_STATE]: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: { action: 'finish_pipeline', 'pipeline_execution_id.$': '$.pipeline_execution_id' },
        ResultPath: null,
        TimeoutSeconds: BOOKKEEPING_TIMEOUT_SECONDS,
        Retry: retryTransient,
        Next: 'Finished',
      },
      Finished: { Type: 'Succeed' },
    },
  };
}

function chunk<T>(items: T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

function groupBranch(nodeBranches: AslStateMachine[], index: number): AslStateMachine {
  const name = `Group_${index}`;
  return {
    StartAt: name,
    States: {
      [name]: {
        Type: 'Parallel',
        Branches: nodeBranches,
        ResultPath: null,
        // Cannot happen by design; if it does, keep the other groups running.
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: null, Next: `GroupFailed_${index}` }],
        End: true,
      },
      [`GroupFailed_${index}`]: { Type: 'Succeed' },
    },
  };
}

export function pipelineWorkflowInput(pipelineExecutionId: string) {
  return { pipeline_execution_id: pipelineExecutionId };
}

/**
 * The runner input of a Task, in both environments: the evaluated Parameters for plain Lambda
 * Tasks, `Parameters.Payload` for the `lambda:invoke.waitForTaskToken` Task (local runs hand the
 * handler `{FunctionName, Payload}`; in AWS the Lambda receives the Payload itself).
 */
export function pipelineRunnerInput(input: unknown): PipelineRunnerInput {
  const record = (input ?? {}) as Record<string, unknown>;
  const payload = (record.Payload ?? record) as PipelineRunnerInput;
  return payload;
}

/**
 * History events of one pipeline execution, upper bound (Standard workflows fail at 25,000).
 * Per node, the longest branch path (await retried, run retried then failed, failure record
 * retried then failed), counting 6 events per Task and 4 per retry (AWS logs no per-branch
 * events of a Parallel):
 *
 *   Await_n                 6 + 4·R   TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted,
 *                                     TaskSucceeded|Failed|TimedOut, TaskStateExited; a retry adds
 *                                     TaskScheduled, TaskStarted, (TaskSubmitted), TaskFailed
 *   Gate_n                  2   ChoiceStateEntered/Exited
 *   Start_n                 6 + 4·R   (a Lambda-ARN Task logs 5: TaskStateEntered, LambdaFunction
 *                                     Scheduled/Started/Succeeded|Failed, TaskStateExited)
 *   Poll_n                  2
 *   WaitForSlot_n           6         once, no Retry: a node woken by the slot gate holds its slot;
 *                                     a wait that ends otherwise counts as two polls in Check_n
 *   Fail_n                  6 + 4·2   (two retries)
 *   Unrecorded_n / end      2   SucceedStateEntered/Exited
 *
 * with R = TRANSIENT_RETRY_ATTEMPTS = 3: 62 per node, plus EVENTS_PER_NODE_POLL per poll (the
 * polls get what is left: `nodePollBudget`). Per group of 40 nodes (past 40 nodes):
 * ParallelStateEntered/Started/Succeeded/Exited + 2 branch events = 6. Fixed part:
 * ExecutionStarted/Succeeded (2), Nodes Parallel (4), Finish (6 + 4·R), Finished (2) = 26.
 * 300 nodes → 26 + 62·300 + 6·8 = 18,674. A run without retries or failures logs about 19
 * events per node and 10 per poll.
 */
export function estimateHistoryEvents(nodeCount: number, branchGroupSize = BRANCH_GROUP_SIZE): number {
  const task = 6 + 4 * TRANSIENT_RETRY_ATTEMPTS;
  const slotWait = 6; // no Retry: a failed wait goes on to Check_n
  const failureRecord = 6 + 4 * FAILURE_RECORD_ATTEMPTS;
  // Await, Gate, Start, Poll, WaitForSlot (once: a woken node holds its slot), Fail, end.
  const perNode = task + 2 + task + 2 + slotWait + failureRecord + 2;
  const groups = nodeCount > branchGroupSize ? Math.ceil(nodeCount / branchGroupSize) : 0;
  const fixed = 2 + 4 + task + 2;
  return fixed + perNode * nodeCount + 6 * groups;
}

/** Standard-workflow hard limits the compiled pipeline must stay under. */
export const STEP_FUNCTIONS_LIMITS = {
  historyEvents: 25_000,
  definitionBytes: 1_048_576,
  stateNameLength: 80,
} as const;
