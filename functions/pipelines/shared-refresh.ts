import { type Execution, isTerminal } from '../core/executions';
import type { PipelineNodeRun } from '../core/pipelines';
import type { Services } from '../services';

/**
 * Refreshes of one view that would run at the same time share one run: a view scheduled itself
 * and upstream of another scheduled view is due twice at the same tick (its own schedule, and the
 * other view's pipeline), and a pipeline may need a view whose refresh a request just started.
 * A pipeline's refresh node joins its view's latest refresh while that is still running, if it
 * can stand for the node's own: its query reads the views this node depends on as they were when
 * it was submitted, so it must have been submitted after their executions for this run ended.
 * Otherwise the node claims the view with its own execution: one conditional write, which fails
 * when another refresh was recorded since the node looked, and the node looks again.
 */
export type RefreshClaim =
  | { joined: Execution }
  | {
      /** The node's own execution is the view's latest refresh now. */
      claimed: true;
    };

const CLAIM_ATTEMPTS = 5;

/** The view's latest refresh, if the node may join it instead of running its own. */
export async function joinableRefresh(
  services: Services,
  node: PipelineNodeRun,
  runNodes: readonly PipelineNodeRun[],
  latestIds: readonly string[],
): Promise<Execution | undefined> {
  const latest = latestIds[0] && (await services.executions.get(latestIds[0]));
  if (!latest || isTerminal(latest.state)) return undefined;
  for (const depId of node.dependencies) {
    const executionId = runNodes.find((n) => n.nodeId === depId)?.executionId;
    const ended = executionId && (await services.executions.get(executionId))?.executionEndedAt;
    if (!ended || ended > latest.submittedAt) return undefined;
  }
  return latest;
}

/**
 * Makes `own` (created, not yet submitted) the view's latest refresh, or finds the running refresh
 * the node joins instead (the caller then cancels `own`).
 */
export async function claimOrJoinRefresh(
  services: Services,
  node: PipelineNodeRun,
  runNodes: readonly PipelineNodeRun[],
  own: Execution,
  /** The view's `lastExecutionIds` as the caller read them (and found nothing to join). */
  seenIds: readonly string[],
): Promise<RefreshClaim> {
  const name = node.materializedViewName!;
  let seen = seenIds;
  for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
    if (await services.materializedViews.claimRefresh(name, own.executionId, seen)) return { claimed: true };
    const view = await services.materializedViews.get(name);
    // Deleted meanwhile: the node runs its execution, whose end says so.
    if (!view) return { claimed: true };
    seen = view.lastExecutionIds;
    const joined = await joinableRefresh(services, node, runNodes, seen);
    if (joined) return { joined };
  }
  // The view kept changing: the node runs its own refresh, as any refresh request does.
  await services.materializedViews.recordRefresh(name, own.executionId);
  return { claimed: true };
}
