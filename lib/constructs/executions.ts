import { createHash } from 'node:crypto';
import { ArnFormat, Duration, Stack, Token } from 'aws-cdk-lib';
import { type IGrantable, type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { createServiceFunction } from './service-function';

export const RUNNER_ENTRY = 'functions/runner/handler.ts';
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

export interface ExecutionsProps {
  /**
   * The runner's execution role: the API's shared role. Today the runner needs a subset of what
   * the API functions need (the tables, logs); the only extra it gains is managing this stack's
   * workflows, whose role can do nothing but invoke the runner itself. So a role of its own (2 more
   * resources, a second set of grants to keep in step) buys nothing yet; it will once the runner
   * gets engine permissions (Athena, result writes to S3) that the API functions must not have.
   */
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
  /** What a function that starts executions needs to know (the runner itself is built with it). */
  readonly environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ExecutionsProps) {
    super(scope, id);
    this.stateMachinePrefix = stateMachinePrefix(Stack.of(this).stackName);

    this.workflowRole = new Role(this, 'WorkflowRole', {
      assumedBy: new ServicePrincipal('states.amazonaws.com'),
      description: 'Role of the generated query-execution state machines (invokes the node runner)',
    });

    const workflowEnvironment = {
      STATE_MACHINE_ROLE_ARN: this.workflowRole.roleArn,
      STATE_MACHINE_PREFIX: this.stateMachinePrefix,
      QUERY_TIMEOUT_SECONDS: String(QUERY_TIMEOUT_SECONDS),
    };
    this.runner = createServiceFunction(this, {
      id: 'NodeRunner',
      description: 'Node runner of the query-execution workflows (Step Functions Task states)',
      entry: RUNNER_ENTRY,
      handler: RUNNER_HANDLER,
      timeoutSeconds: RUNNER_TIMEOUT_SECONDS,
      memoryMb: RUNNER_MEMORY_MB,
      role: props.role,
      // Not NODE_RUNNER_ARN: the function cannot reference its own ARN (a dependency cycle), and
      // the runner never builds workflows.
      environment: { ...props.environment, ...workflowEnvironment },
    });
    // The function and its versions and aliases (`<arn>:*`).
    this.runner.grantInvoke(this.workflowRole);

    // Materialized-view refresh schedules: one EventBridge schedule per view, in this group, invoking
    // the runner (functions/aws/eventbridge-schedules.ts).
    this.scheduleGroup = new CfnScheduleGroup(this, 'RefreshSchedules', {
      name: `${this.stateMachinePrefix}-refresh`,
    });
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com'),
      description: 'Role of the materialized-view refresh schedules (invokes the node runner)',
    });
    this.runner.grantInvoke(this.schedulerRole);
    // Refreshes that still fail after the schedule's retries land here instead of vanishing.
    this.scheduleDeadLetters = new Queue(this, 'RefreshDeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.scheduleDeadLetters.grantSendMessages(this.schedulerRole);

    this.environment = {
      ...workflowEnvironment,
      NODE_RUNNER_ARN: this.runner.functionArn,
      SCHEDULE_GROUP_NAME: this.scheduleGroup.name!,
      SCHEDULER_ROLE_ARN: this.schedulerRole.roleArn,
      SCHEDULE_DLQ_ARN: this.scheduleDeadLetters.queueArn,
    };
  }

  /**
   * Lets `grantee` create, start, inspect and stop this stack's generated workflows, and hand them
   * the workflow role (and no other role).
   */
  grantStartExecutions(grantee: IGrantable): void {
    const stack = Stack.of(this);
    const states = (resource: string, resourceName: string) =>
      stack.formatArn({
        service: 'states',
        resource,
        resourceName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'states:CreateStateMachine',
          'states:StartExecution',
          'states:DescribeStateMachine',
          'states:TagResource',
        ],
        resources: [states('stateMachine', `${this.stateMachinePrefix}-*`)],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['states:DescribeExecution', 'states:StopExecution'],
        // execution:<machine name>:<execution name>
        resources: [states('execution', `${this.stateMachinePrefix}-*:*`)],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        // Pipeline dependency gates answer the waiting Await Tasks of this stack's machines.
        actions: ['states:SendTaskSuccess', 'states:SendTaskFailure', 'states:SendTaskHeartbeat'],
        resources: [states('stateMachine', `${this.stateMachinePrefix}-*`)],
      }),
    );
    this.workflowRole.grantPassRole(grantee.grantPrincipal);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          'scheduler:CreateSchedule',
          'scheduler:UpdateSchedule',
          'scheduler:DeleteSchedule',
          'scheduler:GetSchedule',
        ],
        resources: [
          stack.formatArn({
            service: 'scheduler',
            resource: 'schedule',
            resourceName: `${this.scheduleGroup.name}/*`,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ],
      }),
    );
    this.schedulerRole.grantPassRole(grantee.grantPrincipal);
  }
}
