import { SendTaskSuccessCommand, SFNClient, TaskTimedOut } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { DynamoSlotWaiterStore } from '../../functions/aws/dynamo/slot-waiter-store';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import { StepFunctionsSlotGate } from '../../functions/aws/step-functions-slot-gate';
import type { SlotResult } from '../../functions/core/workflows';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';

const sfnMock = mockClient(SFNClient);
const ACCOUNT = 'acct-slots';
let dynamo: LocalDynamo;
let waiters: DynamoSlotWaiterStore;

const sent = () =>
  sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => ({
    token: call.args[0].input.taskToken,
    output: JSON.parse(call.args[0].input.output!) as unknown,
  }));

const acquired: SlotResult = { status: 'acquired', attempts: 1 };
const waiting: SlotResult = { status: 'waiting', attempts: 1 };
const finished: SlotResult = { status: 'finished', attempts: 1 };

beforeAll(async () => {
  dynamo = await startDynalite();
  const { client, doc } = localDynamoClient(dynamo.endpoint);
  await ensureTables(client);
  waiters = new DynamoSlotWaiterStore(doc, SERVICE_TABLE.localName);
});
afterAll(async () => {
  await dynamo?.close();
});
beforeEach(async () => {
  sfnMock.reset();
  sfnMock.on(SendTaskSuccessCommand).resolves({});
  for (const waiter of await waiters.oldest(ACCOUNT, 100)) await waiters.remove(ACCOUNT, waiter.executionId);
});

describe('the Step Functions slot gate (task tokens in DynamoDB, SendTaskSuccess)', () => {
  const gate = () => new StepFunctionsSlotGate(new SFNClient({ region: 'us-east-1' }), waiters);
  const request = (executionId: string, tryAcquire: () => Promise<SlotResult>) => ({
    accountId: ACCOUNT,
    executionId,
    taskToken: `token-${executionId}`,
    tryAcquire,
  });

  it('answers at once when a slot is free, and keeps no waiter', async () => {
    expect(
      await gate().awaitSlot(request('01M0000000000000000000000A', async () => acquired)),
    ).toBeUndefined();
    expect(sent()).toEqual([{ token: 'token-01M0000000000000000000000A', output: acquired }]);
    expect(await waiters.oldest(ACCOUNT, 10)).toEqual([]);
  });

  it('parks while the account is full; a freed slot goes to the oldest waiter, skipping cancelled ones', async () => {
    const slotGate = gate();
    // Stored before trying, so a slot freed in between is not missed.
    let storedFirst = false;
    await slotGate.awaitSlot(
      request('01M0000000000000000000000B', async () => {
        storedFirst = (await waiters.oldest(ACCOUNT, 10)).length === 1;
        return waiting;
      }),
    );
    await slotGate.awaitSlot(request('01M0000000000000000000000C', async () => waiting));
    await slotGate.awaitSlot(request('01M0000000000000000000000D', async () => waiting));
    expect(storedFirst).toBe(true);
    expect(sent()).toEqual([]);

    // B was cancelled meanwhile (its try answers finished), C takes the slot, D keeps waiting.
    const offered: string[] = [];
    await slotGate.offerSlot(ACCOUNT, async (executionId) => {
      offered.push(executionId);
      return executionId.endsWith('B') ? finished : acquired;
    });
    expect(offered).toEqual(['01M0000000000000000000000B', '01M0000000000000000000000C']);
    expect(sent()).toEqual([
      { token: 'token-01M0000000000000000000000B', output: finished },
      { token: 'token-01M0000000000000000000000C', output: acquired },
    ]);
    expect((await waiters.oldest(ACCOUNT, 10)).map((w) => w.executionId)).toEqual([
      '01M0000000000000000000000D',
    ]);

    // A freed slot the oldest waiter cannot take (an older queued execution is ahead) goes to nobody.
    await slotGate.offerSlot(ACCOUNT, async () => waiting);
    expect(sent()).toHaveLength(2);
  });

  it('ignores a token that already timed out', async () => {
    sfnMock
      .on(SendTaskSuccessCommand)
      .rejects(new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} }));
    await expect(
      gate().awaitSlot(request('01M0000000000000000000000E', async () => acquired)),
    ).resolves.toBeUndefined();
    expect(await waiters.oldest(ACCOUNT, 10)).toEqual([]);
  });
});
