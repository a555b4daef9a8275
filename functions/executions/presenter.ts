import type { Execution } from '../core/executions';
import { isTerminal } from '../core/executions';
import { duneSqlTypeName } from '../core/sql-types';

/** `GET /v1/execution/{id}/status` (and the status part of results responses). */
export function executionStatus(
  execution: Execution,
  extra: { queuePosition?: number; maxInflight: number },
) {
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
export function resultMetadata(execution: Execution) {
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
