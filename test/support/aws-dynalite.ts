import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';

/**
 * dynalite with the service's tables, and the SDK environment pointed at it: the AWS composition
 * root (`createAwsServices`) builds its own DynamoDB client. `stop` restores the environment.
 */
export async function dynaliteForAwsComposition(): Promise<{ dynamo: LocalDynamo; stop(): Promise<void> }> {
  const saved = { ...process.env };
  const dynamo = await startDynalite();
  await ensureTables(localDynamoClient(dynamo.endpoint).client);
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  return {
    dynamo,
    stop: async () => {
      process.env = saved;
      await dynamo.close();
    },
  };
}
