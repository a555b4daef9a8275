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
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface OperationsProps {
  readonly restApi: RestApi;
  readonly stateMachinePrefix: string;
  readonly scheduleDeadLetters: Queue;
}

const PERIOD = Duration.minutes(5);

/**
 * The alarms someone on call needs first (docs/aws.md, "Operations"): workflows failing, the API
 * answering 5xx, functions erroring or throttled, refreshes parked in the dead-letter queue. They
 * have no actions: subscribe a topic to them (`alarm.addAlarmAction`) where the team gets paged.
 * A nested stack, so alarms cost one resource of the service stack's 500.
 */
export class Operations extends NestedStack {
  readonly alarms: readonly Alarm[];

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
  }
}

function lambdaMetric(metricName: string): Metric {
  return new Metric({ namespace: 'AWS/Lambda', metricName, period: PERIOD, statistic: 'Sum' });
}
