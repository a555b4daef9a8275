import { z } from 'zod';
import { MATERIALIZED_VIEW_NAME, type MaterializedViewSpec } from '../core/materialized-views';
import { performanceSchema, tierSchema } from '../executions/schemas';
import { queryIdSchema } from '../queries/schemas';

// The materialized-view operations. Each field's rules and limits live here once; the REST bodies
// below (snake_case, Dune's names) are renamings over this schema.

/** createOrUpdate's input. */
export const materializedViewSpecSchema = z.strictObject({
  name: z
    .string()
    .min(8, 'name must be 8-128 characters')
    .max(128, 'name must be 8-128 characters')
    .regex(
      MATERIALIZED_VIEW_NAME,
      'name must start with result_ and use lower-case letters, digits and underscores (no trailing underscore), e.g. result_daily_volume',
    ),
  queryId: queryIdSchema,
  isPrivate: z.boolean().optional(),
  tier: tierSchema,
  /**
   * 5-field cron; its fields, every 15 minutes at most and weekly at least, are checked by the use
   * case (core/cron.ts), whose message shows the form (no length rule here to answer first).
   */
  cronExpression: z.string().trim().max(100).optional(),
  expiresAt: z.iso
    .datetime({ offset: true, error: 'expires_at must be an RFC 3339 time like 2027-01-01T00:00:00Z' })
    .optional(),
}) satisfies z.ZodType<MaterializedViewSpec>;

const spec = materializedViewSpecSchema.shape;

export const upsertMaterializedViewBody = z
  .strictObject({
    name: spec.name,
    query_id: spec.queryId,
    is_private: spec.isPrivate,
    performance: performanceSchema,
    cron_expression: spec.cronExpression,
    expires_at: spec.expiresAt.describe(
      'When scheduled refreshes stop: none fires at or after it. Needs cron_expression.',
    ),
    webhook_url: z
      .string()
      .optional()
      .describe(
        'Where each scheduled refresh (a pipeline run) posts how it ended, signed as pipeline webhooks are; needs cron_expression.',
      ),
  })
  .transform((body): MaterializedViewSpec & { webhookUrl?: string } => ({
    name: body.name,
    queryId: body.query_id,
    isPrivate: body.is_private,
    tier: body.performance,
    cronExpression: body.cron_expression,
    expiresAt: body.expires_at,
    webhookUrl: body.webhook_url,
  }));

/**
 * `mv.<owner>.result_<name>`, with one message for what is wrong. Another catalog (Dune's
 * `dune.<team>.result_<name>`) passes: the use case answers 404 with the name it has here.
 */
export const materializedViewFullNameSchema = z.string().superRefine((name, context) => {
  const problem = fullNameProblem(name);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

function fullNameProblem(name: string): string | undefined {
  if (MATERIALIZED_VIEW_NAME.test(name)) {
    return `must be a full name, mv.<owner>.${name}: ${name} alone is the short name the upsert takes`;
  }
  if (!/^[a-z0-9_]+\.[a-z0-9_]+\.result_[a-z0-9_]+$/.test(name)) {
    return 'must be a full name: mv.<owner>.result_<name>, in lower case';
  }
  const short = name.split('.')[2]!;
  if (!MATERIALIZED_VIEW_NAME.test(short)) return `${short} is not a view name: it must not end with _`;
  if (short.length > 128) {
    return `the view name ${short.slice(0, 24)}… is ${short.length} characters; view names are 8-128 characters`;
  }
  return undefined;
}

export const fullNamePath = z.strictObject({ full_name: materializedViewFullNameSchema });

export const refreshBody = z.strictObject({ performance: performanceSchema });

export const listMaterializedViewsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
