import { createDynamoServices, type Services } from '../services';
import { createDocumentClient } from './dynamo/client';
import { SERVICE_TABLE } from './dynamo/table-definitions';

/** Composition root inside Lambda: adapters configured from the function's environment. */
export function createAwsServices(env: NodeJS.ProcessEnv = process.env): Services {
  const tableName = env[SERVICE_TABLE.envVar];
  if (!tableName) throw new Error(`Missing environment variable ${SERVICE_TABLE.envVar}.`);
  return createDynamoServices(createDocumentClient(), tableName);
}
