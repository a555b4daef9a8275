import { awaitFinished } from '../core/change-watch';
import { type Execution, isTerminal } from '../core/executions';
import {
  type NodeProgress,
  nodePollSeconds,
  type PipelineRunnerInput,
  pipelineRunnerInput,
} from '../core/pipeline-workflow';
import type { QueryProgress, RunnerInput, SlotResult } from '../core/workflows';
import {
  checkQuery,
  recordWorkflowFailure,
  type SubmitInputs,
  submitInputs,
  submitQuery,
} from '../executions/query-run';
import { readableRelations } from '../executions/readable-relations';
import { acquireSlot, releaseSlot } from '../executions/slots';
import { finishNode, recordNodeExecuting, runPipelineStep, startNode } from '../pipelines/node-steps';
import { runScheduledRefresh } from '../pipelines/scheduled-refresh';
import type { Services } from '../services';
import { sweepLostWork } from './sweeper';

/** How long one check of a node following a refresh waits for it to end (in-process engine). */
const SHARED_REFRESH_WAIT_MS = 1000;

/**
 * The node runner: what each Task state of a generated workflow does. The runner Lambda calls it
 * in AWS (functions/runner/handler.ts); the local host binds it to the Task states by name. It
 * owns dispatch (and the sweep of lost work, ./sweeper.ts); taking and freeing execution slots
 * (functions/executions/slots.ts), running a query (functions/executions/query-run.ts) and the
 * pipeline steps with their dependency gate (functions/pipelines/node-steps.ts) sit below it and
 * never call back up.
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
      case 'start_node':
        return startNodeStep(services, pipelineStep);
      case 'check_node':
        return checkNodeStep(services, pipelineStep);
    }
    // The scheduled sweep (AWS): work whose workflow died, past all its bounds, ends failed.
    if ((raw as { action?: string }).action === 'sweep') return sweepLostWork(services);
    if ((raw as { action?: string }).action === 'scheduled_refresh') {
      // An EventBridge schedule fired: refresh the view through a pipeline (upstream views first).
      const view = await services.materializedViews.get(
        String((raw as { materialized_view?: string }).materialized_view),
      );
      if (!view) return { skipped: 'view no longer exists' };
      const outcome = await runScheduledRefresh(services, view);
      if (outcome && 'failed' in outcome) {
        await outcome.delivery;
        return { failed: outcome.failed, pipelineExecutionId: outcome.pipelineExecutionId };
      }
      return outcome && { pipelineExecutionId: outcome.started };
    }
    // AcquireSlot is a lambda:invoke Task: locally its handler gets {FunctionName, Payload}.
    const input = pipelineStep as unknown as RunnerInput;
    switch (input.action) {
      case 'acquire_slot':
        return awaitSlot(services, input);
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
 * AcquireSlot: parks on the slot gate until the execution gets one of its account's slots (or has
 * ended meanwhile). A workflow started before the gate existed polls instead (no token).
 */
async function awaitSlot(services: Services, input: RunnerInput): Promise<SlotResult | undefined> {
  const executionId = input.execution_id;
  if (input.task_token === undefined) return acquireSlot(services, executionId, Number(input.attempt ?? 0));
  const execution = await services.executions.get(executionId);
  if (!execution) return { status: 'finished', attempts: 1 };
  // Submitted by an earlier invocation of this Task (it died before answering): poll that run.
  if (execution.engineRunId && !isTerminal(execution.state)) {
    return { status: 'running', attempts: 1, polls: 0, wait_seconds: 0 };
  }
  // The first try reuses the execution just read; later ones (after a wake-up) read it again.
  let justRead: Execution | undefined = execution;
  return services.slotGate.awaitSlot({
    accountId: execution.accountId,
    executionId,
    taskToken: input.task_token,
    // A slot this invocation takes itself is used at once: the query is submitted here, which
    // saves the workflow a StartQuery Task (and, in AWS, a Lambda invocation).
    tryAcquire: async () => {
      const current = justRead;
      justRead = undefined;
      // What the submit reads is read while the slot is taken (wasted only when none is free).
      const prefetched = current && submitInputs(services, current, readableBy(services));
      prefetched?.catch(() => undefined);
      const slot = await acquireSlot(services, executionId, 0, current);
      if (slot.status !== 'acquired') return slot;
      const progress = await submitWithRelations(services, executionId, current, prefetched);
      return progress.status === 'running'
        ? {
            status: 'running',
            attempts: slot.attempts,
            polls: progress.polls,
            wait_seconds: progress.wait_seconds,
          }
        : { status: 'finished', attempts: slot.attempts };
    },
  });
}

/**
 * Submits with the views the execution's SQL may read, resolved now. `current` is the execution
 * as the caller just read it: a cancel landing since is caught by the conditional writes after.
 */
async function submitWithRelations(
  services: Services,
  executionId: string,
  current?: Execution,
  prefetched?: Promise<SubmitInputs>,
): Promise<QueryProgress> {
  const execution = current ?? (await services.executions.get(executionId));
  if (!execution) return { status: 'finished', polls: 0, wait_seconds: 0 };
  return submitQuery(services, execution, readableBy(services), prefetched);
}

const readableBy = (services: Services) => (accountId: string, sql: string) =>
  readableRelations(services, accountId, sql);

/**
 * Start_n: starts the node (records it running, creates its execution), then takes the first step
 * of the execution: a slot, and the query's submission if it gets one.
 */
async function startNodeStep(services: Services, input: PipelineRunnerInput): Promise<NodeProgress> {
  // The slot is taken, and what the submit reads is read, while the node is claimed and its
  // execution stored: one round of writes less before the run starts.
  let early: EarlyStart | undefined;
  const started = await startNode(
    services,
    input.pipeline_execution_id,
    Number(input.node_id),
    (execution) => {
      early = {
        accountId: execution.accountId,
        slot: acquireSlot(services, execution.executionId, 0, execution),
        inputs: submitInputs(services, execution, readableBy(services)),
      };
      early.slot.catch(() => undefined); // awaited by whoever uses or frees it
      early.inputs.catch(() => undefined);
    },
  );
  if (!('executionId' in started)) {
    // The node did not start after all (claimed by someone else, or it could not): free its slot.
    if (early) await releaseEarlySlot(services, early);
    return { status: 'finished', polls: 0, wait_seconds: 0 };
  }
  if (started.shared) {
    // It follows a refresh someone else runs: the slot it may have taken goes back.
    if (early) await releaseEarlySlot(services, early);
    return advanceNode(services, { ...input, shared: true }, started.executionId, 0);
  }
  // The slot and the submit need not wait for the node's record of its execution id; the node
  // ends, and the Task answers, only once that record is written.
  const [progress] = await Promise.all([
    advanceNode(services, input, started.executionId, 0, started.recorded, early),
    started.recorded,
  ]);
  return progress;
}

/** A node's first step started while the node was claimed (`startNodeStep`). */
interface EarlyStart {
  accountId: string;
  slot: Promise<SlotResult>;
  inputs: Promise<SubmitInputs>;
}

async function releaseEarlySlot(services: Services, early: EarlyStart): Promise<void> {
  const slot = await early.slot.catch(() => undefined);
  if (slot?.status === 'acquired') await releaseSlot(services, early.accountId);
}

/** Check_n: one more step of the node's execution (a slot attempt or a status read). */
function checkNodeStep(services: Services, input: PipelineRunnerInput): Promise<NodeProgress> {
  // Definitions before `progress` passed the ids, execution and limits one by one.
  const progress = input.progress ?? {};
  const step: PipelineRunnerInput = {
    ...input,
    pipeline_execution_id: input.pipeline_execution_id ?? progress.pipeline_execution_id,
    node_id: input.node_id ?? progress.node_id,
    poll_budget: input.poll_budget ?? progress.poll_budget,
    poll_window_seconds: input.poll_window_seconds ?? progress.poll_window_seconds,
    ...(progress.shared ? { shared: true as const } : {}),
  };
  const executionId = String(progress.execution_id ?? input.execution_id);
  // A slot wait that ended without a slot (a Lambda error, its timeout) logged a Task's events
  // more than a Wait: it counts as two polls against the node's share of the history.
  const extra = progress.slot && progress.slot.status === undefined ? 1 : 0; // a caught {Error, Cause}
  return advanceNode(services, step, executionId, Number(progress.polls ?? input.polls ?? 0) + extra);
}

/**
 * One step of a node's execution, the same steps as the single-query workflow takes in its own
 * states: wait for a slot, submit, read the status; the node ends with its execution. A node that
 * has used its whole poll budget is stopped as timed out (the engine enforces the tier's time
 * limit long before, so this only catches a run the engine lost).
 */
async function advanceNode(
  services: Services,
  input: PipelineRunnerInput,
  executionId: string,
  polls: number,
  /** The node's record of its execution id, when the Start Task writes it meanwhile. */
  recorded?: Promise<void>,
  /** The slot and submit inputs the Start Task asked for while it claimed the node. */
  early?: EarlyStart,
): Promise<NodeProgress> {
  const pipelineExecutionId = input.pipeline_execution_id;
  const nodeId = Number(input.node_id);
  const budget = Number(input.poll_budget ?? services.config.maxSlotPolls);
  const window = Number(input.poll_window_seconds ?? 0);
  // What Check_n hands back on its next call.
  const carried = {
    pipeline_execution_id: pipelineExecutionId,
    node_id: nodeId,
    ...(input.poll_budget !== undefined ? { poll_budget: Number(input.poll_budget) } : {}),
    ...(input.poll_window_seconds !== undefined ? { poll_window_seconds: window } : {}),
    ...(input.shared ? { shared: true as const } : {}),
  };
  const next = (status: 'waiting' | 'running', progressPolls: number, minimumSeconds = 0) => ({
    status,
    execution_id: executionId,
    polls: progressPolls,
    wait_seconds: Math.max(minimumSeconds, nodePollSeconds(progressPolls, budget, window)),
    ...carried,
  });
  /** Ends the node, alongside its run's last writes (handed over by its check) when there are. */
  const finish = async (runWrites: Promise<void>[] = []): Promise<NodeProgress> => {
    await recorded;
    await Promise.all([
      finishNode(services, pipelineExecutionId, nodeId, executionId, input.shared === true),
      ...runWrites,
    ]);
    return { status: 'finished', execution_id: executionId, polls, wait_seconds: 0 };
  };
  if (input.shared) {
    // A node its run stopped (a cancel, on_failure "stop") stops following at once: the refresh
    // goes on for its starter, and the run's branch ends now, not when that refresh does.
    const node = await services.pipelines.getNode(pipelineExecutionId, nodeId);
    if (node?.state !== 'running') return finish();
    // The refresh is its starter's to submit, check and end: the node waits for its end. Where the
    // engine runs in this process, status-poll Waits last 0 and the check itself waits (as a
    // query's status read does); in AWS the Wait state does.
    const joined = await awaitFinished(
      services.executionWatch,
      executionId,
      services.engine.waitForChange ? SHARED_REFRESH_WAIT_MS : 0,
      {
        read: () => services.executions.get(executionId),
        stateOf: (execution) => execution?.state ?? 'QUERY_STATE_FAILED',
        isFinished: isTerminal,
      },
    );
    if (!joined || isTerminal(joined.state) || polls > budget) return finish();
    if (joined.executionStartedAt) {
      await recordNodeExecuting(services, pipelineExecutionId, nodeId, joined.executionStartedAt);
    }
    return next('running', polls + 1);
  }
  if (polls > budget) {
    await recordWorkflowFailure(services, executionId, 'States.Timeout', 'the node used up its polls');
    return finish();
  }
  const execution = await services.executions.get(executionId);
  if (!execution || (!execution.engineRunId && isTerminal(execution.state))) {
    // Ended before it was submitted (e.g. cancelled while the node started): its slot goes back.
    if (early) await releaseEarlySlot(services, early);
    return finish();
  }
  if (!execution.engineRunId) {
    // The Start Task took a slot already, or WaitForSlot_n was handed one (taken for this
    // execution by whoever freed it): use it.
    const earlySlot = early && (await early.slot.catch(() => undefined));
    const handedOn = input.progress?.slot?.status === 'acquired' || earlySlot?.status === 'acquired';
    // What the submit reads is read while the slot is taken (wasted only when none is free).
    const prefetched = early?.inputs ?? submitInputs(services, execution, readableBy(services));
    prefetched.catch(() => undefined);
    const slot = handedOn
      ? ({ status: 'acquired', attempts: 1 } as const)
      : await acquireSlot(services, executionId, polls, execution);
    if (slot.status === 'waiting') return next('waiting', polls + 1, services.config.slotPollSeconds);
    if (slot.status === 'finished') return advanceNode(services, input, executionId, polls + 1, recorded);
    const submitted = await submitWithRelations(services, executionId, execution, prefetched);
    return submitted.status === 'running' ? next('running', polls + 1) : finish();
  }
  const runWrites: Promise<void>[] = [];
  const progress = await checkQuery(services, executionId, polls, execution, (writes) =>
    runWrites.push(writes),
  );
  if (progress.status === 'running' && execution.state === 'QUERY_STATE_PENDING') {
    // Queued in the engine until now: the node records when its query began to run, if it did.
    const now = await services.executions.get(executionId);
    if (now?.state === 'QUERY_STATE_EXECUTING' && now.executionStartedAt) {
      await recordNodeExecuting(services, pipelineExecutionId, nodeId, now.executionStartedAt);
    }
  }
  return progress.status === 'running' ? next('running', progress.polls) : finish(runWrites);
}
