/**
 * Amazon States Language (JSONPath only, so the same definition runs on Step Functions and on
 * aws-local-stepfunctions) and the workflows the service generates.
 *
 * Every Task calls the node-runner function with `{action, ...ids}`: payloads carry ids, never
 * data. Locally the same Task states are bound to the in-process runner by state name.
 */
export interface AslState {
  Type: 'Task' | 'Choice' | 'Wait' | 'Pass' | 'Succeed' | 'Fail' | 'Parallel' | 'Map';
  [key: string]: unknown;
}

export interface AslStateMachine {
  Comment?: string;
  StartAt: string;
  TimeoutSeconds?: number;
  States: Record<string, AslState>;
}

/** Actions of the single-query workflow the node runner understands (functions/runner). */
export type RunnerAction = 'acquire_slot' | 'submit_query' | 'check_query' | 'record_failure';

export interface RunnerInput {
  action: RunnerAction;
  execution_id: string;
  /** acquire_slot: the Task's token (its result is delivered to it once a slot is free). */
  task_token?: string;
  /** acquire_slot of a polling caller (workflows started before the slot gate): polls so far. */
  attempt?: number;
  /** check_query: status reads so far. */
  polls?: number;
  error?: string;
  cause?: string;
}

/** What StartQuery and CheckQuery answer: poll again after `wait_seconds`, or the run has ended. */
export interface QueryProgress {
  status: 'running' | 'finished';
  polls: number;
  wait_seconds: number;
}

/** Status reads of a running query: every second at first, doubling every 3 reads, at most every 10 s. */
export const QUERY_POLL_MAX_SECONDS = 10;

export function queryPollSeconds(polls: number): number {
  return Math.min(QUERY_POLL_MAX_SECONDS, 2 ** Math.floor(Math.max(0, polls) / 3));
}

export interface SlotResult {
  /**
   * acquired: run now; waiting: poll again; finished: the execution ended meanwhile (e.g.
   * cancelled); running: AcquireSlot got the slot itself and submitted the query at once (the
   * workflow goes straight to polling, with `polls` and `wait_seconds` as StartQuery answers).
   */
  status: 'acquired' | 'waiting' | 'finished' | 'running';
  attempts: number;
  polls?: number;
  wait_seconds?: number;
}

/** Error names the runner throws for failures worth retrying (engine busy or unreachable). */
export const TRANSIENT_ERRORS = [
  'Engine.Unavailable',
  'Lambda.ServiceException',
  'Lambda.TooManyRequestsException',
];

export interface QueryWorkflowOptions {
  /** The node-runner function ARN (a local placeholder ARN in the local host). */
  runnerResource: string;
  /** How long a queued execution may wait for a slot before it fails (the AcquireSlot Task's timeout). */
  slotWaitSeconds: number;
}

/** State names of the single-query workflow; the local host binds its Tasks by these names. */
export const QUERY_STATES = {
  acquireSlot: 'AcquireSlot',
  slotAcquired: 'SlotAcquired',
  submittedAtOnce: 'SubmittedAtOnce',
  /** Not a state of the single-query workflow (AcquireSlot): the prefix of a pipeline node's slot wait. */
  waitForSlot: 'WaitForSlot',
  startQuery: 'StartQuery',
  queryRunning: 'QueryRunning',
  waitForQuery: 'WaitForQuery',
  checkQuery: 'CheckQuery',
  recordFailure: 'RecordFailure',
  done: 'Done',
} as const;

/** Whether a Wait state spaces a running query's status reads (single-query or pipeline node). */
export function isQueryPollWait(stateName: string): boolean {
  return stateName === QUERY_STATES.waitForQuery || stateName.startsWith(`${QUERY_STATES.waitForQuery}_`);
}

/** Runner calls that only read or write a few records (an Athena result is indexed in CheckQuery). */
const QUICK_TASK_SECONDS = 60;
const CHECK_TASK_SECONDS = 300;

/**
 * The one-node workflow for a single query execution: wait for a slot (the account's concurrency
 * limit) parked on a task token (the slot gate, core/slot-gate.ts: whoever frees a slot hands it
 * on, so a queued execution costs the same few transitions however long it waits), submit the
 * query, then poll its status from a Wait loop until it ends, so no function ever waits on a
 * running query (in AWS the runner Lambda returns at once each time); record a failure if a Task
 * itself crashed or timed out. The engine enforces the query's time limit, so one definition (one
 * state machine in AWS) serves every tier.
 * History events: about 14 to get a slot, and 9 per status poll (a 30-minute query: about 190
 * polls), well under 25,000.
 */
export function singleQueryWorkflow(options: QueryWorkflowOptions): AslStateMachine {
  const retryTransient = [
    {
      ErrorEquals: TRANSIENT_ERRORS,
      IntervalSeconds: 1,
      MaxAttempts: 3,
      BackoffRate: 2,
      JitterStrategy: 'FULL',
    },
  ];
  const catchAll = [
    { ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: QUERY_STATES.recordFailure },
  ];
  const S = QUERY_STATES;
  return {
    Comment: 'Run one query execution: slot, submit, poll until it ends',
    StartAt: S.acquireSlot,
    States: {
      [S.acquireSlot]: {
        Type: 'Task',
        Resource: LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN,
        Parameters: {
          FunctionName: options.runnerResource,
          Payload: {
            action: 'acquire_slot',
            'execution_id.$': '$.execution_id',
            'task_token.$': '$$.Task.Token',
          },
        },
        // AWS: the SendTaskSuccess output; locally: the handler's return value. Either is SlotResult.
        ResultPath: '$.slot',
        // Past it the execution fails resource_exhausted (RecordFailure: States.Timeout, no run).
        TimeoutSeconds: options.slotWaitSeconds,
        Retry: retryTransient,
        Catch: catchAll,
        Next: S.slotAcquired,
      },
      [S.slotAcquired]: {
        Type: 'Choice',
        Choices: [
          // A slot handed on later (SendTaskSuccess from whoever freed it): submit now.
          { Variable: '$.slot.status', StringEquals: 'acquired', Next: S.startQuery },
          // AcquireSlot got a slot at once and submitted the query itself: one Task fewer.
          { Variable: '$.slot.status', StringEquals: 'running', Next: S.submittedAtOnce },
        ],
        Default: S.done,
      },
      [S.submittedAtOnce]: { Type: 'Pass', InputPath: '$.slot', ResultPath: '$.run', Next: S.queryRunning },
      [S.startQuery]: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: { action: 'submit_query', 'execution_id.$': '$.execution_id' },
        ResultPath: '$.run',
        TimeoutSeconds: QUICK_TASK_SECONDS,
        Retry: retryTransient,
        Catch: catchAll,
        Next: S.queryRunning,
      },
      [S.queryRunning]: {
        Type: 'Choice',
        Choices: [{ Variable: '$.run.status', StringEquals: 'running', Next: S.waitForQuery }],
        Default: S.done,
      },
      [S.waitForQuery]: { Type: 'Wait', SecondsPath: '$.run.wait_seconds', Next: S.checkQuery },
      [S.checkQuery]: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: { action: 'check_query', 'execution_id.$': '$.execution_id', 'polls.$': '$.run.polls' },
        ResultPath: '$.run',
        TimeoutSeconds: CHECK_TASK_SECONDS,
        Retry: retryTransient,
        Catch: catchAll,
        Next: S.queryRunning,
      },
      [S.recordFailure]: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: {
          action: 'record_failure',
          'execution_id.$': '$.execution_id',
          'error.$': '$.failure.Error',
          'cause.$': '$.failure.Cause',
        },
        ResultPath: null,
        TimeoutSeconds: QUICK_TASK_SECONDS,
        Retry: retryTransient,
        Next: S.done,
      },
      [S.done]: { Type: 'Succeed' },
    },
  };
}

export function singleQueryInput(executionId: string) {
  return { execution_id: executionId };
}

export const LAMBDA_INVOKE_WAIT_FOR_TASK_TOKEN = 'arn:aws:states:::lambda:invoke.waitForTaskToken';

/** Every Task state name, Parallel branches and Map processors included. */
export function taskStateNames(machine: AslStateMachine): string[] {
  const names: string[] = [];
  for (const [name, state] of Object.entries(machine.States)) {
    if (state.Type === 'Task') names.push(name);
    for (const branch of (state.Branches as AslStateMachine[] | undefined) ?? [])
      names.push(...taskStateNames(branch));
    const processor = (state.ItemProcessor ?? state.Iterator) as AslStateMachine | undefined;
    if (processor) names.push(...taskStateNames(processor));
  }
  return names;
}

export function waitStateNames(machine: AslStateMachine): string[] {
  const names: string[] = [];
  for (const [name, state] of Object.entries(machine.States)) {
    if (state.Type === 'Wait') names.push(name);
    for (const branch of (state.Branches as AslStateMachine[] | undefined) ?? [])
      names.push(...waitStateNames(branch));
  }
  return names;
}

export interface WorkflowStart {
  /** Unique per run (the execution or pipeline-execution id). */
  name: string;
  definition: AslStateMachine;
  input: Record<string, unknown>;
}

/** Runs generated workflows: Step Functions in AWS, aws-local-stepfunctions locally. */
export interface Orchestrator {
  start(run: WorkflowStart): Promise<void>;
  /** Stops local runs (no-op in AWS, where runs outlive the caller). */
  close(): Promise<void>;
}
