import { z } from 'zod';
import { PERFORMANCE_TIERS } from '../core/engine';
import { EXECUTION_ERROR_TYPES, EXECUTION_STATES, type Execution, isTerminal } from '../core/executions';
import { duneSqlTypeName } from '../core/sql-types';
import type { Usage } from './usage';
import type { SubmittedExecution } from './use-cases';

// REST answers (Dune's field names). The schemas document them in the OpenAPI document and type the
// functions that build them.

export const submittedExecutionResponse = z.object({
  execution_id: z.string(),
  state: z.enum(EXECUTION_STATES),
});

export function submittedExecutionOf(
  submitted: SubmittedExecution,
): z.output<typeof submittedExecutionResponse> {
  return { execution_id: submitted.executionId, state: submitted.state };
}

export const resultMetadataResponse = z.object({
  column_names: z.array(z.string()),
  column_types: z.array(z.string()).describe('DuneSQL type names, one per column.'),
  row_count: z.number().int().describe('Rows in this answer.'),
  result_set_bytes: z.number().int().describe("The whole result's size."),
  total_row_count: z.number().int(),
  datapoint_count: z.number().int(),
  pending_time_millis: z.number().int(),
  execution_time_millis: z.number().int(),
});

export const executionStatusResponse = z.object({
  execution_id: z.string(),
  query_id: z.number().int().describe('0 for ad-hoc SQL.'),
  state: z.enum(EXECUTION_STATES),
  is_execution_finished: z.boolean(),
  submitted_at: z.string(),
  expires_at: z.string(),
  execution_started_at: z.string().optional(),
  execution_ended_at: z.string().optional(),
  cancelled_at: z.string().optional(),
  execution_cost_credits: z.number(),
  performance: z.enum(PERFORMANCE_TIERS),
  queue_position: z.number().int().optional().describe('1-based, while pending.'),
  max_inflight_interactive_executions: z.number().int(),
  result_metadata: resultMetadataResponse.optional(),
  error: z
    .object({
      type: z.enum(EXECUTION_ERROR_TYPES),
      message: z.string(),
      metadata: z.object({ line: z.number().int(), column: z.number().int() }).optional(),
    })
    .optional(),
});

/** A results page: the status, and once completed the rows with their metadata and paging links. */
export const executionResultsResponse = executionStatusResponse.extend({
  result: z
    .object({
      rows: z.array(z.record(z.string(), z.unknown())),
      metadata: resultMetadataResponse,
    })
    .optional(),
  next_offset: z.number().int().optional(),
  next_uri: z.string().optional(),
});

export const cancelExecutionResponse = z.object({ success: z.boolean() });

export const usageResponse = z.object({
  private_queries: z.number().int(),
  private_dashboards: z.number().int(),
  bytes_used: z.number().int(),
  bytes_allowed: z.number().int(),
  billing_periods: z.array(
    z.object({
      start_date: z.string(),
      end_date: z.string(),
      credits_used: z.number(),
      credits_included: z.number(),
    }),
  ),
});

export function usageResponseOf(usage: Usage): z.output<typeof usageResponse> {
  return {
    private_queries: usage.privateQueries,
    private_dashboards: 0,
    bytes_used: usage.bytesUsed,
    bytes_allowed: usage.bytesAllowed,
    billing_periods: usage.billingPeriods.map((period) => ({
      start_date: period.startDate,
      end_date: period.endDate,
      credits_used: period.creditsUsed,
      credits_included: period.creditsIncluded,
    })),
  };
}

/** `GET /v1/execution/{id}/status` (and the status part of results responses). */
export function executionStatus(
  execution: Execution,
  extra: { queuePosition?: number; maxInflight: number },
): z.output<typeof executionStatusResponse> {
  const completed = execution.state === 'QUERY_STATE_COMPLETED';
  return {
    execution_id: execution.executionId,
    query_id: execution.queryId,
    state: execution.state,
    is_execution_finished: isTerminal(execution.state),
    submitted_at: execution.submittedAt,
    expires_at: execution.expiresAt,
    ...(execution.executionStartedAt ? { execution_started_at: execution.executionStartedAt } : {}),
    ...(execution.executionEndedAt ? { execution_ended_at: execution.executionEndedAt } : {}),
    ...(execution.state === 'QUERY_STATE_CANCELLED' && execution.cancelledAt
      ? { cancelled_at: execution.cancelledAt }
      : {}),
    execution_cost_credits: execution.credits ?? 0,
    performance: execution.tier,
    ...(extra.queuePosition !== undefined ? { queue_position: extra.queuePosition } : {}),
    max_inflight_interactive_executions: extra.maxInflight,
    ...(completed && execution.result ? { result_metadata: resultMetadata(execution) } : {}),
    ...(execution.error ? { error: execution.error } : {}),
  };
}

/** Whole-result metadata; a results page overrides the per-page numbers. */
export function resultMetadata(execution: Execution): z.output<typeof resultMetadataResponse> {
  const result = execution.result!;
  return {
    column_names: result.columns.map((c) => c.name),
    column_types: result.columns.map((c) => duneSqlTypeName(c.type)),
    row_count: result.rowCount,
    result_set_bytes: result.resultBytes,
    total_row_count: result.rowCount,
    datapoint_count: result.rowCount * result.columns.length,
    pending_time_millis: millisBetween(execution.submittedAt, execution.executionStartedAt),
    execution_time_millis: millisBetween(execution.executionStartedAt, execution.executionEndedAt),
  };
}

function millisBetween(from?: string, to?: string): number {
  return from && to ? Math.max(0, Date.parse(to) - Date.parse(from)) : 0;
}
