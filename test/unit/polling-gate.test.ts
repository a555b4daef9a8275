import { describe, expect, it } from 'vitest';
import type { GateDecision } from '../../functions/core/dependency-gate';
import { PollingDependencyGate } from '../../functions/local/polling-gate';

/** A node's gate whose answers come from `answers` in turn (the last one repeats); counts looks. */
function waiter(gate: PollingDependencyGate, nodeId: number, answers: GateDecision[], onLook?: () => void) {
  let looks = 0;
  const result = gate.awaitDependencies({
    pipelineExecutionId: 'run',
    nodeId,
    taskToken: '',
    decide: async () => {
      onLook?.();
      return answers[Math.min(looks++, answers.length - 1)]!;
    },
  });
  return { result, looks: () => looks };
}

const tick = (ms = 20) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the local dependency gate', () => {
  it('looks again when a dependency of the node ends, and only then', async () => {
    const gate = new PollingDependencyGate(60_000);
    const second = waiter(gate, 2, ['wait', 'proceed']);
    const third = waiter(gate, 3, ['wait', 'proceed']);
    await tick();
    expect([second.looks(), third.looks()]).toEqual([1, 1]);
    // Node 1 ended and node 2 depends on it: node 2 looks again and proceeds; node 3 does not look.
    await gate.nodeEnded('run', [{ nodeId: 2 }]);
    await expect(second.result).resolves.toEqual({ proceed: true });
    await tick();
    expect(third.looks()).toBe(1);
    // Another pipeline's node 3 ending is not this one's either.
    await gate.nodeEnded('other-run', [{ nodeId: 3 }]);
    await tick();
    expect(third.looks()).toBe(1);
    await gate.nodeEnded('run', [{ nodeId: 3 }]);
    await expect(third.result).resolves.toEqual({ proceed: true });
  });

  it('does not miss an end announced while it looks', async () => {
    const gate = new PollingDependencyGate(60_000);
    let announce = true;
    const node = waiter(gate, 4, ['wait', 'skip'], () => {
      // The dependency ends while the first look reads the run (it still saw it running).
      if (announce) void gate.nodeEnded('run', [{ nodeId: 4 }]);
      announce = false;
    });
    await expect(node.result).resolves.toEqual({ proceed: false });
    expect(node.looks()).toBe(2);
  });

  it('looks again after recheckMillis when no end is announced', async () => {
    const gate = new PollingDependencyGate(30);
    const node = waiter(gate, 5, ['wait', 'wait', 'proceed']);
    await expect(node.result).resolves.toEqual({ proceed: true });
    expect(node.looks()).toBe(3);
  });
});
