import { isTerminal } from '../core/executions';
import { pipelineRunnerInput } from '../core/pipeline-workflow';
import type { QueryProgress, RunnerInput, SlotResult } from '../core/workflows';
import { checkQuery, recordWorkflowFailure, submitQuery } from '../executions/query-run';
import { readableRelations } from '../matviews/relations';
import { finishNode, runPipelineStep, startNode } from '../pipelines/node-steps';
import { refreshViewWithUpstream } from '../pipelines/use-cases';
import type { Services } from '../services';

/**
 * The node runner: what each Task state of a generated workflow does. The runner Lambda calls it
 * in AWS (functions/runner/handler.ts); the local host binds it to the Task states by name. It
 * owns dispatch and the account's execution slots; running a query (functions/executions/
 * query-run.ts) and the pipeline steps with their dependency gate (functions/pipelines/
 * node-steps.ts) sit below it and never call back up.
 */
export function createNodeRunner(services: Services) {
  return async (raw: RunnerInput | Record<string, unknown>): Promise<unknown> => {
    const pipelineStep = pipelineRunnerInput(raw);
    // Not narrowed to the pipeline actions: the input may be any runner action.
    switch (pipelineStep.action as string) {
      case 'await_dependencies':
      case 'record_node_failure':
      case 'finish_pipeline':
        return runPipelineStep(services, pipelineStep as Parameters<typeof runPipelineStep>[1]);
      case 'run_node':
        return runNode(services, pipelineStep.pipeline_execution_id, Number(pipelineStep.node_id));
    }
    if ((raw as { action?: string }).action === 'scheduled_refresh') {
      // An EventBridge schedule fired: refresh the view through a pipeline (upstream views first).
      const view = await services.materializedViews.get(
        String((raw as { materialized_view?: string }).materialized_view),
      );
      return view ? refreshViewWithUpstream(services, view) : { skipped: 'view no longer exists' };
    }
    const input = raw as RunnerInput;
    switch (input.action) {
      case 'acquire_slot':
        return acquireSlot(services, input.execution_id, Number(input.attempt ?? 0));
      case 'submit_query':
        return submitWithRelations(services, input.execution_id);
      case 'check_query':
        return checkQuery(services, input.execution_id, Number(input.polls ?? 0));
      case 'record_failure':
        return recordWorkflowFailure(
          services,
          input.execution_id,
          String(input.error ?? 'Error'),
          String(input.cause ?? ''),
        );
      default:
        throw new Error(`Unknown runner action "${String((input as { action?: unknown }).action)}".`);
    }
  };
}

/**
 * Takes one of the account's execution slots, oldest queued execution first. Executions already
 * submitted to the engine hold a slot, even while the engine still queues them (PENDING).
 */
export async function acquireSlot(
  services: Services,
  executionId: string,
  attempt: number,
): Promise<SlotResult> {
  const execution = await services.executions.get(executionId);
  const attempts = attempt + 1;
  if (execution?.state !== 'QUERY_STATE_PENDING' || execution.engineRunId)
    return { status: 'finished', attempts };
  if (attempt >= services.config.maxSlotPolls) {
    await services.executions.transition(executionId, ['QUERY_STATE_PENDING'], {
      state: 'QUERY_STATE_FAILED',
      executionEndedAt: new Date().toISOString(),
      error: {
        type: 'resource_exhausted',
        message: `Waited too long for an execution slot (limit ${services.config.maxConcurrentExecutions} running at once per account). Try again when fewer queries run.`,
      },
    });
    return { status: 'finished', attempts };
  }
  const [head] = (await services.executions.listActive(execution.accountId)).filter(
    (e) => e.state === 'QUERY_STATE_PENDING' && !e.engineRunId,
  );
  if (head && head.executionId !== executionId) return { status: 'waiting', attempts };
  const acquired = await services.limiter.tryAcquire(
    execution.accountId,
    services.config.maxConcurrentExecutions,
  );
  return { status: acquired ? 'acquired' : 'waiting', attempts };
}

/** The views an execution's SQL may read, resolved as it is submitted. */
async function submitWithRelations(services: Services, executionId: string): Promise<QueryProgress> {
  const execution = await services.executions.get(executionId);
  const relations = execution ? await readableRelations(services.materializedViews, execution.accountId) : [];
  return submitQuery(services, executionId, relations);
}

/**
 * Runs one pipeline node inside its Run Task: start the node, take a slot, submit and poll its
 * execution with the same steps as the single-query workflow, then end the node.
 */
async function runNode(services: Services, pipelineExecutionId: string, nodeId: number) {
  const started = await startNode(services, pipelineExecutionId, nodeId);
  if (!('executionId' in started)) return started;
  await runExecution(services, started.executionId);
  return finishNode(services, pipelineExecutionId, nodeId, started.executionId);
}

/** Slot, submit, status polls until the execution has ended. */
async function runExecution(services: Services, executionId: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const execution = await services.executions.get(executionId);
    if (!execution) return;
    let progress: QueryProgress;
    if (execution.engineRunId) {
      // Submitted by an earlier invocation of this Task: poll it to its end.
      progress = { status: 'running', polls: 0, wait_seconds: 0 };
    } else {
      if (isTerminal(execution.state)) return;
      const slot = await acquireSlot(services, executionId, attempt);
      if (slot.status === 'finished') continue;
      if (slot.status === 'waiting') {
        // Back off from 50 ms: siblings that became ready together take free slots almost at once.
        await sleep(Math.min(services.config.slotPollSeconds * 1000, 50 * 2 ** Math.min(attempt, 6)));
        continue;
      }
      progress = await submitWithRelations(services, executionId);
    }
    while (progress.status === 'running') {
      // An in-process engine wakes the status read itself (waitForChange); others are polled.
      if (!services.engine.waitForChange) await sleep(progress.wait_seconds * 1000);
      progress = await checkQuery(services, executionId, progress.polls);
    }
    return;
  }
}

function sleep(millis: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, millis));
}
