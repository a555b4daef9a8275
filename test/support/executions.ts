import { expect } from 'vitest';
import type { Execution } from '../../functions/core/executions';
import { newId } from '../../functions/core/ids';
import { bodyOf, type Json, type TestHost } from './test-host';

export { RUNAWAY_SQL } from './runaway-sql';

export async function submitSql(
  host: TestHost,
  sql: string,
  extra: Record<string, unknown> = {},
  apiKey?: string,
) {
  const response = await host.call('/v1/sql/execute', {
    json: { sql, ...extra },
    ...(apiKey ? { apiKey } : {}),
  });
  expect(response.status).toBe(200);
  const body = await bodyOf(response);
  expect(body.state).toBe('QUERY_STATE_PENDING');
  return body.execution_id as string;
}

/**
 * Polls the status endpoint until the predicate holds (or fails the test after `timeoutMs`). Each
 * read answers at once (max_wait_ms=0): the predicate may want a state on the way, not the end.
 */
export async function waitForStatus(
  host: TestHost,
  executionId: string,
  until: (status: Json) => boolean,
  timeoutMs = 20_000,
  apiKey?: string,
  maxWaitMs = 0,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await bodyOf(
      await host.call(
        `/v1/execution/${executionId}/status?max_wait_ms=${maxWaitMs}`,
        apiKey ? { apiKey } : {},
      ),
    );
    if (until(status)) return status;
    if (Date.now() > deadline) throw new Error(`status never matched: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Status reads held until the execution ends (a second at a time), as clients read it. */
export function waitUntilFinished(host: TestHost, executionId: string, timeoutMs?: number, apiKey?: string) {
  return waitForStatus(
    host,
    executionId,
    (status) => status.is_execution_finished === true,
    timeoutMs,
    apiKey,
    1_000,
  );
}

/**
 * Writes an execution record straight to the store, as a workflow (live or dead) leaves it:
 * PENDING, submitted at `submittedAt`, with `changes` on top.
 */
export async function storeExecution(
  host: TestHost,
  submittedAt: Date = new Date(),
  changes: Partial<Execution> = {},
): Promise<Execution> {
  const execution: Execution = {
    executionId: newId(submittedAt.getTime()),
    accountId: host.accountId,
    queryId: 0,
    sql: 'select 1',
    tier: 'medium',
    timeoutMs: 60_000,
    state: 'QUERY_STATE_PENDING',
    submittedAt: submittedAt.toISOString(),
    expiresAt: new Date(submittedAt.getTime() + 86_400_000).toISOString(),
    ...changes,
  };
  await host.services.executions.create(execution);
  return execution;
}
