import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeRefreshSchedules } from '../../functions/aws/eventbridge-schedules';
import type { MaterializedView } from '../../functions/core/materialized-views';
import { scheduleName, toEventBridgeCron } from '../../functions/core/refresh-schedules';

const schedulerMock = mockClient(SchedulerClient);
const options = {
  groupName: 'svc-refresh',
  targetArn: 'arn:aws:lambda:us-east-1:123456789012:function:runner',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler',
  deadLetterArn: 'arn:aws:sqs:us-east-1:123456789012:svc-refresh-dead-letters',
};
const view: MaterializedView = {
  fullName: 'mv.analyst.result_daily_volume',
  name: 'result_daily_volume',
  accountId: 'a',
  ownerHandle: 'analyst',
  queryId: 1,
  isPrivate: true,
  performance: 'medium',
  schedule: { cronExpression: '0 */6 * * *', performance: 'medium', expiresAt: '2027-01-01T00:00:00Z' },
  lastExecutionIds: [],
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt: '2026-11-01T00:00:00Z',
};
const notFound = () => new ResourceNotFoundException({ message: 'not found', $metadata: {} } as never);

describe('EventBridge refresh schedules', () => {
  beforeEach(() => schedulerMock.reset());

  it('converts 5-field cron to EventBridge cron', () => {
    expect(toEventBridgeCron('0 */6 * * *')).toBe('cron(0 */6 * * ? *)');
    expect(toEventBridgeCron('30 8 * * 1-5')).toBe('cron(30 8 ? * 2-6 *)');
    expect(toEventBridgeCron('0 0 1 * *')).toBe('cron(0 0 1 * ? *)');
    expect(toEventBridgeCron('0 12 * * 0')).toBe('cron(0 12 ? * 1 *)');
    expect(scheduleName(view.fullName)).toBe('refresh-mv.analyst.result_daily_volume');
  });

  it('creates the schedule when it does not exist yet, targeting the runner with the view name', async () => {
    schedulerMock.on(UpdateScheduleCommand).rejects(notFound());
    schedulerMock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    await new EventBridgeRefreshSchedules(new SchedulerClient({ region: 'us-east-1' }), options).sync(view);
    const [create] = schedulerMock.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input);
    expect(create).toMatchObject({
      Name: 'refresh-mv.analyst.result_daily_volume',
      GroupName: 'svc-refresh',
      ScheduleExpression: 'cron(0 */6 * * ? *)',
      ScheduleExpressionTimezone: 'UTC',
      EndDate: new Date('2027-01-01T00:00:00Z'),
      Target: {
        Arn: options.targetArn,
        RoleArn: options.roleArn,
        // Retried for an hour, then parked in the dead-letter queue (never dropped silently).
        RetryPolicy: { MaximumRetryAttempts: 5, MaximumEventAgeInSeconds: 3600 },
        DeadLetterConfig: { Arn: options.deadLetterArn },
      },
    });
    expect(JSON.parse(create!.Target!.Input!)).toEqual({
      action: 'scheduled_refresh',
      materialized_view: view.fullName,
    });
  });

  it('updates an existing schedule, and removes it when the view has none (missing is fine)', async () => {
    schedulerMock.on(UpdateScheduleCommand).resolves({ ScheduleArn: 'arn:schedule' });
    const schedules = new EventBridgeRefreshSchedules(new SchedulerClient({ region: 'us-east-1' }), options);
    await schedules.sync(view);
    expect(schedulerMock.commandCalls(CreateScheduleCommand)).toHaveLength(0);
    schedulerMock.on(DeleteScheduleCommand).rejects(notFound());
    const { schedule: _none, ...unscheduled } = view;
    await expect(schedules.sync(unscheduled)).resolves.toBeUndefined();
    expect(schedulerMock.commandCalls(DeleteScheduleCommand)[0]?.args[0].input).toEqual({
      Name: 'refresh-mv.analyst.result_daily_volume',
      GroupName: 'svc-refresh',
    });
  });
});
