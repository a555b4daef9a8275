import type { PerformanceTier } from './engine';
import type { ExecutionError } from './executions';
import type { PipelineGraph } from './pipeline-graph';
import type { WebhookDelivery, WebhookTarget } from './webhooks';

/**
 * Pipeline and node states (documented in the README):
 * - pipeline: pending (accepted, workflow not started yet) → executing → completed (every node
 *   completed) | failed (a node failed; unrelated branches still ran) | cancelled (by the user).
 *   A run reads a final state only with its final cost: a cancelled one stays executing, with
 *   `cancelledAt` set, until the nodes it stopped have their engine time charged (`isSettling`).
 * - node: pending (waiting for its dependencies) → running (its execution exists: queued for a
 *   slot or the engine until `executionStartedAt` is set, then executing) → completed | failed;
 *   or skipped (a dependency failed, was skipped or cancelled: it never runs) | cancelled (the
 *   pipeline was cancelled before or while it ran).
 */
export const PIPELINE_STATES = ['pending', 'executing', 'completed', 'failed', 'cancelled'] as const;
export type PipelineState = (typeof PIPELINE_STATES)[number];
export const NODE_STATES = ['pending', 'running', 'completed', 'failed', 'cancelled', 'skipped'] as const;
export type NodeState = (typeof NODE_STATES)[number];

export const TERMINAL_PIPELINE_STATES: readonly PipelineState[] = ['completed', 'failed', 'cancelled'];
export const TERMINAL_NODE_STATES: readonly NodeState[] = ['completed', 'failed', 'cancelled', 'skipped'];

export interface PipelineExecution {
  pipelineExecutionId: string;
  accountId: string;
  /** The query the pipeline was built for, when built from lineage. */
  queryId?: number;
  state: PipelineState;
  /** Hash of the graph, so a retry can refuse a graph that changed. */
  graphHash: string;
  graph: PipelineGraph;
  submittedAt: string;
  startedAt?: string;
  endedAt?: string;
  error?: string;
  /**
   * When the user cancelled the run. It reads cancelled once every node has ended and the nodes
   * whose runs it stopped have their credits (until then it reads pending or executing).
   */
  cancelledAt?: string;
  /** The pipeline execution this one retries. */
  retryOf?: string;
  /** `stop`: the first failed node stops the rest of the run (fail fast); unset, unrelated branches go on. */
  onFailure?: 'stop';
  /** What started the run, when it was not an API call: a view's refresh schedule. */
  trigger?: PipelineTrigger;
  /** Where the final status is posted (functions/pipelines/webhooks.ts). */
  webhook?: WebhookTarget;
  /** How posting it went. */
  webhookDelivery?: WebhookDelivery;
}

/** A run the service started itself: the scheduled refresh of a view (its schedule fired). */
export interface PipelineTrigger {
  type: 'schedule';
  materializedView: string;
  cronExpression: string;
}

export interface PipelineNodeRun {
  pipelineExecutionId: string;
  nodeId: number;
  kind: 'query_execution' | 'materialized_view_refresh';
  queryId: number;
  materializedViewName?: string;
  performance: PerformanceTier;
  queryParameters?: Record<string, unknown>;
  dependencies: number[];
  state: NodeState;
  executionId?: string;
  /** Set when a retry reused this node's earlier successful execution instead of rerunning it. */
  reusedFrom?: string;
  /**
   * Set when the node, a view refresh, joined the refresh of its view already running (started by
   * another run or a refresh request) instead of starting a second one: it follows that execution,
   * which its starter pays for, and is charged nothing.
   */
  sharedRefresh?: true;
  /** When the node started: its execution was created (it may then wait for a slot or the engine). */
  startedAt?: string;
  /**
   * When its execution left the queue and began to run: unset while it waits for a slot or for
   * the engine. Once the node has ended, the start its engine time (and charge) counts from.
   */
  executionStartedAt?: string;
  endedAt?: string;
  credits?: number;
  error?: ExecutionError | { type: string; message: string };
}

export type PipelineChanges = Partial<
  Pick<PipelineExecution, 'state' | 'startedAt' | 'endedAt' | 'error' | 'webhookDelivery' | 'cancelledAt'>
>;

/** A node as users know it: the view it refreshes, or the query it runs. */
export function nodeSubject(
  node: Pick<PipelineNodeRun, 'kind' | 'queryId' | 'materializedViewName'>,
): string {
  return node.kind === 'materialized_view_refresh' && node.materializedViewName
    ? node.materializedViewName
    : `query ${node.queryId}`;
}

/** Whether the run was cancelled (it may still be settling its stopped nodes' credits). */
export function isCancelRequested(execution: Pick<PipelineExecution, 'state' | 'cancelledAt'>): boolean {
  return execution.state === 'cancelled' || execution.cancelledAt !== undefined;
}

/**
 * A node whose run a cancel (or on_failure "stop") stopped, and whose engine time is not charged
 * yet: the node ended cancelled, but its cost is not final until its run reports how long it ran.
 */
export function isSettling(node: PipelineNodeRun): boolean {
  return (
    node.state === 'cancelled' &&
    node.executionId !== undefined &&
    !node.reusedFrom &&
    !node.sharedRefresh &&
    node.credits === undefined
  );
}

/** Every node has ended with its final cost: the run may read a final state. */
export function allNodesSettled(nodes: readonly PipelineNodeRun[]): boolean {
  return nodes.every((node) => TERMINAL_NODE_STATES.includes(node.state) && !isSettling(node));
}

export type NodeChanges = Partial<
  Pick<
    PipelineNodeRun,
    | 'state'
    | 'executionId'
    | 'sharedRefresh'
    | 'startedAt'
    | 'executionStartedAt'
    | 'endedAt'
    | 'credits'
    | 'error'
  >
>;

export interface PipelineStore {
  /** Writes the nodes, then the header: the header is the commit point (no transactions). */
  create(execution: PipelineExecution, nodes: readonly PipelineNodeRun[]): Promise<void>;
  get(
    pipelineExecutionId: string,
  ): Promise<{ execution: PipelineExecution; nodes: PipelineNodeRun[] } | undefined>;
  getNode(pipelineExecutionId: string, nodeId: number): Promise<PipelineNodeRun | undefined>;
  /** Conditional on the current state being one of `from`; undefined when it had moved on. */
  transition(
    pipelineExecutionId: string,
    from: readonly PipelineState[],
    changes: PipelineChanges,
  ): Promise<PipelineExecution | undefined>;
  transitionNode(
    pipelineExecutionId: string,
    nodeId: number,
    from: readonly NodeState[],
    changes: NodeChanges,
  ): Promise<PipelineNodeRun | undefined>;
  /** Pipelines not finished (pending or executing), for start-up recovery. */
  listActive(): Promise<PipelineExecution[]>;
}
