import { z } from 'zod';
import { MATERIALIZED_VIEW_NAME } from '../core/materialized-views';
import { performanceSchema } from '../executions/schemas';

export const upsertMaterializedViewBody = z.strictObject({
  name: z
    .string()
    .min(8, 'name must be 8-128 characters')
    .max(128, 'name must be 8-128 characters')
    .regex(
      MATERIALIZED_VIEW_NAME,
      'name must start with result_ and use lower-case letters, digits and underscores (no trailing underscore), e.g. result_daily_volume',
    ),
  query_id: z.number().int().positive(),
  is_private: z.boolean().optional(),
  performance: performanceSchema,
  /** 5-field cron; every 15 minutes at most, weekly at least. */
  cron_expression: z.string().trim().min(9).max(100).optional(),
  expires_at: z.iso
    .datetime({ offset: true, error: 'expires_at must be an RFC 3339 time like 2027-01-01T00:00:00Z' })
    .optional(),
});

export const fullNamePath = z.strictObject({
  full_name: z
    .string()
    .regex(/^[a-z0-9_]+\.[a-z0-9_]+\.result_[a-z0-9_]+$/, 'full_name looks like mv.<owner>.result_<name>'),
});

export const refreshBody = z.strictObject({ performance: performanceSchema });

export const listMaterializedViewsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
