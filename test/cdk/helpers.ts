import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { REPO_ROOT } from '../../lib/paths';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack';

/** The feature flags from cdk.json, so tests synthesize what `cdk synth` does. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  return cdkJson.context ?? {};
}

/** An app that skips asset bundling (placeholder code): fast, for template assertions. */
export function appWithoutBundling(): App {
  return new App({ context: { ...cdkJsonContext(), 'aws:cdk:bundling-stacks': [] } });
}

export function synthServiceStack(props: ServiceStackProps = {}): {
  stack: ServiceStack;
  template: Template;
} {
  const stack = new ServiceStack(appWithoutBundling(), 'TestService', props);
  return { stack, template: Template.fromStack(stack) };
}

export function resourceCount(template: Template): number {
  return Object.keys(template.toJSON().Resources ?? {}).length;
}

export function logicalIdOf(stack: Stack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<Stack['getLogicalId']>[0]);
}

export const FIXTURE_ENTRY = 'test/cdk/fixtures/handler.ts';

export type PolicyStatementJson = {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
};

/** Every statement of every IAM role's inline policies (grants live there: InlinePolicyRole). */
export function roleStatements(template: Template, roleLogicalId?: string): PolicyStatementJson[] {
  const roles = template.findResources('AWS::IAM::Role');
  return Object.entries(roles)
    .filter(([id]) => roleLogicalId === undefined || id === roleLogicalId)
    .flatMap(([, role]) =>
      (
        (role.Properties.Policies ?? []) as { PolicyDocument: { Statement: PolicyStatementJson[] } }[]
      ).flatMap((policy) => policy.PolicyDocument.Statement),
    );
}
