import type { Account } from '../core/accounts';
import type { GateDecision } from '../core/dependency-gate';
import type { Execution } from '../core/executions';
import { dependencyGate, dependentsOf, type NodeOutcome } from '../core/pipeline-graph';
import type { PipelineRunnerInput } from '../core/pipeline-workflow';
import {
  allNodesSettled,
  isCancelRequested,
  isSettling,
  type NodeState,
  nodeSubject,
  type PipelineExecution,
  type PipelineNodeRun,
  TERMINAL_NODE_STATES,
} from '../core/pipelines';
import { recordWorkflowFailure } from '../executions/query-run';
import {
  cancelExecution,
  type ExecutionRequest,
  prepareExecution,
  savedQueryRequest,
  stopEngineRun,
} from '../executions/use-cases';
import { refreshRequest } from '../matviews/use-cases';
import type { Services } from '../services';
import { claimOrJoinRefresh, joinableRefresh } from './shared-refresh';
import { notifyPipelineFinished } from './webhooks';

/**
 * The pipeline steps of the node runner (see functions/core/pipeline-workflow.ts) except running a
 * node's query, which the runner (functions/runner) steps through between `startNode` and
 * `finishNode`, one Start_n / Check_n Task at a time.
 */
export async function runPipelineStep(
  services: Services,
  input: PipelineRunnerInput & {
    action: Exclude<PipelineRunnerInput['action'], 'start_node' | 'check_node'>;
  },
): Promise<unknown> {
  const id = input.pipeline_execution_id;
  switch (input.action) {
    case 'await_dependencies':
      return services.dependencyGate.awaitDependencies({
        pipelineExecutionId: id,
        nodeId: Number(input.node_id),
        taskToken: String(input.task_token ?? ''),
        decide: () => decide(services, id, Number(input.node_id)),
      });
    case 'record_node_failure': {
      // The node's query may still run (e.g. Check_n kept failing): stop it and free its slot. A
      // refresh the node only joined is its starter's to end.
      const failedNode = await services.pipelines.getNode(id, Number(input.node_id));
      const executionId = failedNode?.sharedRefresh ? undefined : failedNode?.executionId;
      if (executionId) {
        await recordWorkflowFailure(services, executionId, input.error ?? 'Error', input.cause ?? '');
      }
      await endNode(services, id, Number(input.node_id), ['pending', 'running'], {
        state: 'failed',
        error: {
          type: 'internal_error',
          message: `${input.error ?? 'Error'}: ${(input.cause ?? '').slice(0, 500)}`,
        },
      });
      return { recorded: true };
    }
    case 'finish_pipeline':
      return finishPipeline(services, id);
  }
}

const OUTCOME: Partial<Record<NodeState, NodeOutcome>> = {
  completed: 'succeeded',
  failed: 'failed',
  skipped: 'skipped',
  cancelled: 'cancelled',
};

/** Decides whether a node may start, recording `skipped` or `cancelled` when it never will. */
async function decide(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
): Promise<GateDecision> {
  const run = await services.pipelines.get(pipelineExecutionId);
  const node = run?.nodes.find((n) => n.nodeId === nodeId);
  if (!run || !node) return 'skip';
  if (node.state === 'completed') return 'proceed'; // reused by a retry: start_node returns at once
  if (node.state !== 'pending') return 'skip';
  if (isCancelRequested(run.execution)) {
    await endNode(services, pipelineExecutionId, nodeId, ['pending'], {
      state: 'cancelled',
      error: { type: 'cancelled', message: 'The pipeline was cancelled before this node started.' },
    });
    return 'skip';
  }
  const byId = new Map(run.nodes.map((n) => [n.nodeId, n]));
  const outcomes = await Promise.all(
    node.dependencies.map((dep) => dependencyOutcome(services, byId.get(dep))),
  );
  const decision = dependencyGate(outcomes);
  if (decision === 'skip') {
    const blocker = node.dependencies
      .map((dep) => byId.get(dep))
      .find((dep) => dep && ['failed', 'skipped', 'cancelled'].includes(dep.state));
    await endNode(services, pipelineExecutionId, nodeId, ['pending'], {
      state: 'skipped',
      error: {
        type: 'skipped',
        message: `Not run: dependency ${blocker?.nodeId}${blocker ? ` (${nodeSubject(blocker)})` : ''} ended ${blocker?.state}.`,
      },
    });
  }
  return decision;
}

/**
 * A dependency's outcome for the gate. A node still running whose execution has COMPLETED has
 * succeeded: what it makes (a view's new version, a query's latest result) is published before its
 * execution reads COMPLETED, and such a node always ends completed (`finishNode`), so its
 * dependents start without waiting for its end and its run's bookkeeping to be written.
 */
async function dependencyOutcome(
  services: Services,
  dependency: PipelineNodeRun | undefined,
): Promise<NodeOutcome | undefined> {
  if (dependency?.state !== 'running' || !dependency.executionId) {
    return OUTCOME[dependency?.state ?? 'pending'];
  }
  const execution = await services.executions.get(dependency.executionId);
  return execution?.state === 'QUERY_STATE_COMPLETED' ? 'succeeded' : undefined;
}

/** Lets the node's dependents decide again: it ended, or its execution completed. */
async function releaseDependents(
  services: Services,
  pipelineExecutionId: string,
  graph: PipelineExecution['graph'],
  nodeId: number,
): Promise<void> {
  await services.dependencyGate.nodeEnded(
    pipelineExecutionId,
    dependentsOf(graph, nodeId).map((dependent) => ({
      nodeId: dependent,
      decide: () => decide(services, pipelineExecutionId, dependent),
    })),
  );
}

/**
 * Answers the dependency gates of the given nodes now (on Step Functions: their stored task
 * tokens), e.g. after a cancel, so their branches end instead of waiting out their timeout.
 */
export async function releaseWaitingNodes(
  services: Services,
  pipelineExecutionId: string,
  nodeIds: readonly number[],
) {
  await services.dependencyGate.nodeEnded(
    pipelineExecutionId,
    nodeIds.map((nodeId) => ({ nodeId, decide: () => decide(services, pipelineExecutionId, nodeId) })),
  );
}

/**
 * Starts one node: records it running and creates its query execution or view refresh (PENDING),
 * which the runner then runs. Answers the node's state instead when there is nothing to run.
 */
export async function startNode(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  /**
   * Called with the node's execution as soon as it is built, while it is stored and the node
   * claimed: the caller may start its first step (its slot) meanwhile. If the node does not start
   * after all, the caller gets a state instead of an execution id and undoes what it started.
   */
  onPrepared?: (execution: Execution) => void,
): Promise<
  | {
      executionId: string;
      /**
       * The node's record of its execution (and a view's refresh), written meanwhile: the caller
       * may take a slot and submit at once, and awaits this before it ends the node or returns.
       */
      recorded: Promise<void>;
      /** The node joined its view's running refresh: it follows that execution, runs nothing. */
      shared?: true;
    }
  | { state: NodeState | 'missing' | undefined }
> {
  const run = await services.pipelines.get(pipelineExecutionId);
  const node = run?.nodes.find((n) => n.nodeId === nodeId);
  if (!run || !node || TERMINAL_NODE_STATES.includes(node.state)) return { state: node?.state ?? 'missing' };
  // A retried Start Task (the previous invocation died) picks up the node's execution where it is.
  if (node.state === 'running' && node.executionId)
    return {
      executionId: node.executionId,
      recorded: Promise.resolve(),
      ...(node.sharedRefresh ? { shared: true as const } : {}),
    };
  if (isCancelRequested(run.execution)) {
    await endNode(services, pipelineExecutionId, nodeId, ['pending'], {
      state: 'cancelled',
      error: { type: 'cancelled', message: 'The pipeline was cancelled before this node started.' },
    });
    return { state: 'cancelled' };
  }
  const now = new Date().toISOString();
  // A view's refresh may join the refresh of the view already running (./shared-refresh.ts).
  const viewRead =
    node.kind === 'materialized_view_refresh'
      ? services.materializedViews.get(node.materializedViewName!)
      : undefined;
  viewRead?.catch(() => undefined); // awaited below
  // What the execution is made of is read meanwhile (wasted only if the node does not start).
  const request = services.accounts
    .getAccount(run.execution.accountId)
    .then(async (account) => ({ account: account!, request: await nodeRequest(services, account!, node) }));
  request.catch(() => undefined); // awaited when the node starts
  // The execution is created while the node is claimed: one write less in a row before the run
  // starts. A node someone else claimed meanwhile (a retried Task, a cancel) leaves it cancelled.
  const creating = (async (): Promise<{ account: Account; execution?: Execution; joined?: Execution }> => {
    const view = await viewRead;
    const joined = view && (await joinableRefresh(services, node, run.nodes, view.lastExecutionIds));
    const { account, request: executionRequest } = await request;
    if (joined) return { account, joined };
    const execution = await prepareExecution(services, account, { ...executionRequest, pipelineExecutionId });
    onPrepared?.(execution);
    await services.executions.create(execution);
    if (!view) return { account, execution };
    const claim = await claimOrJoinRefresh(services, node, run.nodes, execution, view.lastExecutionIds);
    if ('claimed' in claim) return { account, execution };
    // Another refresh of the view was recorded first: this one never runs (it holds no engine run).
    await cancelExecution(services, account, execution.executionId);
    return { account, joined: claim.joined };
  })();
  creating.catch(() => undefined); // awaited below
  const [, startedNode] = await Promise.all([
    // The first node to start moves the pipeline to executing (the others find it done already).
    run.execution.state === 'pending'
      ? services.pipelines.transition(pipelineExecutionId, ['pending'], {
          state: 'executing',
          startedAt: now,
        })
      : undefined,
    services.pipelines.transitionNode(pipelineExecutionId, nodeId, ['pending'], {
      state: 'running',
      startedAt: now,
    }),
  ]);
  if (!startedNode) {
    await creating.then(
      // Never submitted, it holds no slot: cancelled as a user's cancel of a queued run would.
      ({ account, execution }) => execution && cancelExecution(services, account, execution.executionId),
      () => undefined, // nothing was created
    );
    return { state: (await services.pipelines.getNode(pipelineExecutionId, nodeId))?.state };
  }
  let created: Awaited<typeof creating>;
  try {
    created = await creating;
  } catch (error) {
    // The node could not start (e.g. its query was archived, or the credit limit was reached).
    await endNode(services, pipelineExecutionId, nodeId, ['running'], {
      state: 'failed',
      error: { type: 'execution_error', message: (error as Error).message },
    });
    return { state: 'failed' };
  }
  if (created.joined) {
    // It follows the running refresh: recorded before the caller steps through it.
    const executionId = created.joined.executionId;
    await services.pipelines.transitionNode(pipelineExecutionId, nodeId, ['running'], {
      executionId,
      sharedRefresh: true,
      ...(created.joined.executionStartedAt ? { executionStartedAt: created.joined.executionStartedAt } : {}),
    });
    return { executionId, recorded: Promise.resolve(), shared: true };
  }
  const executionId = created.execution!.executionId;
  // A view's refresh was recorded on the view as it was claimed.
  const recorded = services.pipelines
    .transitionNode(pipelineExecutionId, nodeId, ['running'], { executionId })
    .then(() => undefined);
  recorded.catch(() => undefined); // the caller awaits it
  return { executionId, recorded };
}

/** Ends the node from its execution's outcome (once the execution has ended). */
export async function finishNode(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  executionId: string,
  /** The node joined its view's running refresh (another run's or a request's execution). */
  shared = false,
) {
  const execution = await services.executions.get(executionId);
  if (shared) return finishSharedNode(services, pipelineExecutionId, nodeId, execution);
  const state: NodeState =
    execution?.state === 'QUERY_STATE_COMPLETED'
      ? 'completed'
      : execution?.state === 'QUERY_STATE_CANCELLED'
        ? 'cancelled'
        : 'failed';
  // A cancelled pipeline may have ended the node already: only its credits are added then.
  await endNodeWithExecution(
    services,
    pipelineExecutionId,
    nodeId,
    execution,
    state === 'cancelled' ? ['running', 'cancelled'] : ['running'],
    {
      state,
      credits: execution?.credits ?? 0,
      ...(execution?.error ? { error: execution.error } : {}),
    },
  );
  return { state };
}

/**
 * Ends a node with the execution it ran or followed: it ended when that execution ended, and it
 * records when its engine time began (a status read may have seen it start late). A completed
 * execution's dependents are released while the end is written (`dependencyOutcome`): a
 * dependency hop does not wait for that write (on Step Functions the write and the dependents'
 * SendTaskSuccess go at once; locally all writes still queue on dynalite's one thread).
 */
async function endNodeWithExecution(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  execution: Execution | undefined,
  from: readonly NodeState[],
  changes: { state: NodeState; error?: PipelineNodeRun['error']; credits: number },
): Promise<void> {
  const ended = endNode(
    services,
    pipelineExecutionId,
    nodeId,
    from,
    {
      ...changes,
      ...(execution?.executionStartedAt ? { executionStartedAt: execution.executionStartedAt } : {}),
      ...(execution?.executionEndedAt ? { endedAt: execution.executionEndedAt } : {}),
    },
    { releaseDependents: execution?.state !== 'QUERY_STATE_COMPLETED' },
  );
  if (execution?.state !== 'QUERY_STATE_COMPLETED') return ended;
  ended.catch(() => undefined); // awaited below, after the run is read
  const run = await services.pipelines.get(pipelineExecutionId);
  await Promise.all([
    ended,
    run && releaseDependents(services, pipelineExecutionId, run.execution.graph, nodeId),
  ]);
}

/**
 * Ends a node that joined its view's running refresh from how that refresh ended: charged nothing
 * (its starter pays); a refresh its starter cancelled fails the node, which this run did not cancel.
 */
async function finishSharedNode(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  execution: Execution | undefined,
) {
  const state: NodeState = execution?.state === 'QUERY_STATE_COMPLETED' ? 'completed' : 'failed';
  const error =
    state === 'completed'
      ? undefined
      : execution?.state === 'QUERY_STATE_CANCELLED'
        ? {
            type: 'cancelled',
            message: `The refresh this node joined (execution ${execution.executionId}${execution.pipelineExecutionId ? `, of pipeline execution ${execution.pipelineExecutionId}` : ''}) was cancelled by whoever started it.`,
          }
        : (execution?.error ?? { type: 'execution_error', message: 'The refresh this node joined failed.' });
  await endNodeWithExecution(services, pipelineExecutionId, nodeId, execution, ['running'], {
    state,
    credits: 0,
    ...(error ? { error } : {}),
  });
  return { state };
}

async function nodeRequest(
  services: Services,
  account: Account,
  node: PipelineNodeRun,
): Promise<ExecutionRequest> {
  if (node.kind === 'materialized_view_refresh') {
    return refreshRequest(services, account, node.materializedViewName!, node.performance);
  }
  return savedQueryRequest(services, account, node.queryId, {
    tier: node.performance,
    parameters: node.queryParameters as Record<string, string>,
  });
}

/**
 * Stops the given nodes that have not ended: a pending one ends cancelled; a running one's
 * execution is cancelled and its engine run stopped, and it reads cancelled at once (its run then
 * adds the engine time it was charged). Their waiting branches are released to end.
 */
export async function stopNodes(
  services: Services,
  pipelineExecutionId: string,
  nodes: readonly PipelineNodeRun[],
  why: { pending: string; running: string },
  now = new Date(),
) {
  const at = now.toISOString();
  for (const node of nodes) {
    if (node.state === 'pending') {
      await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['pending'], {
        state: 'cancelled',
        endedAt: at,
        error: { type: 'cancelled', message: why.pending },
      });
    } else if (node.state === 'running' && node.sharedRefresh) {
      // The refresh it joined goes on for whoever started it; this run stops following it.
      await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['running'], {
        state: 'cancelled',
        endedAt: at,
        credits: 0,
        error: { type: 'cancelled', message: why.running },
      });
    } else if (node.state === 'running' && node.executionId) {
      const stopped = await services.executions.transition(
        node.executionId,
        ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'],
        { state: 'QUERY_STATE_CANCELLED', cancelledAt: at, executionEndedAt: at },
      );
      if (!stopped) continue; // it finished first; its run records the outcome
      await stopEngineRun(services, stopped);
      await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['running'], {
        state: 'cancelled',
        endedAt: at,
        error: { type: 'cancelled', message: why.running },
      });
    }
  }
  await releaseWaitingNodes(
    services,
    pipelineExecutionId,
    nodes.filter((node) => node.state === 'pending').map((node) => node.nodeId),
  );
}

/** Ends a node (conditionally, at `endedAt` or now) and lets its dependents decide. */
async function endNode(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  from: readonly NodeState[],
  changes: {
    state: NodeState;
    error?: PipelineNodeRun['error'];
    credits?: number;
    executionStartedAt?: string;
    endedAt?: string;
  },
  /** False when the caller released them already (a completed execution's node). */
  { releaseDependents: release = true } = {},
) {
  const ended = await services.pipelines.transitionNode(pipelineExecutionId, nodeId, from, {
    endedAt: new Date().toISOString(),
    ...changes,
  });
  if (!ended) return;
  const run = await services.pipelines.get(pipelineExecutionId);
  if (!run) return;
  if (changes.state === 'failed' && run.execution.onFailure === 'stop') {
    // Fail fast: nothing else of the run is worth its credits now.
    const rest = run.nodes.filter(
      (node) => node.nodeId !== nodeId && !TERMINAL_NODE_STATES.includes(node.state),
    );
    const failed = run.nodes.find((node) => node.nodeId === nodeId);
    const which = `node ${nodeId}${failed ? ` (${nodeSubject(failed)})` : ''}`;
    await stopNodes(services, pipelineExecutionId, rest, {
      pending: `Not run: ${which} failed, and the pipeline stops at the first failure (on_failure "stop").`,
      running: `Stopped: ${which} failed, and the pipeline stops at the first failure (on_failure "stop").`,
    });
  }
  // The node that ends a cancelled run's last stopped node ends the run (with its final cost).
  if (isCancelRequested(run.execution) && run.execution.state !== 'cancelled') {
    await endCancelledPipeline(services, pipelineExecutionId, run);
  }
  if (release) await releaseDependents(services, pipelineExecutionId, run.execution.graph, nodeId);
}

/** What a cancelled run's `error` says. */
export const CANCELLED_BY_USER = 'Cancelled by the user.';

/**
 * Ends a cancelled run once every node has ended with its final cost (`allNodesSettled`): until
 * then it reads executing, so a client that stops at a final state reads the final cost. Whoever
 * ends a node of a cancelled run calls this; the conditional write lets one of them end it.
 */
export async function endCancelledPipeline(
  services: Services,
  pipelineExecutionId: string,
  /** The run as just read (after the caller's last write to it), or undefined to read it here. */
  read?: { execution: PipelineExecution; nodes: PipelineNodeRun[] },
): Promise<PipelineExecution | undefined> {
  const run = read ?? (await services.pipelines.get(pipelineExecutionId));
  if (!run || !isCancelRequested(run.execution) || !allNodesSettled(run.nodes)) return undefined;
  return services.pipelines.transition(pipelineExecutionId, ['pending', 'executing'], {
    state: 'cancelled',
    endedAt: new Date().toISOString(),
    error: CANCELLED_BY_USER,
  });
}

/**
 * Gives the stopped nodes whose runs never reported their engine time (their branch failed, or the
 * run was lost) the credits their executions were charged, if any: the run's cost is then final.
 */
export async function settleStoppedNodes(
  services: Services,
  pipelineExecutionId: string,
  nodes: readonly PipelineNodeRun[],
): Promise<void> {
  for (const node of nodes.filter(isSettling)) {
    const execution = await services.executions.get(node.executionId!);
    await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['cancelled'], {
      credits: execution?.credits ?? 0,
    });
  }
}

/** The pipeline's final state from its nodes: completed only if every node completed. */
async function finishPipeline(services: Services, pipelineExecutionId: string) {
  const run = await services.pipelines.get(pipelineExecutionId);
  if (!run) return { state: 'missing' };
  for (const node of run.nodes.filter((n) => !TERMINAL_NODE_STATES.includes(n.state))) {
    await services.pipelines.transitionNode(pipelineExecutionId, node.nodeId, ['pending', 'running'], {
      state: 'failed',
      endedAt: new Date().toISOString(),
      error: { type: 'internal_error', message: 'The workflow ended before this node finished.' },
    });
  }
  // Every branch has ended: a stopped node's run that has not reported its engine time never will.
  await settleStoppedNodes(services, pipelineExecutionId, run.nodes);
  const nodes = (await services.pipelines.get(pipelineExecutionId))!.nodes;
  const failed = nodes.filter((n) => n.state === 'failed');
  const cancelled = isCancelRequested(run.execution);
  const state = cancelled
    ? 'cancelled'
    : failed.length
      ? 'failed'
      : nodes.every((n) => n.state === 'completed')
        ? 'completed'
        : 'failed';
  const error = cancelled
    ? CANCELLED_BY_USER
    : failed.length
      ? `${failed.length} node${failed.length > 1 ? 's' : ''} failed: ${failed
          .map((n) => `node ${n.nodeId} (${nodeSubject(n)}): ${n.error?.message ?? 'failed'}`)
          .join('; ')
          .slice(0, 1000)}`
      : undefined;
  const ended = await services.pipelines.transition(pipelineExecutionId, ['pending', 'executing'], {
    state,
    endedAt: new Date().toISOString(),
    ...(error ? { error } : {}),
  });
  // A cancelled run may have ended as its last stopped node was charged: it is told now, once
  // every branch of its workflow is done.
  if (run.execution.webhook && (ended || state === 'cancelled')) {
    await notifyPipelineFinished(services, pipelineExecutionId);
  }
  return { state };
}

/**
 * Records on a running node when its execution left the queue (a slot, the engine's own queue)
 * and began to run, so the node's timings tell the wait from the run.
 */
export async function recordNodeExecuting(
  services: Services,
  pipelineExecutionId: string,
  nodeId: number,
  executionStartedAt: string,
): Promise<void> {
  await services.pipelines.transitionNode(pipelineExecutionId, nodeId, ['running'], { executionStartedAt });
}
