import { describe, expect, it } from 'vitest';
import type { ExecutionError } from '../../functions/core/executions';
import { failureHint } from '../../functions/mcp/failure-hints';

const SQL_FAULTS: ExecutionError['type'][] = ['syntax_error', 'execution_error', 'permission_denied'];
const NOT_SQL_FAULTS: ExecutionError['type'][] = [
  'engine_unavailable',
  'internal_error',
  'cancelled',
  'timeout',
  'resource_exhausted',
];

describe('getExecutionResults hints after a failure', () => {
  it('sends the agent to fix the SQL only when the SQL is at fault', () => {
    for (const type of SQL_FAULTS) expect(failureHint(type), type).toMatch(/updateServiceQuery/);
    for (const type of NOT_SQL_FAULTS) expect(failureHint(type), type).not.toMatch(/fix the SQL/);
  });

  it('reads an engine outage as one: retry later, the SQL is fine', () => {
    for (const type of ['engine_unavailable', 'internal_error'] as const) {
      expect(failureHint(type)).toBe(
        'The query engine was unavailable; this is not a problem with the SQL. Run it again later with executeQueryById.',
      );
    }
  });

  it('points a query past its limits at a cheaper query or the large tier', () => {
    expect(failureHint('timeout')).toMatch(/performance "large"/);
    expect(failureHint('resource_exhausted')).toMatch(/performance "large"/);
  });

  it('reads permission_denied as either a table the account may not read or a statement that is not a query', () => {
    // A DROP or INSERT fails permission_denied too: the hint must not only talk about tables.
    expect(failureHint('permission_denied')).toMatch(/only read-only queries run here/);
    expect(failureHint('permission_denied')).toMatch(/searchTables/);
  });
});
