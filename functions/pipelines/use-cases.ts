import { createHash } from 'node:crypto';
import type { Account } from '../core/accounts';
import { awaitFinished } from '../core/change-watch';
import type { PerformanceTier } from '../core/engine';
import { BadRequestError, ConflictError, NotFoundError } from '../core/errors';
import { newId } from '../core/ids';
import type { MaterializedView } from '../core/materialized-views';
import { checkParameterValues, type ParameterOverrides } from '../core/parameters';
import { executionLevels, type PipelineGraph, validatePipelineGraph } from '../core/pipeline-graph';
import { compilePipelineWorkflow, pipelineWorkflowInput } from '../core/pipeline-workflow';
import {
  isCancelRequested,
  type PipelineExecution,
  type PipelineNodeRun,
  type PipelineTrigger,
  TERMINAL_NODE_STATES,
  TERMINAL_PIPELINE_STATES,
} from '../core/pipelines';
import { checkWebhook, type WebhookTarget } from '../core/webhooks';
import type { ExecutionConfig } from '../executions/config';
import { assertWithinCreditLimit, savedQueryRequest } from '../executions/use-cases';
import { logger } from '../http/logger';
import { refreshRequest } from '../matviews/use-cases';
import { readableQuery } from '../queries/use-cases';
import type { Services } from '../services';
import { lineageGraph, resolveLineage } from './lineage';
import { CANCELLED_BY_USER, endCancelledPipeline, settleStoppedNodes, stopNodes } from './node-steps';
import { notifyPipelineFinished } from './webhooks';

/** A pipeline as it would run: the graph, its execution order and the data each node would scan. */
export interface PipelinePlan {
  graph: PipelineGraph;
  executionOrder: number[][];
  estimates: { id: number; baseTables: string[]; bytes: number }[];
}

/** `GET /v1/query/{id}/pipeline`: the plan of the query's lineage, without running anything. */
export async function pipelineDefinition(
  services: Services,
  account: Account,
  queryId: number,
  options: { tier: PerformanceTier; parameters?: ParameterOverrides },
): Promise<PipelinePlan> {
  const lineage = await resolveLineage(services, account, queryId);
  // Values the query does not declare, or cannot take, are the 400 its execute would answer.
  if (options.parameters && Object.keys(options.parameters).length) {
    checkParameterValues(
      (await readableQuery(services.queries, account, queryId)).parameters,
      options.parameters,
    );
  }
  const { graph, nodeKeys } = lineageGraph(lineage, options);
  validatePipelineGraph(graph);
  const stats = new Map(
    (await services.catalogStats.listStats()).map((s) => [s.fullName.toLowerCase(), s.sizeBytes]),
  );
  const estimates = graph.nodes.map((node) => {
    const baseTables = nodeKeys.get(node.id)?.baseTables ?? [];
    return {
      id: node.id,
      baseTables,
      bytes: baseTables.reduce((sum, table) => sum + (stats.get(table) ?? 0), 0),
    };
  });
  return { graph, executionOrder: executionLevels(graph), estimates };
}

/** A pipeline execution that was recorded and whose workflow started. */
export interface StartedPipeline {
  pipelineExecutionId: string;
}

export async function executeQueryPipeline(
  services: Services,
  account: Account,
  queryId: number,
  options: { tier: PerformanceTier; parameters?: ParameterOverrides } & RunOptions,
): Promise<StartedPipeline> {
  const lineage = await resolveLineage(services, account, queryId);
  const { graph } = lineageGraph(lineage, options);
  return startPipeline(services, account, graph, {
    queryId,
    ...(options.webhook ? { webhook: options.webhook } : {}),
    ...(options.onFailure ? { onFailure: options.onFailure } : {}),
  });
}

/** How a run behaves beyond its graph: where it reports its end, and whether a failure stops it. */
export interface RunOptions {
  /** Where to post the final status (checked against the host's webhook policy). */
  webhook?: WebhookTarget;
  /** `stop`: the first failed node stops the rest (fail fast). */
  onFailure?: 'continue' | 'stop';
}

/**
 * A scheduled refresh runs as a pipeline, so the views it reads refresh first (each in its turn),
 * then the view itself.
 */
export async function refreshViewWithUpstream(
  services: Services,
  view: MaterializedView,
): Promise<StartedPipeline | undefined> {
  const account = await services.accounts.getAccount(view.accountId);
  if (!account) return undefined;
  const tier = view.schedule?.performance ?? view.performance;
  const lineage = await resolveLineage(services, account, view.queryId, view);
  return startPipeline(services, account, lineageGraph(lineage, { tier }).graph, {
    ...(view.schedule?.webhook ? { webhook: view.schedule.webhook } : {}),
    ...(view.schedule ? { trigger: scheduleTrigger(view) } : {}),
  });
}

/** What a scheduled refresh's run says started it: the view's schedule. */
export function scheduleTrigger(view: MaterializedView): PipelineTrigger {
  return { type: 'schedule', materializedView: view.fullName, cronExpression: view.schedule!.cronExpression };
}

/**
 * Validates and records a pipeline execution (nodes first, then the header as the commit point),
 * then starts its generated workflow. Returns at once.
 */
export async function startPipeline(
  services: Services,
  account: Account,
  graph: PipelineGraph,
  options: RunOptions & {
    queryId?: number;
    trigger?: PipelineTrigger;
    retryOf?: PipelineExecution;
    reuse?: ReadonlyMap<number, PipelineNodeRun>;
  } = {},
  now = new Date(),
): Promise<StartedPipeline> {
  validatePipelineGraph(graph);
  const webhook = options.webhook && checkWebhook(options.webhook, services.config.webhooks);
  await assertWithinCreditLimit(services, account, now);
  // Every node must be runnable by the caller before anything is recorded (checked together; the
  // first node that is not is named).
  const checks = await Promise.allSettled(
    graph.nodes.map((node) =>
      node.queryExecution
        ? savedQueryRequest(services, account, node.queryExecution.queryId, {
            tier: node.queryExecution.performance,
            parameters: node.queryExecution.queryParameters as ParameterOverrides,
          })
        : refreshRequest(
            services,
            account,
            node.materializedViewRefresh!.name,
            node.materializedViewRefresh!.performance,
          ),
    ),
  );
  const refused = checks.findIndex((check) => check.status === 'rejected');
  if (refused !== -1) {
    throw withNode((checks[refused] as PromiseRejectedResult).reason as Error, graph.nodes[refused]!);
  }
  const pipelineExecutionId = newId(now.getTime());
  const nodes: PipelineNodeRun[] = graph.nodes.map((node) => {
    const reused = options.reuse?.get(node.id);
    return {
      pipelineExecutionId,
      nodeId: node.id,
      kind: node.queryExecution ? 'query_execution' : 'materialized_view_refresh',
      queryId: node.queryExecution?.queryId ?? 0,
      ...(node.materializedViewRefresh ? { materializedViewName: node.materializedViewRefresh.name } : {}),
      performance: (node.queryExecution ?? node.materializedViewRefresh)!.performance,
      ...(node.queryExecution?.queryParameters
        ? { queryParameters: node.queryExecution.queryParameters }
        : {}),
      dependencies: node.dependencies,
      state: reused ? 'completed' : 'pending',
      ...(reused
        ? {
            executionId: reused.executionId,
            reusedFrom: reused.pipelineExecutionId,
            startedAt: reused.startedAt,
            ...(reused.executionStartedAt ? { executionStartedAt: reused.executionStartedAt } : {}),
            endedAt: reused.endedAt,
            credits: 0,
          }
        : {}),
    };
  });
  const execution: PipelineExecution = {
    pipelineExecutionId,
    accountId: account.accountId,
    ...(options.queryId ? { queryId: options.queryId } : {}),
    state: 'pending',
    graphHash: graphHash(graph),
    graph,
    submittedAt: now.toISOString(),
    ...(options.retryOf ? { retryOf: options.retryOf.pipelineExecutionId } : {}),
    ...(options.trigger ? { trigger: options.trigger } : {}),
    ...(webhook ? { webhook } : {}),
    ...(options.onFailure === 'stop' ? { onFailure: 'stop' as const } : {}),
  };
  await services.pipelines.create(execution, nodes);
  await services.orchestrator.start({
    name: pipelineExecutionId,
    definition: compilePipelineWorkflow(graph, {
      runnerResource: services.config.runnerResource,
      ...pipelineTimeouts(services.config, graph.nodes.length),
    }),
    input: pipelineWorkflowInput(pipelineExecutionId),
  });
  return { pipelineExecutionId };
}

/**
 * How long a node may run (the longest tier's limit plus a margin for slot waits and the runner's
 * calls) and how long a node may wait for its dependencies (every node before it, in the worst
 * case): the pipeline's own bound is the latter.
 */
export function pipelineTimeouts(config: ExecutionConfig, nodeCount: number) {
  const nodeTimeoutSeconds = Math.ceil(Math.max(...Object.values(config.queryTimeoutMs)) / 1000) + 120;
  return { nodeTimeoutSeconds, awaitTimeoutSeconds: nodeTimeoutSeconds * nodeCount };
}

/** The error of one node's check, saying which node: its id, and the view or query it runs. */
function withNode(error: Error, node: PipelineGraph['nodes'][number]): Error {
  const subject = node.materializedViewRefresh
    ? node.materializedViewRefresh.name
    : `query ${node.queryExecution!.queryId}`;
  error.message = `Node ${node.id} (${subject}): ${error.message}`;
  return error;
}

/**
 * What a graph runs, whatever its tiers, in one canonical text (ids, dependencies, each node's
 * query or view and parameter values; keys sorted: a stored graph's may come back in any order).
 */
function lineageShape(graph: PipelineGraph): string {
  const sorted = (values: Record<string, unknown> | undefined) =>
    values && Object.fromEntries(Object.entries(values).sort(([a], [b]) => a.localeCompare(b)));
  return JSON.stringify(
    [...graph.nodes]
      .sort((a, b) => a.id - b.id)
      .map((node) => [
        node.id,
        [...node.dependencies].sort((a, b) => a - b),
        node.queryExecution?.queryId ?? null,
        node.materializedViewRefresh?.name ?? null,
        sorted(node.queryExecution?.queryParameters) ?? null,
      ]),
  );
}

/** The graph with `tier` on the nodes `which` picks. */
function withTier(
  graph: PipelineGraph,
  tier: PerformanceTier,
  which: (node: PipelineGraph['nodes'][number]) => boolean,
): PipelineGraph {
  return {
    nodes: graph.nodes.map((node) =>
      !which(node)
        ? node
        : node.queryExecution
          ? { ...node, queryExecution: { ...node.queryExecution, performance: tier } }
          : { ...node, materializedViewRefresh: { ...node.materializedViewRefresh!, performance: tier } },
    ),
  };
}

export function graphHash(graph: PipelineGraph): string {
  const canonical = [...graph.nodes]
    .sort((a, b) => a.id - b.id)
    .map((node) => ({ ...node, dependencies: [...node.dependencies].sort((a, b) => a - b) }));
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

async function ownPipeline(services: Services, account: Account, pipelineExecutionId: string) {
  const run = await services.pipelines.get(pipelineExecutionId);
  if (!run || run.execution.accountId !== account.accountId) {
    throw new NotFoundError(`Pipeline execution ${pipelineExecutionId} not found.`);
  }
  return run;
}

/**
 * `GET /v1/pipelines/executions/{id}/status`, read from DynamoDB only: the run, its nodes by id,
 * once the run has finished or as it stands after `waitMillis` (as an execution's status).
 */
export async function pipelineStatus(
  services: Services,
  account: Account,
  pipelineExecutionId: string,
  waitMillis = 0,
): Promise<{ execution: PipelineExecution; nodes: PipelineNodeRun[] }> {
  const { execution, nodes } = await awaitFinished(services.pipelineWatch, pipelineExecutionId, waitMillis, {
    read: () => ownPipeline(services, account, pipelineExecutionId),
    stateOf: (run) => run.execution.state,
    isFinished: (state) => TERMINAL_PIPELINE_STATES.includes(state),
  });
  return { execution, nodes: [...nodes].sort((a, b) => a.nodeId - b.nodeId) };
}

/**
 * Stops running nodes and cancels pending ones. The run reads cancelled once every node has ended
 * and the stopped ones have their engine time charged (at once when no node was running): a
 * client that stops polling at a final state reads the final cost.
 */
export async function cancelPipeline(
  services: Services,
  account: Account,
  pipelineExecutionId: string,
  now = new Date(),
) {
  const { execution, nodes } = await ownPipeline(services, account, pipelineExecutionId);
  if (execution.cancelledAt && !TERMINAL_PIPELINE_STATES.includes(execution.state)) {
    throw new ConflictError(
      `Pipeline execution ${pipelineExecutionId} is being cancelled already (since ${execution.cancelledAt}); it reads cancelled once its running nodes have stopped and their engine time is charged.`,
    );
  }
  const cancelled = await services.pipelines.transition(pipelineExecutionId, ['pending', 'executing'], {
    cancelledAt: now.toISOString(),
  });
  if (!cancelled)
    throw new ConflictError(
      `Pipeline execution ${pipelineExecutionId} already finished; there is nothing to cancel.`,
    );
  await stopNodes(
    services,
    pipelineExecutionId,
    nodes,
    {
      pending: 'The pipeline was cancelled before this node started.',
      running: 'The pipeline was cancelled while this node ran.',
    },
    now,
  );
  await endCancelledPipeline(services, pipelineExecutionId);
}

/**
 * Starts a new pipeline execution that reruns only the failed, skipped and cancelled nodes and
 * reuses the completed ones. Refuses (409) when the graph changed since, e.g. the query's lineage.
 */
export async function retryPipeline(
  services: Services,
  account: Account,
  pipelineExecutionId: string,
  /** What the retry changes: the rerun nodes' tier, its on_failure, its webhook (else the run's). */
  overrides: RunOptions & { tier?: PerformanceTier } = {},
): Promise<StartedPipeline & { rerunNodeIds: number[]; reusedNodeIds: number[] }> {
  const { execution, nodes } = await ownPipeline(services, account, pipelineExecutionId);
  if (!TERMINAL_PIPELINE_STATES.includes(execution.state)) {
    throw new ConflictError(
      `Pipeline execution ${pipelineExecutionId} is still ${execution.state}; retry it once it has finished.`,
    );
  }
  if (execution.state === 'completed') {
    throw new ConflictError(
      `Pipeline execution ${pipelineExecutionId} completed; there is nothing to retry.`,
    );
  }
  if (execution.queryId) {
    const parameters = execution.graph.nodes.find((n) => n.queryExecution?.queryId === execution.queryId)
      ?.queryExecution?.queryParameters as ParameterOverrides | undefined;
    const current = lineageGraph(await resolveLineage(services, account, execution.queryId), {
      tier: 'medium',
      parameters,
    }).graph;
    // The lineage, not the tiers: a retry may have rerun some nodes on another tier.
    if (lineageShape(current) !== lineageShape(execution.graph)) {
      throw new ConflictError(
        `The pipeline of query ${execution.queryId} changed since ${pipelineExecutionId} ran (its lineage is different); start a new run with POST /v1/query/${execution.queryId}/pipeline/execute.`,
      );
    }
  }
  const reuse = new Map(
    nodes.filter((node) => node.state === 'completed' && node.executionId).map((node) => [node.nodeId, node]),
  );
  const rerun = nodes.filter((node) => node.state !== 'completed').map((node) => node.nodeId);
  if (rerun.length === 0) throw new BadRequestError('Every node completed; there is nothing to retry.');
  const graph = overrides.tier
    ? withTier(execution.graph, overrides.tier, (node) => !reuse.has(node.id))
    : execution.graph;
  const webhook = overrides.webhook ?? execution.webhook;
  const onFailure = overrides.onFailure ?? execution.onFailure;
  return {
    ...(await startPipeline(services, account, graph, {
      ...(execution.queryId ? { queryId: execution.queryId } : {}),
      // Unless told otherwise, the retry tells the same receiver how it ended, and fails as fast
      // as the run did.
      ...(webhook ? { webhook } : {}),
      ...(onFailure ? { onFailure } : {}),
      retryOf: execution,
      reuse,
    })),
    rerunNodeIds: rerun.sort((a, b) => a - b),
    reusedNodeIds: [...reuse.keys()].sort((a, b) => a - b),
  };
}

/**
 * Start-up recovery: a pipeline that was executing when the host stopped ends `failed` with the
 * reason; its unfinished nodes end in a true terminal state, and a retry reruns just those.
 */
export async function recoverPipelines(services: Services): Promise<number> {
  let recovered = 0;
  for (const execution of await services.pipelines.listActive()) {
    const id = execution.pipelineExecutionId;
    if (!(await failInterruptedPipeline(services, id, RESTARTED, { notify: false }))) continue;
    recovered++;
    // Told after start-up, not during it: a slow receiver must not hold the host's start.
    if (execution.webhook) {
      notifyPipelineFinished(services, id).catch((error: unknown) => {
        logger.warn('telling a webhook of a recovered pipeline failed', { id, error: error as Error });
      });
    }
  }
  return recovered;
}

/** Why a pipeline run ended without its workflow finishing it, as its nodes and the run report it. */
export interface InterruptionReason {
  running: string;
  pending: string;
  run: string;
}

const RESTARTED: InterruptionReason = {
  running: 'The service restarted while this node was running.',
  pending: 'Not run: the service restarted first.',
  run: 'The service restarted during this run',
};

/**
 * Ends a pipeline run whose workflow can no longer finish it (the host restarted, or in AWS the
 * sweeper found it past its bounds): running nodes fail, pending ones are cancelled, the run fails
 * with a pointer to retry. Conditional writes: a run that ended meanwhile is left alone.
 */
export async function failInterruptedPipeline(
  services: Services,
  pipelineExecutionId: string,
  reason: InterruptionReason,
  /** Whether to post the run's webhook before returning (the caller may tell it later). */
  options: { notify: boolean } = { notify: true },
): Promise<boolean> {
  const run = await services.pipelines.get(pipelineExecutionId);
  const at = new Date().toISOString();
  // A run the user had cancelled ends cancelled, as it would have once its nodes stopped.
  const cancelled = run !== undefined && isCancelRequested(run.execution);
  for (const node of run?.nodes ?? []) {
    if (TERMINAL_NODE_STATES.includes(node.state)) continue;
    const running = node.state === 'running';
    await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['pending', 'running'], {
      state: running && !cancelled ? 'failed' : 'cancelled',
      endedAt: at,
      error: { type: 'internal_error', message: running ? reason.running : reason.pending },
      // Its run is gone with the workflow: what it was charged is all it will be.
      ...(running
        ? { credits: node.sharedRefresh ? 0 : await chargedCredits(services, node.executionId) }
        : {}),
    });
  }
  if (run) await settleStoppedNodes(services, pipelineExecutionId, run.nodes);
  const done = await services.pipelines.transition(pipelineExecutionId, ['pending', 'executing'], {
    state: cancelled ? 'cancelled' : 'failed',
    endedAt: at,
    error: cancelled
      ? CANCELLED_BY_USER
      : `${reason.run}; POST /v1/pipelines/executions/${pipelineExecutionId}/retry reruns the nodes that did not complete.`,
  });
  if (done && options.notify && run?.execution.webhook) {
    await notifyPipelineFinished(services, pipelineExecutionId);
  }
  return done !== undefined;
}

async function chargedCredits(services: Services, executionId: string | undefined): Promise<number> {
  return (executionId ? (await services.executions.get(executionId))?.credits : undefined) ?? 0;
}
