import {
  type AddToPrincipalPolicyResult,
  PolicyDocument,
  type PolicyStatement,
  Role,
  type RoleProps,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { RouteDefinition } from '../../functions/routes';
import { acknowledge } from './nag';

/**
 * Functions share an execution role per group of what they call, not one role each (a role and
 * its policy are 2 resources against CloudFormation's 500) and not one for all (a read-only
 * route would write, the public page would start workflows). The stack grants each group
 * (lib/service-stack.ts, `grantGroup`); docs/aws.md lists what each one may do.
 */
export type FunctionGroup =
  /** The API's Lambda authorizer: reads API-key hashes, accounts and token families, nothing else. */
  | 'authorizer'
  /** OAuth endpoints (public): logins, clients, codes, token families; the signing keys. */
  | 'oauth'
  /** Public pages (home, shared dashboards): read-only, no workflows, no writes. */
  | 'publicPages'
  /** Authenticated GET routes: read-only on the table and the results. */
  | 'reader'
  /** Authenticated routes that change things (and MCP, whose tools do): writes, workflows, schedules. */
  | 'writer'
  /** The workflows' node runner: queries on Athena and everything a workflow step does. */
  | 'runner';

const OAUTH_ENTRY = 'functions/oauth/handlers.ts';
const MCP_ENTRY = 'functions/mcp/handler.ts';

/** Which group a route's function belongs to (what its handlers call decides it; see docs/aws.md). */
export function functionGroupOf(route: RouteDefinition): FunctionGroup {
  if (route.entry === OAUTH_ENTRY) return 'oauth';
  if (route.public) return 'publicPages';
  // MCP's GET resumes an SSE stream of the same session whose POSTs run every tool.
  if (route.method === 'GET' && route.entry !== MCP_ENTRY) return 'reader';
  return 'writer';
}

const DESCRIPTIONS: Record<FunctionGroup, string> = {
  authorizer: 'API authorizer: reads API keys, accounts and token families',
  oauth: 'OAuth endpoints: logins, clients, codes, token families, signing keys',
  publicPages: 'Public pages: read-only',
  reader: 'Read-only API routes',
  writer: 'API routes that write, start workflows and manage schedules; MCP',
  runner: 'Node runner of the workflows: Athena queries, results, workflow steps',
};

/** One execution role per function group, created when the first function of the group asks for it. */
export class FunctionRoles extends Construct {
  private readonly roles = new Map<FunctionGroup, Role>();

  roleFor(group: FunctionGroup): Role {
    let role = this.roles.get(group);
    if (!role) {
      // No managed policy: each function gets write access to its own log group only
      // (createServiceFunction), not AWSLambdaBasicExecutionRole's every log group.
      role = new InlinePolicyRole(this, `${group[0]!.toUpperCase()}${group.slice(1)}Role`, {
        assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
        description: DESCRIPTIONS[group],
      });
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray tracing (PutTraceSegments, PutTelemetryRecords) has no resource-level permissions',
      );
      this.roles.set(group, role);
    }
    return role;
  }

  /** The groups that have functions in this stack, with their roles. */
  get all(): ReadonlyMap<FunctionGroup, Role> {
    return this.roles;
  }
}

/**
 * A role whose grants live in its own inline policy instead of a separate `AWS::IAM::Policy`
 * resource: one resource less per role against CloudFormation's 500 (same IAM limits: both are
 * inline policies of the role, 10,240 characters together).
 */
export class InlinePolicyRole extends Role {
  private readonly inlineGrants: PolicyDocument;

  constructor(scope: Construct, id: string, props: RoleProps) {
    const grants = new PolicyDocument();
    super(scope, id, { ...props, inlinePolicies: { ...props.inlinePolicies, grants } });
    this.inlineGrants = grants;
  }

  override addToPrincipalPolicy(statement: PolicyStatement): AddToPrincipalPolicyResult {
    this.inlineGrants.addStatements(statement);
    return { statementAdded: true, policyDependable: this };
  }
}
