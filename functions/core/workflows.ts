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

/** Actions the node runner understands (functions/executions/activities.ts). */
export type RunnerAction = 'acquire_slot' | 'run_query' | 'record_failure';

export interface RunnerInput {
  action: RunnerAction;
  execution_id: string;
  attempt?: number;
  error?: string;
  cause?: string;
}

export interface SlotResult {
  /** acquired: run now; waiting: poll again; finished: the execution ended meanwhile (e.g. cancelled). */
  status: 'acquired' | 'waiting' | 'finished';
  attempts: number;
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
  /** The execution's engine time limit; the Task's own timeout adds a margin on top. */
  queryTimeoutSeconds: number;
  /** Seconds between attempts to get an execution slot while queued. */
  slotPollSeconds: number;
}

/**
 * The one-node workflow for a single query execution: wait for a slot (the account's concurrency
 * limit), run the query, and record a failure if the run itself crashed or timed out.
 * History events: about 8 per slot poll + 10; the runner gives up queueing well under 25,000.
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
  return {
    Comment: 'Run one query execution',
    StartAt: 'AcquireSlot',
    States: {
      AcquireSlot: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: {
          action: 'acquire_slot',
          'execution_id.$': '$.execution_id',
          'attempt.$': '$.slot.attempts',
        },
        ResultPath: '$.slot',
        TimeoutSeconds: 30,
        Retry: retryTransient,
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RecordFailure' }],
        Next: 'SlotAcquired',
      },
      SlotAcquired: {
        Type: 'Choice',
        Choices: [
          { Variable: '$.slot.status', StringEquals: 'acquired', Next: 'RunQuery' },
          { Variable: '$.slot.status', StringEquals: 'finished', Next: 'Done' },
        ],
        Default: 'WaitForSlot',
      },
      WaitForSlot: { Type: 'Wait', Seconds: options.slotPollSeconds, Next: 'AcquireSlot' },
      RunQuery: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: { action: 'run_query', 'execution_id.$': '$.execution_id' },
        ResultPath: '$.run',
        TimeoutSeconds: options.queryTimeoutSeconds + 60,
        Retry: retryTransient,
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: 'RecordFailure' }],
        Next: 'Done',
      },
      RecordFailure: {
        Type: 'Task',
        Resource: options.runnerResource,
        Parameters: {
          action: 'record_failure',
          'execution_id.$': '$.execution_id',
          'error.$': '$.failure.Error',
          'cause.$': '$.failure.Cause',
        },
        ResultPath: null,
        TimeoutSeconds: 30,
        Retry: retryTransient,
        Next: 'Done',
      },
      Done: { Type: 'Succeed' },
    },
  };
}

export function singleQueryInput(executionId: string) {
  return { execution_id: executionId, slot: { status: 'waiting', attempts: 0 } };
}

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
