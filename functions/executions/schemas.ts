import { z } from 'zod';
import { PERFORMANCE_TIERS } from '../core/engine';

/** medium | large; `small` and `free` (seen in Dune clients) run as medium. */
export const performanceSchema = z
  .enum([...PERFORMANCE_TIERS, 'small', 'free'])
  .default('medium')
  .transform((tier) => (tier === 'large' ? 'large' : 'medium') as 'medium' | 'large');

const parameterValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.string()), z.null()]);
export const queryParametersSchema = z.record(z.string(), parameterValue);

export const executeQueryBody = z.strictObject({
  performance: performanceSchema,
  query_parameters: queryParametersSchema.optional(),
});

/** The same inputs may come in the query string (the spec's form); query_parameters as JSON text. */
export const executeQueryQuery = z.strictObject({
  performance: z.enum([...PERFORMANCE_TIERS, 'small', 'free']).optional(),
  query_parameters: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'query_parameters must be a URL-encoded JSON object' });
        return z.NEVER;
      }
    })
    .pipe(queryParametersSchema)
    .optional(),
});

export const executeSqlBody = z.strictObject({
  sql: z.string().trim().min(1, 'sql must not be empty').max(100_000),
  performance: performanceSchema,
  /** Accepted for compatibility (the Go SDK sends it); ad-hoc SQL has no declared parameters. */
  query_parameters: queryParametersSchema.optional(),
});

export const executionIdPath = z.strictObject({
  execution_id: z
    .string()
    .regex(
      /^[0-9A-HJKMNP-TV-Z]{26}$/i,
      'execution_id must be a 26-character ULID such as 01HKZJ2683PHF9Q9PHHQ8FW4Q1',
    )
    .transform((id) => id.toUpperCase()),
});

const flag = z.enum(['true', 'false']).transform((value) => value === 'true');

export const resultsQuery = z
  .strictObject({
    limit: z.coerce.number().int().min(1).optional(),
    offset: z.coerce.number().int().min(0).optional(),
    columns: z.string().max(10_000).optional(),
    filters: z.string().max(4000).optional(),
    sort_by: z.string().max(2000).optional(),
    sample_count: z.coerce.number().int().min(1).max(1_000_000).optional(),
    allow_partial_results: flag.optional(),
    ignore_max_datapoints_per_request: flag.optional(),
    ignore_max_credits_per_request: flag.optional(),
  })
  .refine(
    (q) =>
      q.sample_count === undefined ||
      (q.limit === undefined && q.offset === undefined && q.filters === undefined),
    {
      message: 'sample_count cannot be combined with limit, offset or filters',
    },
  );
export type ResultsQuery = z.output<typeof resultsQuery>;

export const usageBody = z
  .strictObject({
    start_date: z.iso.date('start_date must be a date like 2026-11-01').optional(),
    end_date: z.iso.date('end_date must be a date like 2026-11-30').optional(),
  })
  .refine((b) => !b.start_date || !b.end_date || b.start_date <= b.end_date, {
    message: 'start_date must not be after end_date',
  });
