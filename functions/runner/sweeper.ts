import type { Execution } from '../core/executions';
import { offerSlot, releaseSlot } from '../executions/slots';
import { stopEngineRun } from '../executions/use-cases';
import { failInterruptedPipeline, pipelineTimeouts } from '../pipelines/use-cases';
import type { Services } from '../services';
import { dropRetiredUploadGenerations } from '../uploads/use-cases';
import { failInterrupted, heldByEngine } from './recovery';

/** Past an execution's or pipeline's own bounds, how long the sweeper still waits before calling it lost. */
export const SWEEP_GRACE_MS = 10 * 60_000;

export interface SweepResult {
  executions: number;
  pipelines: number;
  /** Accounts whose slot count was higher than their active executions could hold. */
  slotCounts: number;
  /** Uploaded tables' generations dropped once no run could still read them. */
  uploadGenerations: number;
}

/**
 * The latest an execution's workflow can still be working on it: its slot waits (the workflow
 * gives up after `maxSlotPolls`), then its run (the engine stops it at the tier's limit), then the
 * grace period.
 */
export function executionDeadline(execution: Execution, services: Services): number {
  const { slotPollSeconds, maxSlotPolls } = services.config;
  return (
    Date.parse(execution.submittedAt) +
    slotPollSeconds * maxSlotPolls * 1000 +
    execution.timeoutMs +
    SWEEP_GRACE_MS
  );
}

/**
 * The AWS counterpart of the local host's restart recovery, run on a schedule (every 5 minutes,
 * lib/constructs/executions.ts): work whose workflow died without recording an outcome (a Task
 * that kept crashing, a workflow stopped by hand or by a quota) would otherwise stay active
 * forever and hold its account's slots. An execution or a pipeline run still active past every
 * bound its workflow has is ended FAILED (an engine run stopped, its slot freed); a pipeline's node
 * executions are the pipeline's to end. Anything within its bounds is left alone, so a sweep never
 * races a live workflow; queued executions are offered their account's free slots. Uploaded tables'
 * generations that a clear or delete replaced are dropped once no run can still read them.
 */
export async function sweepLostWork(services: Services, now = Date.now()): Promise<SweepResult> {
  // Slot counts are read before the active executions are listed (see correctSlotCounts).
  const counted = await slotCounts(services);
  let executions = 0;
  const queuedAccounts = new Set<string>();
  for (const execution of await services.executions.listActive()) {
    if (execution.pipelineExecutionId || executionDeadline(execution, services) > now) {
      if (execution.state === 'QUERY_STATE_PENDING' && !execution.engineRunId)
        queuedAccounts.add(execution.accountId);
      continue;
    }
    if (await endLost(services, execution, 'Its workflow stopped without recording an outcome')) executions++;
  }
  // A wake-up lost on the way (a release that crashed before offering its slot) costs a queued
  // execution at most one sweep period: every account with queued work is offered its free slots.
  for (const accountId of queuedAccounts) {
    await offerSlot(services, accountId);
  }
  let pipelines = 0;
  for (const pipeline of await services.pipelines.listActive()) {
    const { awaitTimeoutSeconds } = pipelineTimeouts(services.config, pipeline.graph.nodes.length);
    if (Date.parse(pipeline.submittedAt) + awaitTimeoutSeconds * 1000 + SWEEP_GRACE_MS > now) continue;
    const run = await services.pipelines.get(pipeline.pipelineExecutionId);
    if (!(await failInterruptedPipeline(services, pipeline.pipelineExecutionId, LOST_PIPELINE))) continue;
    pipelines++;
    // Its nodes' executions die with it.
    for (const node of run?.nodes ?? []) {
      const execution = node.executionId ? await services.executions.get(node.executionId) : undefined;
      if (execution) await endLost(services, execution, 'Its pipeline stopped');
    }
  }
  return {
    executions,
    pipelines,
    slotCounts: await correctSlotCounts(services, counted),
    uploadGenerations: await dropRetiredUploadGenerations(services, new Date(now)),
  };
}

async function slotCounts(services: Services): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const account of await services.accounts.listAccounts()) {
    const running = await services.limiter.running(account.accountId);
    if (running > 0) counts.set(account.accountId, running);
  }
  return counts;
}

/**
 * A release that never happened (a Lambda that died between a run's end and its release) would
 * keep a slot counted forever. Every counted slot belongs to an active execution, so a count above
 * the account's active executions is corrected down to them. The counts were read before the
 * executions were listed, and each correction applies only if the count is still what was read:
 * a slot taken or freed meanwhile leaves the account to the next sweep.
 */
async function correctSlotCounts(services: Services, counted: Map<string, number>): Promise<number> {
  if (counted.size === 0) return 0;
  const active = new Map<string, number>();
  for (const execution of await services.executions.listActive()) {
    active.set(execution.accountId, (active.get(execution.accountId) ?? 0) + 1);
  }
  let corrected = 0;
  for (const [accountId, running] of counted) {
    const holders = active.get(accountId) ?? 0;
    if (running > holders && (await services.limiter.correctRunning(accountId, running, holders))) {
      corrected++;
      // The freed slots go to whoever waits for them.
      await offerSlot(services, accountId);
    }
  }
  return corrected;
}

/** Ends a lost execution FAILED (if still active), stopping its engine run and freeing its slot. */
async function endLost(services: Services, execution: Execution, reason: string): Promise<boolean> {
  if (!(await failInterrupted(services, execution, reason))) return false;
  if (heldByEngine(execution)) {
    await stopEngineRun(services, execution);
    await releaseSlot(services, execution.accountId);
  }
  return true;
}

const LOST_PIPELINE = {
  running: 'Its pipeline workflow stopped while this node was running.',
  pending: 'Not run: its pipeline workflow stopped first.',
  run: 'The workflow running this pipeline stopped without finishing it',
};
