import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { MaterializedView } from '../core/materialized-views';
import { type RefreshScheduleRegistry, scheduleName, toEventBridgeCron } from '../core/refresh-schedules';

export interface EventBridgeScheduleOptions {
  groupName: string;
  /** The node-runner function the schedules invoke. */
  targetArn: string;
  /** Role EventBridge Scheduler assumes to invoke the target. */
  roleArn: string;
  /** SQS queue that receives invocations still failing after the retries, so none fail silently. */
  deadLetterArn?: string;
}

/**
 * A refresh that cannot be delivered (runner throttled or failing) is retried for up to an hour,
 * then parked in the dead-letter queue; the defaults would retry 185 times over 24 h and drop it.
 */
export const SCHEDULE_RETRY_POLICY = { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 };

/** One EventBridge schedule per scheduled view, invoking the runner with `scheduled_refresh`. */
export class EventBridgeRefreshSchedules implements RefreshScheduleRegistry {
  constructor(
    private readonly scheduler: SchedulerClient,
    private readonly options: EventBridgeScheduleOptions,
  ) {}

  async sync(view: MaterializedView): Promise<void> {
    if (!view.schedule) return this.remove(view.fullName);
    const input = {
      Name: scheduleName(view.fullName),
      GroupName: this.options.groupName,
      ScheduleExpression: toEventBridgeCron(view.schedule.cronExpression),
      ScheduleExpressionTimezone: 'UTC',
      ...(view.schedule.expiresAt ? { EndDate: new Date(view.schedule.expiresAt) } : {}),
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      State: 'ENABLED' as const,
      Target: {
        Arn: this.options.targetArn,
        RoleArn: this.options.roleArn,
        Input: JSON.stringify({ action: 'scheduled_refresh', materialized_view: view.fullName }),
        RetryPolicy: SCHEDULE_RETRY_POLICY,
        ...(this.options.deadLetterArn ? { DeadLetterConfig: { Arn: this.options.deadLetterArn } } : {}),
      },
    };
    try {
      await this.scheduler.send(new UpdateScheduleCommand(input));
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
      await this.scheduler.send(new CreateScheduleCommand(input));
    }
  }

  async remove(fullName: string): Promise<void> {
    try {
      await this.scheduler.send(
        new DeleteScheduleCommand({ Name: scheduleName(fullName), GroupName: this.options.groupName }),
      );
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}
