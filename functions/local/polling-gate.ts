import type { AwaitRequest, DependencyGate } from '../core/dependency-gate';
import type { DependencyGateResult } from '../core/pipeline-workflow';
import { WakeSignals } from '../core/wake-signals';

/**
 * Local dependency gate: the Await Task's handler decides again as soon as one of the node's
 * dependencies ends (`nodeEnded` names the ended node's dependents, and a cancel the nodes it
 * releases), and at least every `recheckMillis` in case an end went unannounced. Only those
 * dependents look again: each look reads the whole run, so waking every waiting node of a
 * pipeline at every end made a long chain's hand-offs grow with its length (a 150-node chain
 * waited ~100 ms a hop at the start, test/unit/polling-gate.test.ts).
 */
export class PollingDependencyGate implements DependencyGate {
  private closed = false;
  private readonly signals = new WakeSignals();

  constructor(private readonly recheckMillis = 1000) {}

  /** Ends every wait: at shutdown a dependency that was never started will not decide. */
  close(): void {
    this.closed = true;
    this.signals.wakeAll();
  }

  async awaitDependencies(request: AwaitRequest): Promise<DependencyGateResult> {
    const key = nodeKey(request.pipelineExecutionId, request.nodeId);
    for (;;) {
      if (this.closed)
        throw new Error('The local host is shutting down; the pipeline resumes at the next start.');
      // Listening before looking: an end announced while the look reads the run is not missed.
      const listening = this.signals.listen(key, this.recheckMillis);
      const decision = await request.decide().catch((error: unknown) => {
        listening.stop();
        throw error;
      });
      if (decision !== 'wait') {
        listening.stop();
        return { proceed: decision === 'proceed' };
      }
      await listening.woken;
    }
  }

  async nodeEnded(pipelineExecutionId: string, dependents: readonly { nodeId: number }[]): Promise<void> {
    for (const { nodeId } of dependents) this.signals.wake(nodeKey(pipelineExecutionId, nodeId));
  }
}

const nodeKey = (pipelineExecutionId: string, nodeId: number) => `${pipelineExecutionId}#${nodeId}`;
