import { Duration, NestedStack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  type IMetric,
  MathExpression,
  Metric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface OperationsProps {
  readonly restApi: RestApi;
  readonly stateMachinePrefix: string;
  readonly scheduleDeadLetters: Queue;
  /** Subscribed to the alarm topic (`cdk deploy -c alarmEmail=oncall@example.com`); confirm the mail. */
  readonly alarmEmail?: string;
}

const PERIOD = Duration.minutes(5);

/**
 * The alarms someone on call needs first (docs/aws.md, "Operations"): workflows failing, the API
 * answering 5xx, functions erroring or throttled, refreshes parked in the dead-letter queue. Each
 * notifies the alarm topic (SNS, encrypted with a key of its own that CloudWatch may use, TLS
 * only); subscribe where the team gets paged, or pass `alarmEmail`. A nested stack, so alarms
 * cost one resource of the service stack's 500.
 */
export class Operations extends NestedStack {
  readonly alarms: readonly Alarm[];
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id, { description: 'Alarms of the onchain SQL service' });
    const alarm = (name: string, description: string, metric: IMetric, threshold: number) =>
      new Alarm(this, name, {
        alarmDescription: description,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });

    this.alarms = [
      // Machines are created at run time, so no metric of one machine can be named here: a Metrics
      // Insights query sums ExecutionsFailed over every machine of the account and region.
      alarm(
        'WorkflowsFailed',
        `Step Functions executions failed (every machine of the region; this stack's are ${props.stateMachinePrefix}-*)`,
        new MathExpression({
          expression: 'SELECT SUM(ExecutionsFailed) FROM SCHEMA("AWS/States", StateMachineArn)',
          period: PERIOD,
          label: 'Failed executions',
        }),
        1,
      ),
      alarm(
        'Api5xx',
        'The API answered 5xx (a handler crashed or timed out)',
        props.restApi.metricServerError({ period: PERIOD, statistic: 'Sum' }),
        5,
      ),
      // Lambda's account-level metrics (no dimension): one alarm instead of one per function.
      alarm('LambdaErrors', 'Lambda invocations ended in an error (account-wide)', lambdaMetric('Errors'), 5),
      alarm(
        'LambdaThrottles',
        'Lambda invocations were throttled (account-wide)',
        lambdaMetric('Throttles'),
        1,
      ),
      alarm(
        'RefreshDeadLetters',
        'A scheduled refresh could not be delivered after its retries (see the dead-letter queue)',
        props.scheduleDeadLetters.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
        }),
        1,
      ),
    ];
    this.alarmTopic = this.notificationTopic(props.alarmEmail);
    const notify = new SnsAction(this.alarmTopic);
    for (const each of this.alarms) each.addAlarmAction(notify);
  }

  /**
   * CloudWatch can publish to an encrypted topic only if the key's policy lets the CloudWatch
   * service principal use it, which an AWS managed key (aws/sns) cannot: so a customer managed
   * key (docs/aws.md, "Operations"). A topic policy replaces SNS's default one, so it allows
   * CloudWatch's publish explicitly, for this account's alarms only.
   */
  private notificationTopic(email: string | undefined): Topic {
    const cloudWatch = new ServicePrincipal('cloudwatch.amazonaws.com');
    const fromThisAccount = {
      StringEquals: { 'aws:SourceAccount': this.account },
      ArnLike: { 'aws:SourceArn': `arn:${this.partition}:cloudwatch:${this.region}:${this.account}:alarm:*` },
    };
    const key = new Key(this, 'AlarmTopicKey', {
      description: 'Encrypts the alarm notifications of the onchain SQL service',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'], // in a key policy, * is this key
        conditions: fromThisAccount,
      }),
    );
    const topic = new Topic(this, 'AlarmTopic', {
      displayName: 'Onchain SQL service alarms',
      masterKey: key,
      enforceSSL: true,
    });
    topic.addToResourcePolicy(
      new PolicyStatement({
        principals: [cloudWatch],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: fromThisAccount,
      }),
    );
    if (email) topic.addSubscription(new EmailSubscription(email));
    return topic;
  }
}

function lambdaMetric(metricName: string): Metric {
  return new Metric({ namespace: 'AWS/Lambda', metricName, period: PERIOD, statistic: 'Sum' });
}
