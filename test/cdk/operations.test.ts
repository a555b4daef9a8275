import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { synthServiceStack } from './helpers';

type Resource = { Type: string; Properties: Record<string, unknown> };

describe('operations: alarms notify an encrypted SNS topic', () => {
  const { stack, template } = synthServiceStack({ alarmEmail: 'oncall@example.com' });
  const nested = Template.fromStack(stack.operations);
  const resources = Object.entries(nested.toJSON().Resources as Record<string, Resource>);
  const ofType = (type: string) => resources.filter(([, r]) => r.Type === type);

  it('gives every alarm the topic as its action', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm');
    expect(alarms).toHaveLength(5);
    const [[topicId]] = ofType('AWS::SNS::Topic') as [[string, Resource]];
    for (const [id, alarm] of alarms) expect(alarm.Properties.AlarmActions, id).toEqual([{ Ref: topicId }]);
  });

  it('encrypts the topic with a rotated key of its own that CloudWatch (of this account) may use', () => {
    const [[keyId, key]] = ofType('AWS::KMS::Key') as [[string, Resource]];
    expect(key.Properties.EnableKeyRotation).toBe(true);
    const [[, topic]] = ofType('AWS::SNS::Topic') as [[string, Resource]];
    expect(topic.Properties.KmsMasterKeyId).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
    const statements = (key.Properties.KeyPolicy as { Statement: Record<string, unknown>[] }).Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Condition: expect.objectContaining({
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
        }),
      }),
    );
  });

  it('lets CloudWatch publish, refuses requests without TLS, and mails the given address', () => {
    const [[, policy]] = ofType('AWS::SNS::TopicPolicy') as [[string, Resource]];
    const statements = (policy.Properties.PolicyDocument as { Statement: Record<string, unknown>[] })
      .Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Allow',
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
      }),
    );
    expect(statements).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
    nested.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
    });
    expect(Object.keys(template.toJSON().Outputs)).toContain('AlarmTopicArn');
  });

  it('subscribes nobody unless asked', () => {
    const { stack: plain } = synthServiceStack();
    Template.fromStack(plain.operations).resourceCountIs('AWS::SNS::Subscription', 0);
  });
});

describe('the sweep of lost work', () => {
  const { stack, template } = synthServiceStack();

  it('invokes the node runner every 5 minutes with {action: sweep}, in the default schedule group', () => {
    const schedules = template.findResources('AWS::Scheduler::Schedule');
    const [sweep] = Object.values(schedules) as Resource[];
    expect(Object.keys(schedules)).toHaveLength(1);
    expect(sweep!.Properties).toMatchObject({
      ScheduleExpression: 'rate(5 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: {
        Input: JSON.stringify({ action: 'sweep' }),
        RetryPolicy: { MaximumRetryAttempts: 0 },
        DeadLetterConfig: { Arn: expect.anything() },
      },
    });
    // Not in the refresh group, whose schedules the runner manages.
    expect(sweep!.Properties.GroupName).toBeUndefined();
    const target = sweep!.Properties.Target as { Arn: unknown; RoleArn: unknown };
    expect(JSON.stringify(target.Arn)).toContain(`${stack.executions.stateMachinePrefix}-node-runner`);
    expect(JSON.stringify(target.RoleArn)).toContain('SchedulerRole');
  });
});
