import type { ExecutionError } from '../core/executions';

/**
 * What an agent should do after an execution failed, by failure type: only SQL errors are the
 * query's fault; an engine outage or a cancel must not send the agent off rewriting correct SQL.
 */
export function failureHint(type: ExecutionError['type']): string {
  switch (type) {
    case 'syntax_error':
    case 'execution_error':
      return 'The query failed; fix the SQL with updateServiceQuery and run it again with executeQueryById.';
    case 'permission_denied':
      // Both a table the account may not read and a statement that is not a query end here.
      return 'The query is not allowed: only read-only queries run here (SELECT, WITH ... SELECT, VALUES; no DDL, INSERT or other writes), over tables this account may read (find them with searchTables). Change the SQL with updateServiceQuery and run it again.';
    case 'timeout':
      return 'The query ran past its tier\'s time limit; make it cheaper (filter on block_time or block_date, select fewer columns, aggregate earlier) or run it again with executeQueryById and performance "large".';
    case 'resource_exhausted':
      return 'The query needed more memory or a larger result than its tier allows; aggregate or LIMIT the result, or run it again with performance "large". If it used to work, retry later.';
    case 'cancelled':
      return 'The execution was cancelled; run it again with executeQueryById if you still need it.';
    case 'engine_unavailable':
    case 'internal_error':
      return 'The query engine was unavailable; this is not a problem with the SQL. Run it again later with executeQueryById.';
  }
}
