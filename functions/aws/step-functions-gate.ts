import {
  InvalidToken,
  SendTaskSuccessCommand,
  type SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import type { AwaitRequest, DependencyGate, GateDecision } from '../core/dependency-gate';

/** Where a waiting node's task token is kept until its dependencies decide. */
export interface TaskTokenStore {
  put(pipelineExecutionId: string, nodeId: number, token: string): Promise<void>;
  get(pipelineExecutionId: string, nodeId: number): Promise<string | undefined>;
}

/**
 * Dependency gate on Step Functions: the Await Task (`lambda:invoke.waitForTaskToken`) stores its
 * token and returns; the decision reaches the workflow through SendTaskSuccess, sent either at
 * once (dependencies already decided) or by whichever node ends last. Storing the token before
 * deciding closes the race with a dependency that ends meanwhile; a second send for the same
 * token is refused by Step Functions and ignored here.
 */
export class StepFunctionsDependencyGate implements DependencyGate {
  constructor(
    private readonly sfn: SFNClient,
    private readonly tokens: TaskTokenStore,
  ) {}

  async awaitDependencies(request: AwaitRequest): Promise<undefined> {
    await this.tokens.put(request.pipelineExecutionId, request.nodeId, request.taskToken);
    await this.deliver(request.taskToken, await request.decide());
    return undefined;
  }

  async nodeEnded(
    pipelineExecutionId: string,
    dependents: readonly { nodeId: number; decide: () => Promise<GateDecision> }[],
  ): Promise<void> {
    for (const dependent of dependents) {
      const token = await this.tokens.get(pipelineExecutionId, dependent.nodeId);
      if (token) await this.deliver(token, await dependent.decide());
    }
  }

  private async deliver(token: string, decision: GateDecision): Promise<void> {
    if (decision === 'wait') return;
    await sendTaskOutput(this.sfn, token, { proceed: decision === 'proceed' });
  }
}

/**
 * Completes a parked Task with `output`. A token that was answered already, timed out or belongs
 * to a stopped execution is refused by Step Functions: nothing is waiting on it any more, so that
 * is not an error here.
 */
export async function sendTaskOutput(sfn: SFNClient, taskToken: string, output: unknown): Promise<void> {
  try {
    await sfn.send(new SendTaskSuccessCommand({ taskToken, output: JSON.stringify(output) }));
  } catch (error) {
    if (error instanceof TaskDoesNotExist || error instanceof TaskTimedOut || error instanceof InvalidToken)
      return;
    throw error;
  }
}
