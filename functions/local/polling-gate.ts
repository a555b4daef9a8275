import type { AwaitRequest, DependencyGate } from '../core/dependency-gate';
import type { DependencyGateResult } from '../core/pipeline-workflow';

/** Local dependency gate: the Await Task's handler polls until its dependencies decided. */
export class PollingDependencyGate implements DependencyGate {
  private closed = false;

  constructor(private readonly pollMillis = 25) {}

  /** Ends every wait: at shutdown a dependency that was never started will not decide. */
  close(): void {
    this.closed = true;
  }

  async awaitDependencies(request: AwaitRequest): Promise<DependencyGateResult> {
    for (;;) {
      if (this.closed)
        throw new Error('The local host is shutting down; the pipeline resumes at the next start.');
      const decision = await request.decide();
      if (decision !== 'wait') return { proceed: decision === 'proceed' };
      await new Promise((resolve) => setTimeout(resolve, this.pollMillis));
    }
  }

  async nodeEnded(): Promise<void> {
    // Waiting handlers poll; nothing to wake.
  }
}
