import { StateMachine } from 'aws-local-stepfunctions';
import { LOCAL_TASK_CONTEXT } from '../core/pipeline-workflow';
import { type Orchestrator, taskStateNames, type WorkflowStart, waitStateNames } from '../core/workflows';
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
  private readonly validated = new Set<string>();

  constructor(
    private readonly runner: () => LocalTaskHandler,
    private readonly options: { waitMillis?: number } = {},
  ) {}

  async start(run: WorkflowStart): Promise<void> {
    // Validating a definition (asl-validator) costs ~250 ms of CPU: do it once per distinct definition.
    const text = JSON.stringify(run.definition);
    const validated = this.validated.has(text);
    const machine = new StateMachine(run.definition as never, {
      validationOptions: validated ? { noValidate: true } : { checkArn: true, checkPaths: true },
    });
    if (!validated) this.validated.add(text);
    const handler = this.runner();
    const overrides = {
      taskResourceLocalHandlers: Object.fromEntries(
        taskStateNames(run.definition).map((name) => [
          name,
          (input: unknown) => handler(input as Record<string, unknown>),
        ]),
      ),
      ...(this.options.waitMillis !== undefined
        ? {
            waitTimeOverrides: Object.fromEntries(
              waitStateNames(run.definition).map((name) => [name, this.options.waitMillis!]),
            ),
          }
        : {}),
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

  async close(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) run.abort();
    await Promise.allSettled(runs.map((run) => run.done));
  }
}
