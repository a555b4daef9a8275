import { createHash } from 'node:crypto';
import {
  CreateStateMachineCommand,
  ExecutionAlreadyExists,
  type SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import type { Orchestrator, WorkflowStart } from '../core/workflows';

export interface StepFunctionsOptions {
  /** Role the state machines run as (may invoke the node runner). */
  roleArn: string;
  /** Prefix of generated machine names; IAM policies are scoped to it. */
  namePrefix: string;
  /** CloudWatch Logs group (ARN ending `:*`) the machines log their errors to. */
  logGroupArn?: string;
  /** Tags every machine gets (the stack it belongs to: `npm run cleanup-workflows` selects on it). */
  tags?: Readonly<Record<string, string>>;
}

/**
 * Runs generated workflows on AWS Step Functions. A machine is named by a hash of its definition:
 * CreateStateMachine is idempotent for an identical name and definition, so the same graph reuses
 * one machine across runs, and the slow, throttled create call happens once per graph per
 * process (the ARN is cached).
 */
export class StepFunctionsOrchestrator implements Orchestrator {
  private readonly machines = new Map<string, Promise<string>>();

  constructor(
    private readonly sfn: SFNClient,
    private readonly options: StepFunctionsOptions,
  ) {}

  async start(run: WorkflowStart): Promise<void> {
    const definition = JSON.stringify(run.definition);
    const stateMachineArn = await this.machineFor(definition);
    try {
      await this.sfn.send(
        new StartExecutionCommand({ stateMachineArn, name: run.name, input: JSON.stringify(run.input) }),
      );
    } catch (error) {
      // Same name and input: a retried start of a run that already started.
      if (!(error instanceof ExecutionAlreadyExists)) throw error;
    }
  }

  async close(): Promise<void> {}

  /** `<prefix>-<sha256 of the definition, 40 hex>`: at most 80 characters, as Step Functions requires. */
  machineName(definition: string): string {
    const hash = createHash('sha256').update(definition).digest('hex').slice(0, 40);
    return `${this.options.namePrefix}-${hash}`.slice(0, 80);
  }

  /** Errors only, without execution data (inputs and outputs carry SQL and ids, not for the logs). */
  private logging() {
    if (!this.options.logGroupArn) return {};
    return {
      loggingConfiguration: {
        level: 'ERROR' as const,
        includeExecutionData: false,
        destinations: [{ cloudWatchLogsLogGroup: { logGroupArn: this.options.logGroupArn } }],
      },
    };
  }

  private machineFor(definition: string): Promise<string> {
    const name = this.machineName(definition);
    let arn = this.machines.get(name);
    if (!arn) {
      arn = (async () => {
        const created = await this.sfn.send(
          new CreateStateMachineCommand({
            name,
            definition,
            roleArn: this.options.roleArn,
            type: 'STANDARD',
            ...this.logging(),
            ...(this.options.tags
              ? { tags: Object.entries(this.options.tags).map(([key, value]) => ({ key, value })) }
              : {}),
          }),
        );
        return created.stateMachineArn!;
      })();
      arn.catch(() => this.machines.delete(name));
      this.machines.set(name, arn);
    }
    return arn;
  }
}
