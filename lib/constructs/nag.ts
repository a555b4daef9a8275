import { Validations } from 'aws-cdk-lib';
import { type IGrantable, Role } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag's spelling of an ARN built with `Stack.formatArn` in a finding id
 * (`AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:…]`).
 */
export function nagArn(service: string, resource: string): string {
  return `arn:<AWS::Partition>:${service}:<AWS::Region>:<AWS::AccountId>:${resource}`;
}

/** Acknowledges one cdk-nag finding on a construct (and its children), with the reason in code. */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/** The same, on the role behind a grantee (grants only ever go to roles in this stack). */
export function acknowledgeOnGrantee(grantee: IGrantable, id: string, reason: string): void {
  if (grantee instanceof Role) acknowledge(grantee, id, reason);
}
