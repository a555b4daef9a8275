import { z } from 'zod';
import { PERFORMANCE_TIERS, type PerformanceTier } from '../core/engine';
import type { ParameterOverrides } from '../core/parameters';
import { MAX_PIPELINE_NODES, type PipelineGraph, type PipelineNode } from '../core/pipeline-graph';
import {
  executionIdSchema,
  maxWaitMs,
  performanceSchema,
  queryParametersSchema,
  queryParametersTextSchema,
} from '../executions/schemas';
import { materializedViewFullNameSchema } from '../matviews/schemas';
import { queryIdSchema } from '../queries/schemas';

// The pipeline operations. The REST body (snake_case, Dune's node shape) is transformed into the
// domain's PipelineGraph here; field rules come from the queries', executions' and views' schemas,
// and the graph's structure (ids, dependencies, cycles) is checked by validatePipelineGraph
// (core/pipeline-graph.ts) for every graph, however it was built.

/** A tier a request may leave out (then another rule decides); `small` and `free` run as medium. */
const optionalPerformanceSchema = z
  .enum([...PERFORMANCE_TIERS, 'small', 'free'])
  .optional()
  .transform((tier): PerformanceTier | undefined =>
    tier === undefined ? undefined : tier === 'large' ? 'large' : 'medium',
  );

const nodePerformanceSchema = optionalPerformanceSchema.describe(
  "This node's tier; default: the request's top-level performance, else medium.",
);

/**
 * Dune's node: `{id, dependencies, query_execution: {query_id, ...} | materialized_view_refresh: {name, ...}}`,
 * its tier left open (the request's top-level `performance` is the default).
 */
const nodeBody = z.strictObject({
  id: z.number().int('node ids are integers'),
  dependencies: z.array(z.number().int()).max(MAX_PIPELINE_NODES).default([]),
  query_execution: z
    .strictObject({
      query_id: queryIdSchema,
      performance: nodePerformanceSchema,
      query_parameters: queryParametersSchema.optional(),
    })
    .optional(),
  materialized_view_refresh: z
    .strictObject({ name: materializedViewFullNameSchema, performance: nodePerformanceSchema })
    .optional(),
});

/** The domain's node, on its own tier or else on `tier`. */
function pipelineNodeOf(node: z.output<typeof nodeBody>, tier: PerformanceTier): PipelineNode {
  const query = node.query_execution;
  const view = node.materialized_view_refresh;
  return {
    id: node.id,
    dependencies: node.dependencies,
    ...(query
      ? {
          queryExecution: {
            queryId: query.query_id,
            performance: query.performance ?? tier,
            ...(query.query_parameters ? { queryParameters: query.query_parameters } : {}),
          },
        }
      : {}),
    ...(view ? { materializedViewRefresh: { name: view.name, performance: view.performance ?? tier } } : {}),
  };
}

/** Checked against the host's policy when the run starts (core/webhooks.ts). */
const webhookUrlSchema = z
  .string()
  .optional()
  .describe(
    'Where to POST the final status (completed, failed or cancelled), signed with a JWT in the X-Service-Webhook-Token header. https only in AWS.',
  );

const onFailureSchema = z
  .enum(['continue', 'stop'])
  .optional()
  .describe(
    'continue (default): a failed node skips what depends on it and unrelated branches run on. stop: the first failed node stops every other node (fail fast).',
  );

/** Both documented forms: `{query_id, ...}` builds from lineage; `{pipeline: {nodes}}` runs that graph. */
export const executePipelineBody = z
  .strictObject({
    query_id: queryIdSchema.optional(),
    performance: optionalPerformanceSchema.describe(
      'The tier of every node (default medium); with pipeline.nodes, of the nodes that do not set their own.',
    ),
    query_parameters: queryParametersSchema
      .optional()
      .describe(
        "The query's parameter values, with query_id. With pipeline.nodes they go on each query_execution node.",
      ),
    webhook_url: webhookUrlSchema,
    on_failure: onFailureSchema,
    pipeline: z
      .strictObject({
        nodes: z.array(nodeBody).min(1, 'pipeline.nodes needs at least one node').max(MAX_PIPELINE_NODES),
      })
      .optional(),
  })
  .superRefine((body, ctx) => {
    const both = body.query_id !== undefined && body.pipeline !== undefined;
    if (body.query_id === undefined && body.pipeline === undefined) {
      ctx.addIssue({
        code: 'custom',
        message:
          'send query_id (to build the pipeline from the query lineage) or pipeline.nodes (an explicit graph), e.g. {"query_id": 1234}',
      });
    } else if (both) {
      ctx.addIssue({
        code: 'custom',
        message:
          'send either query_id (to build the pipeline from the query lineage) or pipeline.nodes (an explicit graph), not both',
      });
    }
    if (body.pipeline !== undefined && !both && body.query_parameters !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['query_parameters'],
        message:
          'with pipeline.nodes, parameter values go on each query_execution node ({"query_execution": {"query_id": …, "query_parameters": {…}}}); a top-level query_parameters goes with query_id',
      });
    }
  })
  .transform(
    (body): PipelineRequest =>
      body.pipeline
        ? {
            kind: 'graph',
            graph: {
              nodes: body.pipeline.nodes.map((node) => pipelineNodeOf(node, body.performance ?? 'medium')),
            },
            webhookUrl: body.webhook_url,
            onFailure: body.on_failure,
          }
        : {
            kind: 'lineage',
            queryId: body.query_id!,
            options: { tier: body.performance ?? 'medium', parameters: body.query_parameters },
            webhookUrl: body.webhook_url,
            onFailure: body.on_failure,
          },
  );

/** What to run: an explicit graph, or the lineage of a query with its tier and parameter values. */
export type PipelineRequest = { webhookUrl?: string; onFailure?: 'continue' | 'stop' } & (
  | { kind: 'graph'; graph: PipelineGraph }
  | { kind: 'lineage'; queryId: number; options: LineageOptions }
);

/** How a query's lineage runs: its tier and parameter values. */
interface LineageOptions {
  tier: PerformanceTier;
  parameters?: ParameterOverrides;
}

export const executeQueryPipelineBody = z
  .strictObject({
    performance: performanceSchema,
    query_parameters: queryParametersSchema.optional(),
    webhook_url: webhookUrlSchema,
    on_failure: onFailureSchema,
  })
  .transform((body): LineageOptions & { webhookUrl?: string; onFailure?: 'continue' | 'stop' } => ({
    tier: body.performance,
    parameters: body.query_parameters,
    webhookUrl: body.webhook_url,
    onFailure: body.on_failure,
  }));

/** `params.<name>=<value>` entries, gathered into one object by the route handler, as on execute. */
const paramsFromQueryString = z
  .record(z.string(), z.string())
  .optional()
  .describe("Parameter values as params.<name>=<value>, one per parameter (the Dune SDKs' form).");

/**
 * The same inputs in the query string (`GET /v1/query/{id}/pipeline`, and
 * `POST /v1/query/{id}/pipeline/execute` as `POST /v1/query/{id}/execute` takes them):
 * `query_parameters` as JSON text, or one `params.<name>=<value>` per parameter.
 */
export const pipelineQuery = z
  .strictObject({
    performance: z.enum([...PERFORMANCE_TIERS, 'small', 'free']).optional(),
    query_parameters: queryParametersTextSchema.optional(),
    params: paramsFromQueryString,
  })
  .transform((query): LineageOptions & { tierGiven: boolean } => ({
    tier: query.performance === 'large' ? 'large' : 'medium',
    tierGiven: query.performance !== undefined,
    ...(query.query_parameters || query.params
      ? { parameters: { ...query.query_parameters, ...query.params } }
      : {}),
  }));

export const pipelineExecutionPath = z.strictObject({ pipeline_execution_id: executionIdSchema });

/** What a retry may change; the rest (the graph, the completed nodes it reuses) is the run's. */
export interface RetryOptions {
  /** The tier the rerun nodes run on, instead of each one's tier in the run retried. */
  tier?: PerformanceTier;
  webhookUrl?: string;
  onFailure?: 'continue' | 'stop';
}

/** `POST /v1/pipelines/executions/{id}/retry`: every field optional; unknown ones are a 400. */
export const retryPipelineBody = z
  .strictObject({
    performance: optionalPerformanceSchema.describe(
      "The tier the rerun nodes run on (e.g. large for a node that ran out of time or memory); default: each node's tier in the run retried. Reused nodes are not run.",
    ),
    on_failure: z
      .enum(['continue', 'stop'])
      .optional()
      .describe("continue or stop, as on execute; default: the retried run's."),
    webhook_url: z
      .string()
      .optional()
      .describe(
        "Where to POST the retry's final status, signed as on execute; default: the retried run's webhook_url, if it had one.",
      ),
  })
  .transform(
    (body): RetryOptions => ({
      ...(body.performance ? { tier: body.performance } : {}),
      ...(body.webhook_url !== undefined ? { webhookUrl: body.webhook_url } : {}),
      ...(body.on_failure ? { onFailure: body.on_failure } : {}),
    }),
  );

/** The retry's tier may come in the query string too, as on execute (`?performance=large`). */
export const retryPipelineQuery = z.strictObject({ performance: optionalPerformanceSchema });

export const pipelineStatusQuery = z.strictObject({ max_wait_ms: maxWaitMs('pipeline run') });
