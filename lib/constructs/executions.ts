import { createHash } from 'node:crypto';
import { ArnFormat, Duration, RemovalPolicy, Stack, Token, Validations } from 'aws-cdk-lib';
import {
  type IGrantable,
  type IRole,
  PolicyStatement,
  type Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CfnSchedule, CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { InlinePolicyRole } from './function-roles';
import { acknowledgeOnGrantee, nagArn } from './nag';
import { createServiceFunction } from './service-function';

export const RUNNER_ENTRY = 'functions/runner/handler.ts';
/** How often the sweep of lost work runs (functions/runner/sweeper.ts). */
export const SWEEP_EVERY_MINUTES = 5;
export const RUNNER_HANDLER = 'handler';
/** Lambda's maximum. The RunQuery Task waits for its query inside one invocation. */
export const RUNNER_TIMEOUT_SECONDS = 900;
export const RUNNER_MEMORY_MB = 1024;
/**
 * The engine's time limit per query (the service's own default is 1800 s). Until Athena polling
 * moves into the workflow, a query must finish within one runner invocation: the limit leaves the
 * runner 60 s to record the outcome, and the generated RunQuery Task times out at limit + 60 s,
 * which is exactly the runner's timeout.
 */
export const QUERY_TIMEOUT_SECONDS = RUNNER_TIMEOUT_SECONDS - 60;

/** Step Functions names are at most 80 characters; the orchestrator appends `-<40 hex>`. */
export const STATE_MACHINE_PREFIX_MAX_LENGTH = 80 - 41;
/**
 * CloudFormation stack names cannot contain `_`, so `<stack>_wf-*` never matches the machines of
 * another stack (with `-wf`, stack `A`'s `A-wf-*` would cover stack `A-wf-b`'s `A-wf-b-wf-...`).
 */
const PREFIX_SUFFIX = '_wf';

/**
 * The account-unique prefix of this stack's generated state machine names (IAM policies are
 * scoped to it). A stack name too long to fit keeps its start plus a hash of the whole name.
 */
export function stateMachinePrefix(stackName: string): string {
  if (Token.isUnresolved(stackName)) throw new Error('The stack name must be known at synth time.');
  const prefix = `${stackName}${PREFIX_SUFFIX}`;
  if (prefix.length <= STATE_MACHINE_PREFIX_MAX_LENGTH) return prefix;
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 8);
  const keep = STATE_MACHINE_PREFIX_MAX_LENGTH - PREFIX_SUFFIX.length - hash.length - 1;
  return `${stackName.slice(0, keep)}-${hash}${PREFIX_SUFFIX}`;
}

/** Tag every generated state machine carries: the stack's name (the cleanup command selects on it). */
export const WORKFLOW_STACK_TAG = 'onchain-sql-service:stack';

export interface ExecutionsProps {
  /** The runner's own execution role (function group `runner`): Athena, results, workflow steps. */
  readonly role: IRole;
  /** Table names (and anything else) the runner needs. */
  readonly environment: Readonly<Record<string, string>>;
}

/**
 * Query executions run as Step Functions workflows that the API generates at run time
 * (`functions/aws/step-functions-orchestrator.ts` creates `<prefix>-<hash>` machines, then starts
 * them): this construct is what those workflows need, the node-runner function every Task state
 * invokes and the role the machines run as. Machines are not stack resources, so they cost nothing
 * against the resource limit.
 */
export class Executions extends Construct {
  /** Runs each Task state (`{action, execution_id, ...}`); not an API route. */
  readonly runner: NodejsFunction;
  /** The role generated state machines run as: it may only invoke the runner. */
  readonly workflowRole: Role;
  readonly stateMachinePrefix: string;
  /** Holds one EventBridge schedule per scheduled materialized view. */
  readonly scheduleGroup: CfnScheduleGroup;
  /** The role the schedules run as: it may only invoke the runner (and park failures in the DLQ). */
  readonly schedulerRole: Role;
  readonly scheduleDeadLetters: Queue;
  /** Invokes the runner's sweep of lost work every SWEEP_EVERY_MINUTES. */
  readonly sweepSchedule: CfnSchedule;
  /** Where generated state machines log (errors only, no execution data). */
  readonly workflowLogs: LogGroup;
  /** What a function that starts executions needs to know (the runner itself is built with it). */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ExecutionsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.stateMachinePrefix = stateMachinePrefix(stack.stackName);

    this.workflowRole = new InlinePolicyRole(this, 'WorkflowRole', {
      assumedBy: new ServicePrincipal('states.amazonaws.com'),
      description: 'Role of the generated query-execution state machines (invokes the node runner)',
    });
    // `/aws/vendedlogs/` keeps CloudWatch Logs' resource policy small however many machines log here.
    this.workflowLogs = new LogGroup(this, 'WorkflowLogs', {
      logGroupName: `/aws/vendedlogs/states/${this.stateMachinePrefix}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // What a state machine's role needs to deliver its logs (AWS's documented policy, docs/aws.md).
    this.workflowRole.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'logs:CreateLogDelivery',
          'logs:GetLogDelivery',
          'logs:UpdateLogDelivery',
          'logs:DeleteLogDelivery',
          'logs:ListLogDeliveries',
          'logs:PutResourcePolicy',
          'logs:DescribeResourcePolicies',
          'logs:DescribeLogGroups',
        ],
        resources: ['*'],
      }),
    );
    Validations.of(this.workflowRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CloudWatch Logs delivery actions have no resource-level permissions (Step Functions logging docs)',
    });

    // A fixed name, so the runner (which builds workflows too) can be told its own ARN without
    // a reference to itself, which CloudFormation would refuse as a cycle.
    const runnerName = `${this.stateMachinePrefix}-node-runner`;
    const runnerArn = stack.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: runnerName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    this.scheduleGroup = new CfnScheduleGroup(this, 'RefreshSchedules', {
      name: `${this.stateMachinePrefix}-refresh`,
    });
    this.schedulerRole = new InlinePolicyRole(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Role of the materialized-view refresh schedules (invokes the node runner)',
    });
    // Refreshes that still fail after the schedule's retries land here instead of vanishing.
    this.scheduleDeadLetters = new Queue(this, 'RefreshDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.scheduleDeadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'It is the dead-letter queue of the refresh schedules (an alarm watches it)',
    });
    this.scheduleDeadLetters.grantSendMessages(this.schedulerRole);

    this.environment = {
      STATE_MACHINE_ROLE_ARN: this.workflowRole.roleArn,
      STATE_MACHINE_PREFIX: this.stateMachinePrefix,
      STATE_MACHINE_LOG_GROUP_ARN: this.workflowLogs.logGroupArn,
      STATE_MACHINE_STACK_TAG: `${WORKFLOW_STACK_TAG}=${stack.stackName}`,
      QUERY_TIMEOUT_SECONDS: String(QUERY_TIMEOUT_SECONDS),
      NODE_RUNNER_ARN: runnerArn,
      SCHEDULE_GROUP_NAME: this.scheduleGroup.name!,
      SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
      SCHEDULE_DLQ_ARN: this.scheduleDeadLetters.queueArn,
    };
    this.runner = createServiceFunction(this, {
      id: 'NodeRunner',
      functionName: runnerName,
      description: 'Node runner of the query-execution workflows (Step Functions Task states)',
      entry: RUNNER_ENTRY,
      handler: RUNNER_HANDLER,
      timeoutSeconds: RUNNER_TIMEOUT_SECONDS,
      memoryMb: RUNNER_MEMORY_MB,
      role: props.role,
      // The runner starts workflows and syncs schedules too (slot wake-ups, pipeline retries).
      environment: { ...props.environment, ...this.environment },
    });
    // The unqualified function only (Task states and schedules invoke it, no version or alias),
    // by its known ARN: the runner's role may pass these roles, so referencing the function here
    // would make a dependency cycle.
    for (const invoker of [this.workflowRole, this.schedulerRole]) {
      invoker.addToPrincipalPolicy(
        new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [runnerArn] }),
      );
    }
    // The sweep (functions/runner/sweeper.ts): every 5 minutes, work whose workflow died past all
    // its bounds ends failed and frees its slots. In the default group: the runner manages the
    // refresh group's schedules and would remove one it does not know.
    this.sweepSchedule = new CfnSchedule(this, 'SweepSchedule', {
      name: `${this.stateMachinePrefix}-sweep`,
      description: 'Ends executions and pipeline runs whose workflow stopped without recording an outcome',
      scheduleExpression: `rate(${SWEEP_EVERY_MINUTES} minutes)`,
      flexibleTimeWindow: { mode: 'OFF' },
      target: {
        arn: runnerArn,
        roleArn: this.schedulerRole.roleArn,
        input: JSON.stringify({ action: 'sweep' }),
        // A missed sweep is made up by the next one: no retries pile up behind it.
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 60 * SWEEP_EVERY_MINUTES },
        deadLetterConfig: { arn: this.scheduleDeadLetters.queueArn },
      },
    });
  }

  private statesArn(resource: string, resourceName: string): string {
    return Stack.of(this).formatArn({
      service: 'states',
      resource,
      resourceName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
  }

  /**
   * Lets `grantee` create (tagged, logging) and start this stack's generated workflows and hand
   * them the workflow role (and no other role). Nothing here describes or stops executions: no
   * code calls DescribeStateMachine, DescribeExecution or StopExecution.
   */
  grantStartExecutions(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        // TagResource: CreateStateMachine with `tags` needs it.
        actions: ['states:CreateStateMachine', 'states:StartExecution', 'states:TagResource'],
        resources: [this.statesArn('stateMachine', `${this.stateMachinePrefix}-*`)],
      }),
    );
    this.workflowRole.grantPassRole(grantee.grantPrincipal);
    acknowledgeOnGrantee(
      grantee,
      `AwsSolutions-IAM5[Resource::${nagArn('states', `stateMachine:${this.stateMachinePrefix}-*`)}]`,
      'State machines are created at run time, named <this stack’s prefix>-<hash of the graph>',
    );
  }

  /**
   * Answer parked Tasks: pipeline dependency gates (Await_n) and the slot gate (AcquireSlot);
   * SendTaskSuccess is all they send.
   */
  grantAnswerTasks(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:SendTaskSuccess'],
        resources: [this.statesArn('stateMachine', `${this.stateMachinePrefix}-*`)],
      }),
    );
  }

  /** Create, update and delete the refresh schedules of this stack's group, passing only the scheduler role. */
  grantManageSchedules(grantee: IGrantable): void {
    const schedules = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.name}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        resources: [schedules],
      }),
    );
    this.schedulerRole.grantPassRole(grantee.grantPrincipal);
    acknowledgeOnGrantee(
      grantee,
      `AwsSolutions-IAM5[Resource::${nagArn('scheduler', `schedule/${this.scheduleGroup.name}/*`)}]`,
      'Schedules are created at run time, one per scheduled view, inside this stack’s own group',
    );
  }
}
