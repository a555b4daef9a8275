import type { AwaitRequest, DependencyGate } from '../core/dependency-gate';
import type { DependencyGateResult } from '../core/pipeline-workflow';
import { WakeSignals } from '../core/wake-signals';

/**
 * Local dependency gate: the Await Task's handler decides again as soon as a node of its pipeline
 * ends (`nodeEnded`), and at least every `recheckMillis` in case an end went unannounced.
 */
export class PollingDependencyGate implements DependencyGate {
  private closed = false;
  private readonly signals = new WakeSignals();

  constructor(private readonly recheckMillis = 100) {}

  /** Ends every wait: at shutdown a dependency that was never started will not decide. */
  close(): void {
    this.closed = true;
    this.signals.wakeAll();
  }

  async awaitDependencies(request: AwaitRequest): Promise<DependencyGateResult> {
    for (;;) {
      if (this.closed)
        throw new Error('The local host is shutting down; the pipeline resumes at the next start.');
      const decision = await request.decide();
      if (decision !== 'wait') return { proceed: decision === 'proceed' };
      await this.signals.next(request.pipelineExecutionId, this.recheckMillis);
    }
  }

  async nodeEnded(pipelineExecutionId: string): Promise<void> {
    this.signals.wake(pipelineExecutionId);
  }
}
