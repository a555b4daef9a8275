import { GetObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { CreateStateMachineCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import { S3ResultStore } from '../../functions/aws/results/s3-result-store';
import { createAwsServices } from '../../functions/aws/services';
import type { Account } from '../../functions/core/accounts';
import { NotFoundError } from '../../functions/core/errors';
import { executeSql } from '../../functions/executions/use-cases';
import type { Services } from '../../functions/services';
import { dynaliteForAwsComposition } from '../support/aws-dynalite';

const sfn = mockClient(SFNClient);
const s3 = mockClient(S3Client);
let dynamo: Awaited<ReturnType<typeof dynaliteForAwsComposition>>;
let services: Services;

const account: Account = {
  accountId: 'acct-composition',
  handle: 'composition',
  name: 'Composition',
  createdAt: new Date().toISOString(),
};

beforeAll(async () => {
  dynamo = await dynaliteForAwsComposition();
  services = createAwsServices({
    [SERVICE_TABLE.envVar]: SERVICE_TABLE.localName,
    STATE_MACHINE_ROLE_ARN: 'arn:aws:iam::123456789012:role/workflows',
    STATE_MACHINE_PREFIX: 'svc_wf',
    NODE_RUNNER_ARN: 'arn:aws:lambda:us-east-1:123456789012:function:svc-node-runner',
    RESULTS_BUCKET: 'svc-results',
  });
});

afterAll(async () => {
  await dynamo?.stop();
});

beforeEach(() => {
  sfn.reset();
  s3.reset();
  sfn.on(CreateStateMachineCommand).callsFake((input) => ({
    stateMachineArn: `arn:aws:states:us-east-1:123456789012:stateMachine:${input.name}`,
    creationDate: new Date(),
  }));
});

describe('the AWS composition', () => {
  it('wires the S3 result store from RESULTS_BUCKET', async () => {
    expect(services.results).toBeInstanceOf(S3ResultStore);
    s3.on(GetObjectCommand).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }),
    );
    await expect(
      services.results.readPage({ executionId: '01HKZJ2683PHF9Q9PHHQ8FW4Q1', limit: 1, offset: 0 }),
    ).rejects.toBeInstanceOf(NotFoundError);
    expect(s3.commandCalls(GetObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'svc-results',
      Key: 'results/01HKZJ2683PHF9Q9PHHQ8FW4Q1.json',
    });
  });

  it('marks an execution failed when StartExecution fails, so it cannot hold up the account', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejectsOnce(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: {} }))
      .resolves({
        executionArn: 'arn:aws:states:us-east-1:123456789012:execution:x:y',
        startDate: new Date(),
      });
    await expect(executeSql(services, account, 'SELECT 1', 'medium')).rejects.toThrow('Rate exceeded');
    expect(await services.executions.listActive(account.accountId)).toEqual([]);
    const started = await executeSql(services, account, 'SELECT 2', 'medium');
    const active = await services.executions.listActive(account.accountId);
    // Only the second execution is waiting; the first ended FAILED as an engine outage.
    expect(active.map((execution) => execution.executionId)).toEqual([started.executionId]);
    const first = sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.name!;
    expect(await services.executions.get(first)).toMatchObject({
      state: 'QUERY_STATE_FAILED',
      error: {
        type: 'engine_unavailable',
        message: expect.stringMatching(/could not be started \(Rate exceeded\).*retry later/),
      },
    });
  });
});
