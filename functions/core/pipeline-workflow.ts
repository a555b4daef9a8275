/**
 * Compiles a pipeline graph to ASL (JSONPath only) with exact dependency semantics: encoding D of
 * ADR 0004, one Parallel state with one branch per node (nested in groups of 40 past 40 nodes, see
 * `compilePipelineWorkflow`), each branch parked on a task token until the runner says its
 * dependencies are done.
 *
 * Branch of node n (branches in topological order):
 *
 *   Await_n  lambda:invoke.waitForTaskToken {action: await_dependencies} → $.gate = {proceed}
 *   Gate_n   Choice: $.gate.proceed === true → Run_n, otherwise → Skipped_n (Succeed)
 *   Run_n    runner Lambda {action: run_node}; Retry transient errors; Catch States.ALL → Fail_n
 *   Fail_n   runner Lambda {action: record_node_failure, error, cause}; Catch States.ALL → Unrecorded_n
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
import { type AslState, type AslStateMachine, TRANSIENT_ERRORS } from './workflows';

/** Actions of the pipeline runner (the same Lambda / local handler as the single-query runner). */
export type PipelineRunnerAction =
  | 'await_dependencies'
  | 'run_node'
  | 'record_node_failure'
  | 'finish_pipeline';

export interface PipelineRunnerInput {
  action: PipelineRunnerAction;
  pipeline_execution_id: string;
  /** Absent for finish_pipeline. */
  node_id?: number;
  /** await_dependencies only: the token to pass to SendTaskSuccess ('local' in local runs). */
  task_token?: string;
  /** record_node_failure only: the ASL error name and cause caught from Await_n or Run_n. */
  error?: string;
  cause?: string;
}

/** What `await_dependencies` resolves with (SendTaskSuccess output in AWS, handler result locally). */
export interface DependencyGateResult {
  /** true: all dependencies succeeded, run the node. false: the runner recorded the node skipped. */
  proceed: boolean;
}

export interface PipelineWorkflowOptions {
  /** The pipeline-runner Lambda ARN (a placeholder ARN locally, where Tasks are bound by name). */
  runnerResource: string;
  /** Limit of one `run_node` call (the node's engine time limit plus a margin). */
  nodeTimeoutSeconds: number;
  /** Limit of a node's wait for its dependencies (at least the pipeline's expected duration). */
  awaitTimeoutSeconds: number;
  /** Node branches per Parallel before they are split into groups (default BRANCH_GROUP_SIZE). */
  branchGroupSize?: number;
}

/** aws-local-stepfunctions runs at most 40 branches of a Parallel at once. */
export const BRANCH_GROUP_SIZE = 40;

/** The context local runs must pass so `$$.Task.Token` resolves (it is static locally). */
export const LOCAL_TASK_CONTEXT = { Task: { Token: 'local' } } as const;

export const LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

/** Short-lived runner calls (await registration, failure record, finish). */
const BOOKKEEPING_TIMEOUT_SECONDS = 60;

/** Retry of transient errors on every Task: at most this many retries per Task. */
export const TRANSIENT_RETRY_ATTEMPTS = 3;

const retryTransient = [
  {
    ErrorEquals: TRANSIENT_ERRORS,
    IntervalSeconds: 1,
    MaxAttempts: TRANSIENT_RETRY_ATTEMPTS,
    BackoffRate: 2,
    JitterStrategy: 'FULL',
  },
];

/** Name of the Parallel state that holds the node branches. */
export const NODES_STATE = 'Nodes';
export const FINISH_STATE = 'Finish';

export const pipelineStateNames = (nodeId: number) => ({
  await: `Await_${nodeId}`,
  gate: `Gate_${nodeId}`,
  run: `Run_${nodeId}`,
  fail: `Fail_${nodeId}`,
  skipped: `Skipped_${nodeId}`,
  unrecorded: `Unrecorded_${nodeId}`,
});

/** The node id a branch Task state name belongs to (`Run_12` → 12), or undefined. */
export function nodeIdOfState(stateName: string): number | undefined {
  const match = /^(?:Await|Gate|Run|Fail|Skipped|Unrecorded)_(-?\d+)$/.exec(stateName);
  return match ? Number(match[1]) : undefined;
}

function nodeBranch(nodeId: number, options: PipelineWorkflowOptions): AslStateMachine {
  const names = pipelineStateNames(nodeId);
  const ids = { 'pipeline_execution_id.$': '$.pipeline_execution_id', node_id: nodeId };
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
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: names.fail }],
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
          Next: names.run,
        },
      ],
      Default: names.skipped,
    },
    // The runner already recorded the node skipped when it answered proceed=false.
    [names.skipped]: { Type: 'Succeed' },
    [names.run]: {
      Type: 'Task',
      Resource: options.runnerResource,
      Parameters: { action: 'run_node', ...ids },
      // Status and results live in DynamoDB; nothing of the result stays in the branch state.
      ResultPath: null,
      TimeoutSeconds: options.nodeTimeoutSeconds,
      Retry: retryTransient,
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: names.fail }],
      End: true,
    },
    [names.fail]: {
      Type: 'Task',
      Resource: options.runnerResource,
      Parameters: {
        action: 'record_node_failure',
        ...ids,
        'error.$': '$.failure.Error',
        'cause.$': '$.failure.Cause',
      },
      // Replaces the caught {Error, Cause} so the branch output stays a few bytes.
      ResultSelector: { recorded: true },
      ResultPath: '$.failure',
      TimeoutSeconds: BOOKKEEPING_TIMEOUT_SECONDS,
      Retry: retryTransient,
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
  const nodeBranches = topologicalOrder(graph).map((id) => nodeBranch(id, options));
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
 * retried then failed), counting 6 events per Task and 4 per retry:
 *
 *   branch start/end        2   (AWS logs no per-branch events; counted anyway)
 *   Await_n                 6 + 4·R   TaskStateEntered, TaskScheduled, TaskStarted, TaskSubmitted,
 *                                     TaskSucceeded|Failed|TimedOut, TaskStateExited; a retry adds
 *                                     TaskScheduled, TaskStarted, (TaskSubmitted), TaskFailed
 *   Gate_n                  2   ChoiceStateEntered/Exited
 *   Run_n                   6 + 4·R   (a Lambda-ARN Task logs 5: TaskStateEntered, LambdaFunction
 *                                     Scheduled/Started/Succeeded|Failed, TaskStateExited)
 *   Fail_n                  6 + 4·R
 *   Unrecorded_n / end      2   SucceedStateEntered/Exited
 *
 * with R = TRANSIENT_RETRY_ATTEMPTS = 3: 60 per node. Per group of 40 nodes (past 40 nodes):
 * ParallelStateEntered/Started/Succeeded/Exited + 2 branch events = 6. Fixed part:
 * ExecutionStarted/Succeeded (2), Nodes Parallel (4), Finish (6 + 4·R), Finished (2) = 26.
 * 300 nodes → 26 + 60·300 + 6·8 = 18,074. A run without retries or failures logs about 15
 * events per node (about 4,600 for 300 nodes).
 */
export function estimateHistoryEvents(nodeCount: number, branchGroupSize = BRANCH_GROUP_SIZE): number {
  const task = 6 + 4 * TRANSIENT_RETRY_ATTEMPTS;
  const perNode = 2 + task + 2 + task + task + 2;
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
