import {
  InvalidToken,
  SendTaskFailureCommand,
  SendTaskSuccessCommand,
  SFNClient,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { StepFunctionsDependencyGate, type TaskTokenStore } from '../../functions/aws/step-functions-gate';
import type { GateDecision } from '../../functions/core/dependency-gate';

const sfnMock = mockClient(SFNClient);
const PIPELINE = '01HKZJ2683PHF9Q9PHHQ8FW4Q1';

/** Task tokens kept in a Map, with the calls recorded in order. */
class MemoryTokenStore implements TaskTokenStore {
  readonly tokens = new Map<string, string>();
  readonly calls: string[] = [];

  async put(pipelineExecutionId: string, nodeId: number, token: string): Promise<void> {
    this.calls.push(`put ${nodeId}`);
    this.tokens.set(`${pipelineExecutionId}#${nodeId}`, token);
  }

  async get(pipelineExecutionId: string, nodeId: number): Promise<string | undefined> {
    this.calls.push(`get ${nodeId}`);
    return this.tokens.get(`${pipelineExecutionId}#${nodeId}`);
  }
}

const sent = () =>
  sfnMock.commandCalls(SendTaskSuccessCommand).map((call) => ({
    token: call.args[0].input.taskToken,
    output: JSON.parse(call.args[0].input.output!) as unknown,
  }));

describe('the Step Functions dependency gate', () => {
  let store: MemoryTokenStore;
  let client: SFNClient;
  let gate: StepFunctionsDependencyGate;

  beforeEach(() => {
    sfnMock.reset();
    sfnMock.on(SendTaskSuccessCommand).resolves({});
    store = new MemoryTokenStore();
    client = new SFNClient({ region: 'us-east-1' });
    gate = new StepFunctionsDependencyGate(client, store);
  });

  describe('awaitDependencies', () => {
    const request = (decision: GateDecision, order: string[] = store.calls) => ({
      pipelineExecutionId: PIPELINE,
      nodeId: 7,
      taskToken: 'token-7',
      decide: vi.fn(async () => {
        order.push('decide');
        return decision;
      }),
    });

    it('stores the token before deciding, then sends {"proceed":true} when the node may start', async () => {
      const req = request('proceed');
      await expect(gate.awaitDependencies(req)).resolves.toBeUndefined();
      expect(store.tokens.get(`${PIPELINE}#7`)).toBe('token-7');
      expect(store.calls).toEqual(['put 7', 'decide']);
      expect(req.decide).toHaveBeenCalledOnce();
      expect(sent()).toEqual([{ token: 'token-7', output: { proceed: true } }]);
      expect(sfnMock.commandCalls(SendTaskFailureCommand)).toHaveLength(0);
    });

    it('sends {"proceed":false} when the node is skipped', async () => {
      await expect(gate.awaitDependencies(request('skip'))).resolves.toBeUndefined();
      expect(store.tokens.get(`${PIPELINE}#7`)).toBe('token-7');
      expect(sent()).toEqual([{ token: 'token-7', output: { proceed: false } }]);
    });

    it('sends nothing while the dependencies are still running, keeping the token for later', async () => {
      await expect(gate.awaitDependencies(request('wait'))).resolves.toBeUndefined();
      expect(store.tokens.get(`${PIPELINE}#7`)).toBe('token-7');
      expect(sfnMock.calls()).toHaveLength(0);
    });

    it('overwrites the token of a retried Await with the fresh one', async () => {
      await gate.awaitDependencies(request('wait'));
      await gate.awaitDependencies({ ...request('proceed'), taskToken: 'token-7-retry' });
      expect(store.tokens.get(`${PIPELINE}#7`)).toBe('token-7-retry');
      expect(sent()).toEqual([{ token: 'token-7-retry', output: { proceed: true } }]);
    });
  });

  describe('nodeEnded', () => {
    const dependent = (nodeId: number, decision: GateDecision) => ({
      nodeId,
      decide: vi.fn(async (): Promise<GateDecision> => decision),
    });

    it('answers the dependents that registered a token and can decide now', async () => {
      store.tokens.set(`${PIPELINE}#2`, 'token-2');
      store.tokens.set(`${PIPELINE}#3`, 'token-3');
      store.tokens.set(`${PIPELINE}#4`, 'token-4');
      store.tokens.set(`other-pipeline#5`, 'token-of-another-run');
      const proceeding = dependent(2, 'proceed');
      const skipped = dependent(3, 'skip');
      const waiting = dependent(4, 'wait');
      const unregistered = dependent(5, 'proceed');

      await expect(
        gate.nodeEnded(PIPELINE, [proceeding, skipped, waiting, unregistered]),
      ).resolves.toBeUndefined();

      expect(sent()).toEqual([
        { token: 'token-2', output: { proceed: true } },
        { token: 'token-3', output: { proceed: false } },
      ]);
      // No token yet: the dependent's own Await will decide once it registers, so no read now.
      expect(unregistered.decide).not.toHaveBeenCalled();
      expect(waiting.decide).toHaveBeenCalledOnce();
      expect(store.calls).toEqual(['get 2', 'get 3', 'get 4', 'get 5']);
    });

    it('does nothing without dependents', async () => {
      await gate.nodeEnded(PIPELINE, []);
      expect(sfnMock.calls()).toHaveLength(0);
      expect(store.calls).toEqual([]);
    });
  });

  describe('a token that was already answered or is gone', () => {
    const closed = [
      ['TaskTimedOut', () => new TaskTimedOut({ message: 'Task Timed Out', $metadata: {} })],
      ['InvalidToken', () => new InvalidToken({ message: 'Invalid token', $metadata: {} })],
      ['TaskDoesNotExist', () => new TaskDoesNotExist({ message: 'Task does not exist', $metadata: {} })],
    ] as const;

    it.each(closed)('ignores %s from SendTaskSuccess in awaitDependencies', async (_name, error) => {
      sfnMock.on(SendTaskSuccessCommand).rejects(error());
      await expect(
        gate.awaitDependencies({
          pipelineExecutionId: PIPELINE,
          nodeId: 1,
          taskToken: 'token-1',
          decide: async () => 'proceed',
        }),
      ).resolves.toBeUndefined();
      expect(sfnMock.commandCalls(SendTaskSuccessCommand)).toHaveLength(1);
    });

    it.each(closed)('ignores %s in nodeEnded and still answers the next dependents', async (_name, error) => {
      store.tokens.set(`${PIPELINE}#2`, 'token-2');
      store.tokens.set(`${PIPELINE}#3`, 'token-3');
      sfnMock.on(SendTaskSuccessCommand, { taskToken: 'token-2' }).rejects(error());
      await expect(
        gate.nodeEnded(PIPELINE, [
          { nodeId: 2, decide: async () => 'proceed' },
          { nodeId: 3, decide: async () => 'skip' },
        ]),
      ).resolves.toBeUndefined();
      expect(sent()).toEqual([
        { token: 'token-2', output: { proceed: true } },
        { token: 'token-3', output: { proceed: false } },
      ]);
      // The first send really was refused (the mock matched token-2), and the gate swallowed it.
      await expect(
        client.send(new SendTaskSuccessCommand({ taskToken: 'token-2', output: '{}' })),
      ).rejects.toBeInstanceOf(error().constructor);
    });

    it('lets any other SendTaskSuccess error propagate', async () => {
      sfnMock.on(SendTaskSuccessCommand).rejects(new Error('ThrottlingException: Rate exceeded'));
      await expect(
        gate.awaitDependencies({
          pipelineExecutionId: PIPELINE,
          nodeId: 1,
          taskToken: 'token-1',
          decide: async () => 'proceed',
        }),
      ).rejects.toThrow('Rate exceeded');

      store.tokens.set(`${PIPELINE}#2`, 'token-2');
      store.tokens.set(`${PIPELINE}#3`, 'token-3');
      await expect(
        gate.nodeEnded(PIPELINE, [
          { nodeId: 2, decide: async () => 'proceed' },
          { nodeId: 3, decide: async () => 'proceed' },
        ]),
      ).rejects.toThrow('Rate exceeded');
      // The failure stops the loop: node 3 is not answered by this call (a retry of the caller will).
      expect(sent().map((s) => s.token)).toEqual(['token-1', 'token-2']);
    });

    it('does not swallow errors from deciding or from the token store', async () => {
      await expect(
        gate.awaitDependencies({
          pipelineExecutionId: PIPELINE,
          nodeId: 1,
          taskToken: 'token-1',
          decide: async () => {
            throw new Error('dynamodb read failed');
          },
        }),
      ).rejects.toThrow('dynamodb read failed');
      store.get = async () => {
        throw new Error('token read failed');
      };
      await expect(gate.nodeEnded(PIPELINE, [{ nodeId: 2, decide: async () => 'proceed' }])).rejects.toThrow(
        'token read failed',
      );
      expect(sfnMock.calls()).toHaveLength(0);
    });
  });
});
