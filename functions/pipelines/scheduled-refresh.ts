import { ServiceError } from '../core/errors';
import { newId } from '../core/ids';
import type { MaterializedView } from '../core/materialized-views';
import type { PipelineGraph } from '../core/pipeline-graph';
import type { PipelineExecution, PipelineNodeRun } from '../core/pipelines';
import type { Services } from '../services';
import { graphHash, refreshViewWithUpstream, scheduleTrigger } from './use-cases';
import { notifyPipelineFinished } from './webhooks';

/** How one tick of a view's schedule went. */
export type ScheduledRefreshOutcome =
  | { started: string }
  | {
      /** Why the refresh could not start. */
      failed: string;
      /** The failed pipeline run recorded for it. */
      pipelineExecutionId: string;
      /** Posting the run's end to the schedule's webhook (resolved at once without one). */
      delivery: Promise<void>;
    };

/**
 * One tick of a view's schedule (the local scheduler; in AWS its EventBridge schedule, through the
 * node runner): starts the refresh pipeline, upstream views first. A refresh that cannot start (its
 * lineage gained a cycle, a query was archived, the credit limit was reached) is told where the
 * owner looks, not only in the host's log: a failed pipeline run that says why (posted to the
 * schedule's webhook, if it has one, as any run's end is) and `schedule.last_error` on the view,
 * until a scheduled refresh starts again. An error that is not the request's (the store failing)
 * is thrown: the caller logs it (AWS retries the invocation).
 * Undefined when the view's account no longer exists.
 */
export async function runScheduledRefresh(
  services: Services,
  view: MaterializedView,
  now = new Date(),
): Promise<ScheduledRefreshOutcome | undefined> {
  let started: Awaited<ReturnType<typeof refreshViewWithUpstream>>;
  try {
    started = await refreshViewWithUpstream(services, view);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return recordFailedStart(services, view, error.message, now);
  }
  if (!started) return undefined;
  if (view.scheduleError) await services.materializedViews.recordScheduleError(view.fullName, undefined);
  return { started: started.pipelineExecutionId };
}

async function recordFailedStart(
  services: Services,
  view: MaterializedView,
  reason: string,
  now: Date,
): Promise<ScheduledRefreshOutcome> {
  const at = now.toISOString();
  const pipelineExecutionId = newId(now.getTime());
  const performance = view.schedule?.performance ?? view.performance;
  // The run that could not start, as one refresh node of the view (its lineage may not be buildable).
  const graph: PipelineGraph = {
    nodes: [{ id: 1, dependencies: [], materializedViewRefresh: { name: view.fullName, performance } }],
  };
  const webhook = view.schedule?.webhook;
  const execution: PipelineExecution = {
    pipelineExecutionId,
    accountId: view.accountId,
    state: 'pending',
    graphHash: graphHash(graph),
    graph,
    submittedAt: at,
    ...(view.schedule ? { trigger: scheduleTrigger(view) } : {}),
    ...(webhook ? { webhook } : {}),
  };
  const node: PipelineNodeRun = {
    pipelineExecutionId,
    nodeId: 1,
    kind: 'materialized_view_refresh',
    queryId: 0,
    materializedViewName: view.fullName,
    performance,
    dependencies: [],
    state: 'failed',
    endedAt: at,
    credits: 0,
    error: { type: 'execution_error', message: reason },
  };
  const message = `The scheduled refresh of ${view.fullName} could not start: ${reason}`;
  // Recorded pending, then failed: a run is listed as active until it ends (as every run is).
  await services.pipelines.create(execution, [node]);
  await services.pipelines.transition(pipelineExecutionId, ['pending'], {
    state: 'failed',
    endedAt: at,
    error: message,
  });
  await services.materializedViews.recordScheduleError(view.fullName, {
    at,
    message,
    pipelineExecutionId,
  });
  const delivery = webhook ? notifyPipelineFinished(services, pipelineExecutionId) : Promise.resolve();
  return { failed: message, pipelineExecutionId, delivery };
}
