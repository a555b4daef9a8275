import type { z } from 'zod';
import { BadRequestError } from '../core/errors';
import type { PipelineGraph } from '../core/pipeline-graph';
import { queryParametersSchema } from '../executions/schemas';
import { routeHandler } from '../http/route-handler';
import { queryIdPath } from '../queries/schemas';
import {
  executePipelineBody,
  executeQueryPipelineBody,
  type PipelineNodeBody,
  pipelineExecutionPath,
  pipelineQuery,
} from './schemas';
import * as pipelines from './use-cases';

export const getQueryPipeline = routeHandler(
  { path: queryIdPath, query: pipelineQuery },
  ({ services, account, path, query }) =>
    pipelines.pipelineDefinition(services, account, path.query_id, {
      tier: query.performance === 'large' ? 'large' : 'medium',
      parameters: parseParameters(query.query_parameters),
    }),
);

export const executeQueryPipeline = routeHandler(
  { path: queryIdPath, body: executeQueryPipelineBody },
  ({ services, account, path, body }) =>
    pipelines.executeQueryPipeline(services, account, path.query_id, {
      tier: body.performance,
      parameters: body.query_parameters,
    }),
);

export const executePipeline = routeHandler({ body: executePipelineBody }, ({ services, account, body }) =>
  body.pipeline
    ? pipelines.startPipeline(services, account, toGraph(body.pipeline.nodes))
    : pipelines.executeQueryPipeline(services, account, body.query_id!, {
        tier: body.performance,
        parameters: body.query_parameters,
      }),
);

export const getPipelineExecutionStatus = routeHandler(
  { path: pipelineExecutionPath },
  ({ services, account, path }) => pipelines.pipelineStatus(services, account, path.pipeline_execution_id),
);

export const cancelPipelineExecution = routeHandler(
  { path: pipelineExecutionPath },
  ({ services, account, path }) => pipelines.cancelPipeline(services, account, path.pipeline_execution_id),
);

export const retryPipelineExecution = routeHandler(
  { path: pipelineExecutionPath },
  ({ services, account, path }) => pipelines.retryPipeline(services, account, path.pipeline_execution_id),
);

function toGraph(nodes: PipelineNodeBody[]): PipelineGraph {
  return {
    nodes: nodes.map((node) => ({
      id: node.id,
      dependencies: node.dependencies,
      ...(node.query_execution
        ? {
            queryExecution: {
              queryId: node.query_execution.query_id,
              performance: node.query_execution.performance,
              ...(node.query_execution.query_parameters
                ? { queryParameters: node.query_execution.query_parameters }
                : {}),
            },
          }
        : {}),
      ...(node.materialized_view_refresh
        ? {
            materializedViewRefresh: {
              name: node.materialized_view_refresh.name,
              performance: node.materialized_view_refresh.performance,
            },
          }
        : {}),
    })),
  };
}

function parseParameters(text: string | undefined): z.output<typeof queryParametersSchema> | undefined {
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadRequestError(
      'query.query_parameters must be a URL-encoded JSON object, e.g. {"chain":"base"}',
    );
  }
  const result = queryParametersSchema.safeParse(parsed);
  if (!result.success)
    throw new BadRequestError('query.query_parameters must be a JSON object of parameter values');
  return result.data;
}
