import { SERVICE_TABLE } from './dynamo/table-definitions';
import { createDocumentClient } from './dynamo/client';
import { createServices, type Services } from '../services';
import { executionConfigFromEnv } from '../executions/config';
import { NotImplementedError } from '../core/errors';
import type { QueryEngine, ResultStore } from '../core/engine';
import type { Orchestrator } from '../core/workflows';

/** A port whose AWS adapter is not built yet: every call is a 501 that says so. */
function notYetInAws<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: () => () => {
      throw new NotImplementedError(`${what} is not available in the AWS deployment yet; run the service locally (npm start).`);
    },
  });
}

/** Composition root inside Lambda: adapters configured from the function's environment. */
export function createAwsServices(env: NodeJS.ProcessEnv = process.env): Services {
  const tableName = env[SERVICE_TABLE.envVar];
  if (!tableName) throw new Error(`Missing environment variable ${SERVICE_TABLE.envVar}.`);
  return createServices(createDocumentClient(), tableName, {
    // The Athena engine, S3 result store and Step Functions orchestrator are the next AWS adapters.
    engine: notYetInAws<QueryEngine>('The Athena query engine'),
    results: notYetInAws<ResultStore>('The S3 result store'),
    orchestrator: notYetInAws<Orchestrator>('The Step Functions orchestrator'),
    config: executionConfigFromEnv(env, env.NODE_RUNNER_ARN ?? 'arn:aws:lambda:us-east-1:000000000000:function:node-runner'),
  });
}
