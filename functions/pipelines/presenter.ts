import { z } from 'zod';
import { PERFORMANCE_TIERS } from '../core/engine';
import type { PipelineGraph } from '../core/pipeline-graph';
import {
  isSettling,
  NODE_STATES,
  PIPELINE_STATES,
  type PipelineExecution,
  type PipelineNodeRun,
} from '../core/pipelines';
import type { PipelinePlan, StartedPipeline } from './use-cases';

// REST answers (Dune's field names). The schemas document them in the OpenAPI document and type the
// functions that build them.

const tier = z.enum(PERFORMANCE_TIERS);

const pipelineNodeResponse = z.object({
  id: z.number().int(),
  dependencies: z.array(z.number().int()),
  query_execution: z
    .object({
      query_id: z.number().int(),
      performance: tier,
      query_parameters: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  materialized_view_refresh: z.object({ name: z.string(), performance: tier }).optional(),
});

function nodeResponse(node: PipelineGraph['nodes'][number]): z.output<typeof pipelineNodeResponse> {
  return {
    id: node.id,
    dependencies: node.dependencies,
    ...(node.queryExecution
      ? {
          query_execution: {
            query_id: node.queryExecution.queryId,
            performance: node.queryExecution.performance,
            ...(node.queryExecution.queryParameters
              ? { query_parameters: node.queryExecution.queryParameters }
              : {}),
          },
        }
      : {}),
    ...(node.materializedViewRefresh ? { materialized_view_refresh: node.materializedViewRefresh } : {}),
  };
}

export const pipelineDefinitionResponse = z.object({
  pipeline: z.object({ nodes: z.array(pipelineNodeResponse) }),
  execution_order: z
    .array(z.array(z.number().int()))
    .describe('Node ids level by level: a level runs once every node of the levels before it completed.'),
  estimated_bytes_scanned: z.number().int(),
  node_estimates: z.array(
    z.object({
      id: z.number().int(),
      base_tables: z.array(z.string()),
      estimated_bytes_scanned: z.number().int(),
    }),
  ),
});

export function pipelineDefinitionResponseOf(
  plan: PipelinePlan,
): z.output<typeof pipelineDefinitionResponse> {
  return {
    pipeline: { nodes: plan.graph.nodes.map(nodeResponse) },
    execution_order: plan.executionOrder,
    estimated_bytes_scanned: plan.estimates.reduce((sum, e) => sum + e.bytes, 0),
    node_estimates: plan.estimates.map((e) => ({
      id: e.id,
      base_tables: e.baseTables,
      estimated_bytes_scanned: e.bytes,
    })),
  };
}

export const startedPipelineResponse = z.object({ pipeline_execution_id: z.string() });

export function startedPipelineResponseOf(
  started: StartedPipeline,
): z.output<typeof startedPipelineResponse> {
  return { pipeline_execution_id: started.pipelineExecutionId };
}

export const retriedPipelineResponse = startedPipelineResponse.extend({
  rerun_node_ids: z.array(z.number().int()),
  reused_node_ids: z.array(z.number().int()).describe('Completed nodes whose results the retry reuses.'),
});

export function retriedPipelineResponseOf(
  retried: StartedPipeline & { rerunNodeIds: number[]; reusedNodeIds: number[] },
): z.output<typeof retriedPipelineResponse> {
  return {
    pipeline_execution_id: retried.pipelineExecutionId,
    rerun_node_ids: retried.rerunNodeIds,
    reused_node_ids: retried.reusedNodeIds,
  };
}

const nodeRunStatus = z.object({
  status: z
    .enum(NODE_STATES)
    .describe(
      'pending: waiting for its dependencies. running: its execution was created and runs (or, once stopped by a cancel, until its engine time is charged). completed, failed, skipped (a dependency did not complete), cancelled: final, with the final cost.',
    ),
  execution_id: z.string().nullable(),
  error: z.object({ type: z.string(), message: z.string() }).optional(),
  started_at: z
    .string()
    .optional()
    .describe('When the node started: its execution was created (it may then wait in the queue).'),
  execution_started_at: z
    .string()
    .optional()
    .describe(
      'When its execution left the queue (a slot, the engine) and began to run; absent while a running node is queued. Once the node has ended, the start of the engine time it is charged for.',
    ),
  queued: z
    .literal(true)
    .optional()
    .describe(
      'Set while a running node waits in the queue (for a slot or the engine): it has not begun to run.',
    ),
  ended_at: z.string().optional(),
  execution_cost_credits: z.number(),
  reused_from: z.string().optional().describe('The pipeline execution whose result a retry reused.'),
  shared_refresh: z
    .literal(true)
    .optional()
    .describe(
      "Set when the node joined its view's refresh already running (another run's, or a refresh request's) instead of starting a second one: execution_id is that refresh, charged to whoever started it (this node costs 0).",
    ),
});

const nodeExecutionResponse = z.object({
  id: z.number().int(),
  dependencies: z.array(z.number().int()),
  query_execution_status: nodeRunStatus.extend({ query_id: z.number().int() }).optional(),
  materialized_view_refresh_status: nodeRunStatus.extend({ name: z.string() }).optional(),
});

export const pipelineStatusResponse = z.object({
  pipeline_execution_id: z.string(),
  status: z
    .enum(PIPELINE_STATES)
    .describe(
      'pending, executing, then completed, failed or cancelled. A final state comes with the final execution_cost_credits: a cancelled run reads executing (with cancelled_at) until the nodes it stopped have their engine time charged.',
    ),
  error: z.string().optional(),
  cancelled_at: z
    .string()
    .optional()
    .describe('When the run was cancelled; it reads cancelled once its stopped nodes are charged.'),
  query_id: z.number().int().optional(),
  submitted_at: z.string(),
  started_at: z.string().optional(),
  ended_at: z.string().optional(),
  retry_of: z.string().optional(),
  trigger: z
    .object({
      type: z.literal('schedule'),
      materialized_view: z.string(),
      cron_expression: z.string(),
    })
    .optional()
    .describe(
      "Set when the service started the run itself: a view's refresh schedule fired (the view's full name and cron).",
    ),
  on_failure: z
    .enum(['stop'])
    .optional()
    .describe('Set when the first failed node stops the rest of the run.'),
  execution_cost_credits: z.number().describe('Credits of all nodes so far.'),
  node_executions: z.array(nodeExecutionResponse),
  webhook: z
    .object({
      url: z.string(),
      delivery: z
        .object({
          state: z.enum(['delivered', 'failed']),
          attempts: z.number().int(),
          status_code: z.number().int().optional(),
          error: z.string().optional(),
          at: z.string(),
        })
        .optional()
        .describe('How posting the final status went; absent until the run has finished and it was tried.'),
    })
    .optional(),
});

export function pipelineStatusResponseOf(run: {
  execution: PipelineExecution;
  nodes: PipelineNodeRun[];
}): z.output<typeof pipelineStatusResponse> {
  const { execution, nodes } = run;
  const credits = nodes.reduce((sum, node) => sum + (node.credits ?? 0), 0);
  return {
    pipeline_execution_id: execution.pipelineExecutionId,
    status: execution.state,
    ...(execution.error ? { error: execution.error } : {}),
    ...(execution.queryId ? { query_id: execution.queryId } : {}),
    submitted_at: execution.submittedAt,
    ...(execution.startedAt ? { started_at: execution.startedAt } : {}),
    ...(execution.endedAt ? { ended_at: execution.endedAt } : {}),
    ...(execution.cancelledAt ? { cancelled_at: execution.cancelledAt } : {}),
    ...(execution.retryOf ? { retry_of: execution.retryOf } : {}),
    ...(execution.trigger
      ? {
          trigger: {
            type: execution.trigger.type,
            materialized_view: execution.trigger.materializedView,
            cron_expression: execution.trigger.cronExpression,
          },
        }
      : {}),
    ...(execution.onFailure ? { on_failure: execution.onFailure } : {}),
    execution_cost_credits: Math.round(credits * 1000) / 1000,
    node_executions: nodes.map(nodeExecutionOf),
    ...(execution.webhook ? { webhook: webhookOf(execution) } : {}),
  };
}

function webhookOf(execution: PipelineExecution): z.output<typeof pipelineStatusResponse>['webhook'] {
  const delivery = execution.webhookDelivery;
  return {
    url: execution.webhook!.url,
    ...(delivery
      ? {
          delivery: {
            state: delivery.state,
            attempts: delivery.attempts,
            ...(delivery.statusCode !== undefined ? { status_code: delivery.statusCode } : {}),
            ...(delivery.error ? { error: delivery.error } : {}),
            at: delivery.at,
          },
        }
      : {}),
  };
}

function nodeExecutionOf(node: PipelineNodeRun): z.output<typeof nodeExecutionResponse> {
  // Stopped, but its engine time is not charged yet: it reads running until its cost is final.
  const settling = isSettling(node);
  const status = {
    status: settling ? 'running' : node.state,
    execution_id: node.executionId ?? null,
    ...(node.error && !settling ? { error: { type: node.error.type, message: node.error.message } } : {}),
    ...(node.startedAt ? { started_at: node.startedAt } : {}),
    ...(node.executionStartedAt ? { execution_started_at: node.executionStartedAt } : {}),
    ...(node.state === 'running' && !node.executionStartedAt ? { queued: true as const } : {}),
    ...(node.endedAt && !settling ? { ended_at: node.endedAt } : {}),
    execution_cost_credits: node.credits ?? 0,
    ...(node.reusedFrom ? { reused_from: node.reusedFrom } : {}),
    ...(node.sharedRefresh ? { shared_refresh: true as const } : {}),
  };
  return node.kind === 'materialized_view_refresh'
    ? {
        id: node.nodeId,
        dependencies: node.dependencies,
        materialized_view_refresh_status: { name: node.materializedViewName ?? '', ...status },
      }
    : {
        id: node.nodeId,
        dependencies: node.dependencies,
        query_execution_status: { query_id: node.queryId, ...status },
      };
}

export const cancelledPipelineResponse = z.object({ success: z.boolean() });
