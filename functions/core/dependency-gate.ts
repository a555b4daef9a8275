import type { DependencyGateResult } from './pipeline-workflow';

export type GateDecision = 'proceed' | 'skip' | 'wait';

export interface AwaitRequest {
  pipelineExecutionId: string;
  nodeId: number;
  taskToken: string;
  /** Reads the dependencies' states and decides (recording skipped/cancelled as a side effect). */
  decide(): Promise<GateDecision>;
}

/**
 * How a node waits for its dependencies. Locally the Task handler itself waits (polling the
 * stored states); on Step Functions the handler stores the task token and returns, and whoever
 * ends the last dependency sends the decision with SendTaskSuccess. Either way no node starts
 * before all its dependencies succeeded, and none waits for unrelated nodes.
 */
export interface DependencyGate {
  /** The decision now (local), or undefined when it will be delivered to the token later (AWS). */
  awaitDependencies(request: AwaitRequest): Promise<DependencyGateResult | undefined>;
  /** A node ended: dependents that can now decide are released. */
  nodeEnded(
    pipelineExecutionId: string,
    dependents: readonly { nodeId: number; decide: () => Promise<GateDecision> }[],
  ): Promise<void>;
}
