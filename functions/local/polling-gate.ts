import type { AwaitRequest, DependencyGate } from '../core/dependency-gate';
import type { DependencyGateResult } from '../core/pipeline-workflow';

/** Local dependency gate: the Await Task's handler polls until its dependencies decided. */
export class PollingDependencyGate implements DependencyGate {
  constructor(private readonly pollMillis = 25) {}

  async awaitDependencies(request: AwaitRequest): Promise<DependencyGateResult> {
    for (;;) {
      const decision = await request.decide();
      if (decision !== 'wait') return { proceed: decision === 'proceed' };
      await new Promise((resolve) => setTimeout(resolve, this.pollMillis));
    }
  }

  async nodeEnded(): Promise<void> {
    // Waiting handlers poll; nothing to wake.
  }
}
