import { describe, expect, it } from 'vitest';
import type { AslStateMachine } from '../../functions/core/workflows';
import { PollingDependencyGate } from '../../functions/local/polling-gate';
import { LOCAL_RUNNER_ARN, LocalStepFunctions } from '../../functions/local/step-functions';

/** Two Task states in a row: shutdown during the first must keep the second from ever starting. */
const TWO_STEPS: AslStateMachine = {
  StartAt: 'First',
  States: {
    First: { Type: 'Task', Resource: LOCAL_RUNNER_ARN, Next: 'Second' },
    Second: { Type: 'Task', Resource: LOCAL_RUNNER_ARN, End: true },
  },
};

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('local host shutdown: nothing writes to the store after it closed', () => {
  it('close() waits for the task handler in flight, and no later state starts', async () => {
    const calls: string[] = [];
    const release = deferred();
    const started = deferred();
    let handlerFinished = false;
    const orchestrator = new LocalStepFunctions(() => async (input) => {
      calls.push(String(input.step ?? 'first'));
      started.resolve();
      await release.promise;
      handlerFinished = true;
      return { step: 'second' };
    });
    await orchestrator.start({ name: 'run-1', definition: TWO_STEPS, input: {} });
    await started.promise;

    const closed = orchestrator.close();
    let closeReturned = false;
    void closed.then(() => {
      closeReturned = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closeReturned).toBe(false); // still waiting for the handler
    release.resolve();
    await closed;
    expect(handlerFinished).toBe(true);
    expect(calls).toEqual(['first']); // the aborted workflow never took its second step
    await expect(orchestrator.start({ name: 'run-2', definition: TWO_STEPS, input: {} })).rejects.toThrow(
      /shutting down/,
    );
  });

  it('close() gives up on a handler that never returns after its grace period', async () => {
    const orchestrator = new LocalStepFunctions(() => () => new Promise(() => {}));
    await orchestrator.start({ name: 'stuck', definition: TWO_STEPS, input: {} });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = Date.now();
    await orchestrator.close(100);
    expect(Date.now() - before).toBeLessThan(5_000);
  });

  it('closing the polling gate ends a wait whose dependencies will never decide', async () => {
    const gate = new PollingDependencyGate(5);
    const waiting = gate.awaitDependencies({ decide: async () => 'wait' } as never);
    gate.close();
    await expect(waiting).rejects.toThrow(/shutting down/);
  });
});
