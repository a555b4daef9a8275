import { routeHandler } from '../http/route-handler';
import { webhookTargetOf } from '../http/webhook-target';
import { queryIdPath } from '../queries/schemas';
import {
  cancelledPipelineResponse,
  pipelineDefinitionResponse,
  pipelineDefinitionResponseOf,
  pipelineStatusResponse,
  pipelineStatusResponseOf,
  retriedPipelineResponse,
  retriedPipelineResponseOf,
  startedPipelineResponse,
  startedPipelineResponseOf,
} from './presenter';
import {
  executePipelineBody,
  executeQueryPipelineBody,
  pipelineExecutionPath,
  pipelineQuery,
  pipelineStatusQuery,
  retryPipelineBody,
  retryPipelineQuery,
} from './schemas';
import * as pipelines from './use-cases';

/** Running a pipeline costs credits (402 past the limit); a node the caller may not run is 403. */
const RUN_ERRORS = [402, 403] as const;

export const getQueryPipeline = routeHandler(
  {
    path: queryIdPath,
    query: pipelineQuery,
    docs: {
      summary: "A query's pipeline: the views in its lineage, in order, with the data they would scan",
      response: pipelineDefinitionResponse,
    },
  },
  async ({ services, account, path, query }) =>
    pipelineDefinitionResponseOf(await pipelines.pipelineDefinition(services, account, path.query_id, query)),
);

export const executeQueryPipeline = routeHandler(
  {
    idempotent: true,
    path: queryIdPath,
    body: executeQueryPipelineBody,
    query: pipelineQuery,
    docs: { summary: "Run a query's pipeline", response: startedPipelineResponse, errors: RUN_ERRORS },
  },
  async ({ services, account, path, body, query, event }) =>
    startedPipelineResponseOf(
      await pipelines.executeQueryPipeline(services, account, path.query_id, {
        ...body,
        // As on POST /v1/query/{id}/execute: the query string's tier and values, the body's first.
        tier: query.tier === 'large' ? 'large' : body.tier,
        ...(query.parameters || body.parameters
          ? { parameters: { ...query.parameters, ...body.parameters } }
          : {}),
        webhook: webhookTargetOf(body.webhookUrl, event),
      }),
    ),
);

export const executePipeline = routeHandler(
  {
    idempotent: true,
    body: executePipelineBody,
    docs: {
      summary: "Run a query's pipeline, or an explicit graph of query executions and view refreshes",
      response: startedPipelineResponse,
      errors: RUN_ERRORS,
    },
  },
  async ({ services, account, body, event }) => {
    const run = { webhook: webhookTargetOf(body.webhookUrl, event), onFailure: body.onFailure };
    return startedPipelineResponseOf(
      body.kind === 'graph'
        ? await pipelines.startPipeline(services, account, body.graph, run)
        : await pipelines.executeQueryPipeline(services, account, body.queryId, { ...body.options, ...run }),
    );
  },
);

export const getPipelineExecutionStatus = routeHandler(
  {
    path: pipelineExecutionPath,
    query: pipelineStatusQuery,
    docs: {
      summary:
        "A pipeline execution's status and each node's; an unfinished run is answered when it ends, or after max_wait_ms",
      response: pipelineStatusResponse,
    },
  },
  async ({ services, account, path, query }) =>
    pipelineStatusResponseOf(
      await pipelines.pipelineStatus(services, account, path.pipeline_execution_id, query.max_wait_ms),
    ),
);

export const cancelPipelineExecution = routeHandler(
  {
    rateClass: 'read', // as an execution's cancel
    path: pipelineExecutionPath,
    docs: { summary: 'Cancel a pipeline execution', response: cancelledPipelineResponse, errors: [409] },
  },
  async ({ services, account, path }) => {
    await pipelines.cancelPipeline(services, account, path.pipeline_execution_id);
    return { success: true };
  },
);

export const retryPipelineExecution = routeHandler(
  {
    idempotent: true,
    path: pipelineExecutionPath,
    body: retryPipelineBody,
    query: retryPipelineQuery,
    docs: {
      summary:
        'Rerun the nodes of a finished pipeline execution that did not complete, optionally on another tier, with another on_failure or webhook_url',
      response: retriedPipelineResponse,
      errors: [...RUN_ERRORS, 409],
    },
  },
  async ({ services, account, path, body, query, event }) => {
    const tier = body.tier ?? query.performance;
    return retriedPipelineResponseOf(
      await pipelines.retryPipeline(services, account, path.pipeline_execution_id, {
        ...(tier ? { tier } : {}),
        ...(body.onFailure ? { onFailure: body.onFailure } : {}),
        ...(body.webhookUrl !== undefined ? { webhook: webhookTargetOf(body.webhookUrl, event) } : {}),
      }),
    );
  },
);
