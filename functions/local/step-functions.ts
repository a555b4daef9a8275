import { StateMachine } from 'aws-local-stepfunctions';
import { LOCAL_TASK_CONTEXT } from '../core/pipeline-workflow';
import {
  isQueryPollWait,
  type Orchestrator,
  taskStateNames,
  type WorkflowStart,
  waitStateNames,
} from '../core/workflows';
import { logger } from '../http/logger';

export type LocalTaskHandler = (input: Record<string, unknown>) => Promise<unknown>;

/** The placeholder ARN generated workflows name locally; every Task is bound to a local handler. */
export const LOCAL_RUNNER_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:local-node-runner';

/**
 * Runs the generated ASL on aws-local-stepfunctions, in process. Every Task state is bound by name
 * to the node runner (the same code the runner Lambda calls in AWS); Wait states can be shortened
 * so local queues poll quickly.
 */
export class LocalStepFunctions implements Orchestrator {
  private readonly running = new Map<string, { abort: () => void; done: Promise<unknown> }>();
  /** Task handlers still running: aborting a workflow does not stop the one it is awaiting. */
  private readonly tasksInFlight = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly runner: () => LocalTaskHandler,
    private readonly options: {
      /** Every Wait state lasts this long locally (slot waits poll quickly). */
      waitMillis?: number;
      /**
       * The status-poll Waits (WaitForQuery, WaitForQuery_n) last this long instead: 0 when the
       * engine runs in this process, whose status read itself waits for the run to change.
       */
      queryPollWaitMillis?: number;
    } = {},
  ) {}

  async start(run: WorkflowStart): Promise<void> {
    if (this.stopped) throw new Error('The local workflow runner is shutting down.');
    // Not validated here: the definitions come from our compilers, whose every shape the unit tests
    // validate (test/unit/pipeline-workflow.test.ts, workflows.test.ts), as Step Functions does
    // when it creates a machine. asl-validator compiles its schemas on each call: ~250 ms of this
    // event loop (every request waits) for each new pipeline graph's first run.
    const machine = new StateMachine(run.definition as never, { validationOptions: { noValidate: true } });
    const handler = this.runner();
    const overrides = {
      taskResourceLocalHandlers: Object.fromEntries(
        taskStateNames(run.definition).map((name) => [
          name,
          (input: unknown) => this.track(handler(input as Record<string, unknown>)),
        ]),
      ),
      waitTimeOverrides: Object.fromEntries(
        waitStateNames(run.definition).flatMap((name) => {
          const millis = isQueryPollWait(name) ? this.options.queryPollWaitMillis : undefined;
          return [[name, millis ?? this.options.waitMillis]].filter(([, value]) => value !== undefined);
        }),
      ),
    };
    const execution = machine.run(run.input as never, {
      overrides: overrides as never,
      noThrowOnAbort: true,
      // $$.Task.Token is static locally; dependency gates wait in the handler instead of on the token.
      context: { Execution: { Id: run.name, Name: run.name }, ...LOCAL_TASK_CONTEXT } as never,
    });
    const done = execution.result
      .catch((error: unknown) => {
        logger.error('local workflow failed', { workflow: run.name, error: error as Error });
      })
      .finally(() => this.running.delete(run.name));
    this.running.set(run.name, { abort: execution.abort, done });
  }

  /** Number of workflows still running (for tests and shutdown). */
  get activeCount(): number {
    return this.running.size;
  }

  /**
   * Stops every workflow at its current state: no further state starts. Task handlers already
   * running go on until they return (close() waits for them).
   */
  abortAll(): void {
    this.stopped = true;
    for (const run of this.running.values()) run.abort();
  }

  /**
   * Aborts every workflow, then waits (at most `graceMillis`) for them and for the task handlers
   * they were awaiting, so nothing writes to the store after the host closed it.
   */
  async close(graceMillis = 10_000): Promise<void> {
    const runs = [...this.running.values()];
    this.abortAll();
    let timer: NodeJS.Timeout | undefined;
    const settled = Promise.allSettled([...runs.map((run) => run.done), ...this.tasksInFlight]);
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), graceMillis);
    });
    if ((await Promise.race([settled, expired])) === 'expired') {
      logger.warn('local workflow tasks still running at shutdown', { tasks: this.tasksInFlight.size });
    }
    clearTimeout(timer);
  }

  private track<T>(task: Promise<T>): Promise<T> {
    this.tasksInFlight.add(task);
    const forget = () => this.tasksInFlight.delete(task);
    task.then(forget, forget);
    return task;
  }
}
