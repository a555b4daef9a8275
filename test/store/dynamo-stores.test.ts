import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAccountCounters } from '../../functions/aws/dynamo/account-limits-store';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { DynamoExecutionStore } from '../../functions/aws/dynamo/execution-store';
import { DynamoMaterializedViewStore } from '../../functions/aws/dynamo/materialized-view-store';
import { DynamoPipelineStore } from '../../functions/aws/dynamo/pipeline-store';
import { DynamoQueryStore } from '../../functions/aws/dynamo/query-store';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import type { Execution } from '../../functions/core/executions';
import { newId } from '../../functions/core/ids';
import type { MaterializedView } from '../../functions/core/materialized-views';
import type { PipelineExecution, PipelineNodeRun } from '../../functions/core/pipelines';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';

describe('DynamoDB stores on dynalite: single-item conditional writes', () => {
  let dynamo: LocalDynamo;
  let executions: DynamoExecutionStore;
  let counters: DynamoAccountCounters;
  let queries: DynamoQueryStore;
  let doc: ReturnType<typeof localDynamoClient>['doc'];
  beforeAll(async () => {
    dynamo = await startDynalite();
    const local = localDynamoClient(dynamo.endpoint);
    const { client } = local;
    doc = local.doc;
    await ensureTables(client);
    executions = new DynamoExecutionStore(doc, SERVICE_TABLE.localName);
    counters = new DynamoAccountCounters(doc, SERVICE_TABLE.localName);
    queries = new DynamoQueryStore(doc, SERVICE_TABLE.localName);
  });
  afterAll(() => dynamo?.close());

  const pending = (accountId = 'acct'): Execution => ({
    executionId: newId(),
    accountId,
    queryId: 0,
    sql: 'select 1',
    tier: 'medium',
    timeoutMs: 1000,
    state: 'QUERY_STATE_PENDING',
    submittedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });

  it('never overwrites a terminal state', async () => {
    const execution = pending();
    await executions.create(execution);
    expect(
      await executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_CANCELLED',
      }),
    ).toMatchObject({
      state: 'QUERY_STATE_CANCELLED',
    });
    for (const state of ['QUERY_STATE_EXECUTING', 'QUERY_STATE_COMPLETED', 'QUERY_STATE_FAILED'] as const) {
      expect(
        await executions.transition(execution.executionId, ['QUERY_STATE_PENDING', 'QUERY_STATE_EXECUTING'], {
          state,
        }),
      ).toBeUndefined();
    }
    expect((await executions.get(execution.executionId))?.state).toBe('QUERY_STATE_CANCELLED');
  });

  it('lets exactly one of many racing transitions win', async () => {
    const execution = pending();
    await executions.create(execution);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
          state: i % 2 ? 'QUERY_STATE_EXECUTING' : 'QUERY_STATE_CANCELLED',
          executionStartedAt: `winner-${i}`,
        }),
      ),
    );
    const winners = outcomes.filter(Boolean);
    expect(winners).toHaveLength(1);
    expect((await executions.get(execution.executionId))?.executionStartedAt).toBe(
      winners[0]?.executionStartedAt,
    );
  });

  it('keeps only live executions in the active index', async () => {
    const live = pending('indexed');
    const done = pending('indexed');
    await executions.create(live);
    await executions.create(done);
    await executions.transition(done.executionId, ['QUERY_STATE_PENDING'], { state: 'QUERY_STATE_FAILED' });
    expect((await executions.listActive('indexed')).map((e) => e.executionId)).toEqual([live.executionId]);
  });

  it('caps running executions per account with an atomic counter', async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => counters.tryAcquire('busy', 3)));
    expect(results.filter(Boolean)).toHaveLength(3);
    await counters.release('busy');
    expect(await counters.tryAcquire('busy', 3)).toBe(true);
    expect(await counters.tryAcquire('busy', 3)).toBe(false);
    await counters.reset('busy');
    for (let i = 0; i < 5; i++) await counters.release('busy');
    expect(await counters.tryAcquire('busy', 1)).toBe(true);
  });

  it("reads a period's credits and the account's limit together, with or without either", async () => {
    expect(await counters.getCreditStanding('standing', '2026-11')).toEqual({ creditsUsed: 0 });
    await counters.addCredits('standing', '2026-11', 1.25);
    await counters.addCredits('standing', '2026-10', 9);
    expect(await counters.getCreditStanding('standing', '2026-11')).toEqual({ creditsUsed: 1.25 });
    await counters.setCreditLimit('standing', 40);
    await counters.addStorageBytes('standing', 1000);
    expect(await counters.getCreditStanding('standing', '2026-11')).toEqual({
      creditsUsed: 1.25,
      creditLimit: 40,
    });
    expect(await counters.getCreditStanding('standing', '2026-12')).toEqual({
      creditsUsed: 0,
      creditLimit: 40,
    });
  });

  it('hands out unique query ids under concurrency and guards versions', async () => {
    const ids = await Promise.all(Array.from({ length: 25 }, () => queries.nextQueryId()));
    expect(new Set(ids).size).toBe(25);
    const now = new Date().toISOString();
    await queries.create({
      queryId: ids[0]!,
      accountId: 'a',
      ownerHandle: 'a',
      name: 'q',
      description: '',
      querySql: 'select 1',
      parameters: [],
      tags: [],
      isPrivate: false,
      isArchived: false,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
    const [first, second] = await Promise.allSettled([
      queries.update(ids[0]!, 1, { name: 'one' }, now),
      queries.update(ids[0]!, 1, { name: 'two' }, now),
    ]);
    expect([first.status, second.status].sort()).toEqual(['fulfilled', 'rejected']);
    expect((await queries.get(ids[0]!))?.version).toBe(2);
  });

  it('creates a pipeline of many nodes in batches, the header last, and never twice', async () => {
    const pipelines = new DynamoPipelineStore(doc, SERVICE_TABLE.localName);
    const pipelineExecutionId = newId();
    const nodes: PipelineNodeRun[] = Array.from({ length: 60 }, (_, i) => ({
      pipelineExecutionId,
      nodeId: i + 1,
      kind: 'query_execution',
      queryId: i + 1,
      performance: 'medium',
      dependencies: i === 0 ? [] : [i],
      state: 'pending',
    }));
    const execution: PipelineExecution = {
      pipelineExecutionId,
      accountId: 'acct',
      state: 'pending',
      graphHash: 'h',
      graph: { nodes: [] },
      submittedAt: new Date().toISOString(),
    };
    await pipelines.create(execution, nodes);
    const stored = await pipelines.get(pipelineExecutionId);
    expect(stored?.execution.state).toBe('pending');
    expect(stored?.nodes.map((node) => node.nodeId)).toEqual(nodes.map((node) => node.nodeId));
    expect(stored?.nodes[59]).toEqual(nodes[59]);
    // The header is the commit point: a second creation under the same id is refused.
    await expect(pipelines.create(execution, nodes)).rejects.toThrow();
  });

  /** A new private view of account `acct` whose refreshes so far are `lastExecutionIds`. */
  const newView = async (lastExecutionIds: string[]) => {
    const views = new DynamoMaterializedViewStore(doc, SERVICE_TABLE.localName);
    const now = new Date().toISOString();
    const fullName = `mv.acct.result_${newId().toLowerCase()}`;
    await views.create({
      fullName,
      name: fullName.split('.')[2]!,
      accountId: 'acct',
      ownerHandle: 'acct',
      queryId: 1,
      isPrivate: true,
      performance: 'medium',
      lastExecutionIds,
      createdAt: now,
      updatedAt: now,
    } satisfies MaterializedView);
    return { views, fullName };
  };

  it("remembers every one of a view's concurrent refreshes, with or without its list known", async () => {
    const { views, fullName } = await newView([]);
    // Each reads the list and writes it with its id first: all but one find it changed and retry.
    const ids = ['e-1', 'e-2', 'e-3', 'e-4'];
    await Promise.all(ids.map((id) => views.recordRefresh(fullName, id)));
    const recorded = (await views.get(fullName))!.lastExecutionIds;
    expect([...recorded].sort()).toEqual(ids);
    // A list known to the caller and still current: written as given, newest first.
    await views.recordRefresh(fullName, 'e-5', recorded);
    expect((await views.get(fullName))!.lastExecutionIds).toEqual(['e-5', ...recorded]);
    // A stale one (another refresh was recorded since) is read again, not written over.
    await views.recordRefresh(fullName, 'e-6', recorded);
    expect((await views.get(fullName))!.lastExecutionIds).toEqual(['e-6', 'e-5', ...recorded]);
    // Ten are remembered; a deleted view is left alone.
    for (const id of ['e-7', 'e-8', 'e-9', 'e-10', 'e-11']) await views.recordRefresh(fullName, id);
    expect((await views.get(fullName))!.lastExecutionIds).toEqual([
      'e-11',
      'e-10',
      'e-9',
      'e-8',
      'e-7',
      'e-6',
      'e-5',
      ...recorded.slice(0, 3),
    ]);
    await views.delete(fullName);
    await views.recordRefresh(fullName, 'e-12', []);
    expect(await views.get(fullName)).toBeUndefined();
  });

  it('lets one of two refreshes of a view that start together claim it: the other finds the list changed', async () => {
    const { views, fullName } = await newView(['e-0']);
    // Both read ['e-0'] and found nothing running: exactly one claim lands.
    const claims = await Promise.all(['e-a', 'e-b'].map((id) => views.claimRefresh(fullName, id, ['e-0'])));
    expect(claims.filter(Boolean)).toHaveLength(1);
    const winner = claims[0] ? 'e-a' : 'e-b';
    expect((await views.get(fullName))!.lastExecutionIds).toEqual([winner, 'e-0']);
    // Claiming on what is now current works; a deleted view is claimed by nobody.
    expect(await views.claimRefresh(fullName, 'e-c', [winner, 'e-0'])).toBe(true);
    await views.delete(fullName);
    expect(await views.claimRefresh(fullName, 'e-d', [])).toBe(false);
  });

  it("records why a view's scheduled refresh could not start, and clears it, touching nothing else", async () => {
    const { views, fullName } = await newView([]);
    const before = await views.get(fullName);
    const error = {
      at: new Date().toISOString(),
      message: 'Query 1 is archived.',
      pipelineExecutionId: 'p-1',
    };
    await views.recordScheduleError(fullName, error);
    expect(await views.get(fullName)).toEqual({ ...before, scheduleError: error });
    await views.recordScheduleError(fullName, undefined);
    expect(await views.get(fullName)).toEqual(before);
    // A view deleted meanwhile is left alone (not made again).
    await views.delete(fullName);
    await views.recordScheduleError(fullName, error);
    expect(await views.get(fullName)).toBeUndefined();
  });
});
