import { App } from 'aws-cdk-lib';
import { ServiceStack } from '../lib/service-stack';

const app = new App();
const context = (name: string) => app.node.tryGetContext(name) as string | undefined;
const domainName = context('domainName');
const certificateArn = context('certificateArn');

new ServiceStack(app, process.env.SERVICE_STACK_NAME ?? 'OnchainSqlService', {
  description: 'Onchain SQL analytics service: REST API, MCP server and query pipelines',
  // Environment-agnostic unless the CLI knows an account: synth works offline.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  // OAuth discovery needs the API at a domain's root: -c domainName=sql.example.com -c certificateArn=arn:...
  ...(domainName && certificateArn ? { domain: { domainName, certificateArn } } : {}),
  authorizerCacheSeconds: Number(context('authorizerCacheSeconds') ?? 0),
  // Browser pages that may call /mcp/v1 (CORS): -c mcpAllowedOrigins=https://app.example,https://other.example
  mcpAllowedOrigins: context('mcpAllowedOrigins')?.split(','),
  // Alarm notifications by mail: -c alarmEmail=oncall@example.com (confirm the subscription mail).
  alarmEmail: context('alarmEmail'),
});
