import { z } from 'zod';
import { MATERIALIZED_VIEW_NAME } from '../core/materialized-views';
import { performanceSchema, queryParametersSchema } from '../executions/schemas';

const nodeSchema = z.strictObject({
  id: z.number().int('node ids are integers'),
  dependencies: z.array(z.number().int()).max(300).default([]),
  query_execution: z
    .strictObject({
      query_id: z.number().int().positive(),
      performance: performanceSchema,
      query_parameters: queryParametersSchema.optional(),
    })
    .optional(),
  materialized_view_refresh: z
    .strictObject({
      name: z
        .string()
        .regex(
          /^[a-z0-9_]+\.[a-z0-9_]+\.result_[a-z0-9_]+$/,
          'materialized_view_refresh.name is a full name: mv.<owner>.result_<name>',
        )
        .refine(
          (name) => MATERIALIZED_VIEW_NAME.test(name.split('.')[2] ?? ''),
          'not a materialized view name',
        ),
      performance: performanceSchema,
    })
    .optional(),
});
export type PipelineNodeBody = z.output<typeof nodeSchema>;

/** Both documented forms: `{query_id, ...}` builds from lineage; `{pipeline: {nodes}}` runs that graph. */
export const executePipelineBody = z
  .strictObject({
    query_id: z.number().int().positive().optional(),
    performance: performanceSchema,
    query_parameters: queryParametersSchema.optional(),
    pipeline: z
      .strictObject({ nodes: z.array(nodeSchema).min(1, 'pipeline.nodes needs at least one node').max(300) })
      .optional(),
  })
  .refine((body) => (body.query_id === undefined) !== (body.pipeline === undefined), {
    message:
      'send either query_id (to build the pipeline from the query lineage) or pipeline.nodes (an explicit graph), not both',
  });

export const executeQueryPipelineBody = z.strictObject({
  performance: performanceSchema,
  query_parameters: queryParametersSchema.optional(),
});

export const pipelineQuery = z.strictObject({
  performance: z.enum(['medium', 'large', 'small', 'free']).optional(),
  query_parameters: z.string().optional(),
});

export const pipelineExecutionPath = z.strictObject({
  pipeline_execution_id: z
    .string()
    .regex(/^[0-9A-HJKMNP-TV-Z]{26}$/i, 'pipeline_execution_id must be a 26-character ULID')
    .transform((id) => id.toUpperCase()),
});
