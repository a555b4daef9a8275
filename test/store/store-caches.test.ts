/**
 * The in-memory caches in front of DynamoDB (issue 13): finished executions, API-key records,
 * credit standings, and the sole writer's (the local host's) pipelines, queries and views. Real stores on dynalite underneath; a second, uncached store on the same table plays
 * another process (the runner Lambda, the admin CLI) writing behind the cache's back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CachedApiKeys } from '../../functions/accounts/api-key-cache';
import { CreditStandingCache } from '../../functions/accounts/credit-standing-cache';
import {
  authenticateApiKey,
  createAccount,
  createApiKey,
  revokeApiKey,
} from '../../functions/accounts/use-cases';
import { DynamoAccountCounters } from '../../functions/aws/dynamo/account-limits-store';
import { DynamoAccountStore } from '../../functions/aws/dynamo/account-store';
import { localDynamoClient } from '../../functions/aws/dynamo/client';
import { DynamoExecutionStore } from '../../functions/aws/dynamo/execution-store';
import { DynamoMaterializedViewStore } from '../../functions/aws/dynamo/materialized-view-store';
import { DynamoPipelineStore } from '../../functions/aws/dynamo/pipeline-store';
import { DynamoQueryStore } from '../../functions/aws/dynamo/query-store';
import { SERVICE_TABLE } from '../../functions/aws/dynamo/table-definitions';
import type { AccountStore } from '../../functions/core/accounts';
import type { UsageStore } from '../../functions/core/credits';
import type { Execution, ExecutionStore } from '../../functions/core/executions';
import { newId } from '../../functions/core/ids';
import type { MaterializedView, MaterializedViewStore } from '../../functions/core/materialized-views';
import type { PipelineExecution, PipelineNodeRun, PipelineStore } from '../../functions/core/pipelines';
import type { QueryStore, SavedQuery } from '../../functions/core/queries';
import { FinishedExecutionCache } from '../../functions/executions/finished-execution-cache';
import { ensureTables, type LocalDynamo, startDynalite } from '../../functions/local/dynalite';
import { SoleWriterViewCache } from '../../functions/matviews/view-cache';
import { SoleWriterPipelineCache } from '../../functions/pipelines/pipeline-cache';
import { SoleWriterQueryCache } from '../../functions/queries/query-cache';

/** Counts reads that reach the store (a decorator, like the cache it observes). */
function counting<T extends object>(store: T, method: keyof T): { store: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (name !== method || typeof value !== 'function')
        return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        reads++;
        return value.apply(target, args);
      };
    },
  });
  return { store: proxy, reads: () => reads };
}

describe('caches in front of DynamoDB', () => {
  let dynamo: LocalDynamo;
  let executions: DynamoExecutionStore;
  let accounts: DynamoAccountStore;
  let pipelines: DynamoPipelineStore;
  let doc: ReturnType<typeof localDynamoClient>['doc'];
  beforeAll(async () => {
    dynamo = await startDynalite();
    const local = localDynamoClient(dynamo.endpoint);
    await ensureTables(local.client);
    doc = local.doc;
    executions = new DynamoExecutionStore(doc, SERVICE_TABLE.localName);
    accounts = new DynamoAccountStore(doc, SERVICE_TABLE.localName);
    pipelines = new DynamoPipelineStore(doc, SERVICE_TABLE.localName);
  });
  afterAll(() => dynamo?.close());

  const pending = (): Execution => ({
    executionId: newId(),
    accountId: 'acct',
    queryId: 0,
    sql: 'select 1',
    tier: 'medium',
    timeoutMs: 1000,
    state: 'QUERY_STATE_PENDING',
    submittedAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  });

  describe('FinishedExecutionCache', () => {
    it('serves a completed execution from memory, as a copy nobody can change', async () => {
      const { store, reads } = counting<ExecutionStore>(executions, 'get');
      const cache = new FinishedExecutionCache(store);
      const execution = pending();
      await executions.create(execution);
      await executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_COMPLETED',
        credits: 1.5,
      });
      const first = await cache.get(execution.executionId);
      expect(first?.state).toBe('QUERY_STATE_COMPLETED');
      first!.credits = 999;
      const second = await cache.get(execution.executionId);
      expect(second?.credits).toBe(1.5);
      expect(reads()).toBe(1);
    });

    it('never serves a pending, executing or cancelled execution stale', async () => {
      const cache = new FinishedExecutionCache(executions);
      const execution = pending();
      await executions.create(execution);
      expect((await cache.get(execution.executionId))?.state).toBe('QUERY_STATE_PENDING');
      // Another process moves it on: the next read through the cache sees it.
      await executions.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_EXECUTING',
      });
      expect((await cache.get(execution.executionId))?.state).toBe('QUERY_STATE_EXECUTING');
      // A cancel through the cache, then the runner (elsewhere) adds the engine time it was charged.
      await cache.transition(execution.executionId, ['QUERY_STATE_EXECUTING'], {
        state: 'QUERY_STATE_CANCELLED',
      });
      await executions.transition(execution.executionId, ['QUERY_STATE_CANCELLED'], { credits: 0.25 });
      expect(await cache.get(execution.executionId)).toMatchObject({
        state: 'QUERY_STATE_CANCELLED',
        credits: 0.25,
      });
      expect(cache.size).toBe(0);
    });

    it('as the sole writer (the local host), serves every execution it wrote, exactly as stored', async () => {
      const { store, reads } = counting<ExecutionStore>(executions, 'get');
      const cache = new FinishedExecutionCache(store, 100, true);
      const execution = pending();
      await cache.create(execution);
      expect(await cache.get(execution.executionId)).toEqual(await executions.get(execution.executionId));
      await cache.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_EXECUTING',
        engineRunId: 'run-1',
      });
      // A transition whose condition fails writes nothing, and the cache still agrees with the store.
      expect(
        await cache.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
          state: 'QUERY_STATE_FAILED',
        }),
      ).toBeUndefined();
      const cached = await cache.get(execution.executionId);
      expect(cached).toMatchObject({ state: 'QUERY_STATE_EXECUTING', engineRunId: 'run-1' });
      expect(cached).toEqual(await executions.get(execution.executionId));
      expect(reads()).toBe(0);
    });

    it('as the sole writer, lists an account’s active executions from memory once read, kept exact by its writes', async () => {
      const { store, reads } = counting<ExecutionStore>(executions, 'listActive');
      const cache = new FinishedExecutionCache(store, 100, true);
      const of = (accountId: string): Execution => ({ ...pending(), accountId });
      const older = of('acct-active');
      await executions.create(older); // written before this process started (as after a restart)
      const ids = async () => (await cache.listActive('acct-active')).map((e) => e.executionId);
      // A create that lands while the first read is in flight is not lost.
      const during = of('acct-active');
      const [first] = await Promise.all([ids(), cache.create(during)]);
      expect(first).toContain(older.executionId);
      expect(await ids()).toEqual([older.executionId, during.executionId]);
      await cache.transition(older.executionId, ['QUERY_STATE_PENDING'], { state: 'QUERY_STATE_COMPLETED' });
      const later = of('acct-active');
      await cache.create(later);
      expect(await ids()).toEqual([during.executionId, later.executionId]);
      expect(await ids()).toEqual((await executions.listActive('acct-active')).map((e) => e.executionId));
      expect(reads()).toBe(1);
    });

    it('as the sole writer, a read that overlaps a transition of the execution answers the state it writes', async () => {
      // The store holds each transition back until the test lets it through.
      const held: (() => void)[] = [];
      const slow = new Proxy(executions, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (name !== 'transition') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: Parameters<ExecutionStore['transition']>) => {
            await new Promise<void>((resolve) => held.push(resolve));
            return target.transition(...args);
          };
        },
      });
      const cache = new FinishedExecutionCache(slow, 100, true);
      const execution = pending();
      await cache.create(execution);
      const ending = cache.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_COMPLETED',
      });
      const read = cache.get(execution.executionId);
      const other = pending();
      await cache.create(other);
      // A read of another execution does not wait.
      expect((await cache.get(other.executionId))?.state).toBe('QUERY_STATE_PENDING');
      held.shift()!();
      expect((await read)?.state).toBe('QUERY_STATE_COMPLETED');
      await ending;
      // A transition whose condition fails leaves the read with the state as it was.
      const failing = cache.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
        state: 'QUERY_STATE_FAILED',
      });
      const after = cache.get(execution.executionId);
      await Promise.resolve();
      held.shift()!();
      expect(await failing).toBeUndefined();
      expect((await after)?.state).toBe('QUERY_STATE_COMPLETED');
    });

    it('as the sole writer, wakes a reader waiting for an execution to change at its write, one seen late included', async () => {
      const cache = new FinishedExecutionCache(executions, 100, true);
      const execution = pending();
      await cache.create(execution);
      const id = execution.executionId;
      // Woken by the write, long before the 10 s it would otherwise wait.
      const started = performance.now();
      const waiting = cache.changed(id, 'QUERY_STATE_PENDING', 10_000);
      await cache.transition(id, ['QUERY_STATE_PENDING'], { state: 'QUERY_STATE_EXECUTING' });
      await waiting;
      expect(performance.now() - started).toBeLessThan(5_000);
      // A change that landed before the reader began to wait (it read PENDING earlier) ends the wait at once.
      const late = performance.now();
      await cache.changed(id, 'QUERY_STATE_PENDING', 10_000);
      expect(performance.now() - late).toBeLessThan(5_000);
      // Nothing changes: the wait lasts its time.
      const quiet = performance.now();
      await cache.changed(id, 'QUERY_STATE_EXECUTING', 200);
      expect(performance.now() - quiet).toBeGreaterThanOrEqual(190);
      // Another execution's write does not wake it.
      const other = pending();
      await cache.create(other);
      const unrelated = performance.now();
      const stillWaiting = cache.changed(id, 'QUERY_STATE_EXECUTING', 300);
      await cache.transition(other.executionId, ['QUERY_STATE_PENDING'], { state: 'QUERY_STATE_EXECUTING' });
      await stillWaiting;
      expect(performance.now() - unrelated).toBeGreaterThanOrEqual(290);
    });

    it('in a process of many writers (AWS), a waiting reader is told to read again after at most 250 ms', async () => {
      const cache = new FinishedExecutionCache(executions, 100, false);
      const started = performance.now();
      await cache.changed(newId(), 'QUERY_STATE_EXECUTING', 10_000);
      const waited = performance.now() - started;
      expect(waited).toBeGreaterThanOrEqual(240);
      expect(waited).toBeLessThan(5_000);
    });

    it('caches a run that ends through it, and stays bounded (least recently used out first)', async () => {
      const { store, reads } = counting<ExecutionStore>(executions, 'get');
      const cache = new FinishedExecutionCache(store, 2);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const execution = pending();
        await cache.create(execution);
        await cache.transition(execution.executionId, ['QUERY_STATE_PENDING'], {
          state: 'QUERY_STATE_FAILED',
        });
        ids.push(execution.executionId);
      }
      expect(cache.size).toBe(2);
      await cache.get(ids[2]!);
      await cache.get(ids[1]!);
      expect(reads()).toBe(0);
      await cache.get(ids[0]!); // evicted first: read again
      expect(reads()).toBe(1);
      expect(cache.size).toBe(2);
    });
  });

  describe('SoleWriterPipelineCache (the local host writes every pipeline record)', () => {
    const pipeline = (): { execution: PipelineExecution; nodes: PipelineNodeRun[] } => {
      const id = newId();
      const graph = {
        nodes: [1, 2].map((nodeId) => ({
          id: nodeId,
          dependencies: nodeId === 2 ? [1] : [],
          queryExecution: { queryId: 7, performance: 'medium' as const },
        })),
      };
      return {
        execution: {
          pipelineExecutionId: id,
          accountId: 'acct',
          state: 'pending',
          graphHash: 'h',
          graph,
          submittedAt: new Date().toISOString(),
        },
        nodes: graph.nodes.map((node) => ({
          pipelineExecutionId: id,
          nodeId: node.id,
          kind: 'query_execution',
          queryId: 7,
          performance: 'medium',
          dependencies: node.dependencies,
          state: 'pending',
        })),
      };
    };

    it('serves a pipeline it created from memory, exactly as stored after its own writes', async () => {
      const { store, reads } = counting<PipelineStore>(pipelines, 'get');
      const cache = new SoleWriterPipelineCache(store);
      const { execution, nodes } = pipeline();
      // Given out of order, one with a property left undefined: the store sorts and drops it.
      await cache.create(execution, [{ ...nodes[1]!, error: undefined }, nodes[0]!]);
      const id = execution.pipelineExecutionId;
      const created = await cache.get(id);
      expect(created).toStrictEqual(await pipelines.get(id));
      expect(reads()).toBe(0);
      await cache.transition(id, ['pending'], { state: 'executing', startedAt: new Date().toISOString() });
      await cache.transitionNode(id, 1, ['pending'], { state: 'running', executionId: 'e-1' });
      // A write whose condition fails changes nothing, in the store or the cache.
      expect(await cache.transitionNode(id, 2, ['running'], { state: 'failed' })).toBeUndefined();
      const cached = await cache.get(id);
      expect(cached).toEqual(await pipelines.get(id));
      expect(cached!.nodes.map((node) => node.state)).toEqual(['running', 'pending']);
      expect(await cache.getNode(id, 1)).toMatchObject({ executionId: 'e-1' });
      // Answers are copies: changing one does not change the next.
      cached!.execution.state = 'failed';
      expect((await cache.get(id))!.execution.state).toBe('executing');
      expect(reads()).toBe(0);
    });

    it('moves a run once when its root nodes all try at once, without writes the store must refuse', async () => {
      const { store, reads: writes } = counting<PipelineStore>(pipelines, 'transition');
      const cache = new SoleWriterPipelineCache(store);
      const { execution, nodes } = pipeline();
      await cache.create(execution, nodes);
      const id = execution.pipelineExecutionId;
      const startedAt = new Date().toISOString();
      const tries = await Promise.all(
        [1, 2, 3].map(() => cache.transition(id, ['pending'], { state: 'executing', startedAt })),
      );
      expect(tries.filter(Boolean)).toHaveLength(1);
      expect(writes()).toBe(1);
      expect((await pipelines.get(id))!.execution.state).toBe('executing');
      // A transition the stored state allows still goes to the store, after the one before it.
      const [finished, cancelled] = await Promise.all([
        cache.transition(id, ['executing'], { state: 'completed', endedAt: startedAt }),
        cache.transition(id, ['pending', 'executing'], { state: 'cancelled', endedAt: startedAt }),
      ]);
      expect(finished?.state).toBe('completed');
      expect(cancelled).toBeUndefined();
      expect(writes()).toBe(2);
      expect((await cache.get(id))!.execution).toEqual((await pipelines.get(id))!.execution);
      // Not cached (another process's run, or evicted): the store decides.
      const other = pipeline();
      await pipelines.create(other.execution, other.nodes);
      const fresh = new SoleWriterPipelineCache(store);
      expect(
        await fresh.transition(other.execution.pipelineExecutionId, ['executing'], { state: 'failed' }),
      ).toBeUndefined();
      expect(writes()).toBe(3);
    });

    it('applies a write that lands while the first read is in flight', async () => {
      const cache = new SoleWriterPipelineCache(pipelines);
      const { execution, nodes } = pipeline();
      await pipelines.create(execution, nodes);
      const id = execution.pipelineExecutionId;
      await Promise.all([cache.get(id), cache.transitionNode(id, 2, ['pending'], { state: 'skipped' })]);
      expect(await cache.get(id)).toEqual(await pipelines.get(id));
      expect((await cache.getNode(id, 2))!.state).toBe('skipped');
    });
  });

  describe('SoleWriterQueryCache and SoleWriterViewCache (the local host writes every query and view)', () => {
    const savedQuery = async (store: QueryStore): Promise<SavedQuery> => {
      const now = new Date().toISOString();
      const query = {
        queryId: await store.nextQueryId(),
        accountId: 'acct',
        ownerHandle: 'local',
        name: 'daily volume',
        querySql: 'select 1',
        parameters: [],
        isPrivate: true,
        isArchived: false,
        version: 1,
        createdAt: now,
        updatedAt: now,
      } as unknown as SavedQuery;
      await store.create(query);
      return query;
    };
    const view = (name: string, accountId: string, isPrivate: boolean): MaterializedView => {
      const now = new Date().toISOString();
      return {
        fullName: `mv.${accountId}.${name}`,
        name,
        accountId,
        ownerHandle: accountId,
        queryId: 1,
        isPrivate,
        performance: 'medium',
        lastExecutionIds: [],
        createdAt: now,
        updatedAt: now,
      };
    };

    it('serves a query read once from memory, and what its own writes changed after them', async () => {
      const queries = new DynamoQueryStore(doc, SERVICE_TABLE.localName);
      const { store, reads } = counting<QueryStore>(queries, 'get');
      const cache = new SoleWriterQueryCache(store);
      const { queryId } = await savedQuery(cache);
      const first = await cache.get(queryId);
      expect(await cache.get(queryId)).toEqual(first);
      expect(reads()).toBe(1);
      // Answers are copies: changing one does not change the next.
      first!.querySql = 'changed by a caller';
      expect((await cache.get(queryId))!.querySql).toBe('select 1');
      await cache.update(queryId, 1, { querySql: 'select 2' }, new Date().toISOString());
      await cache.setLatestCompletedExecution(queryId, 'e-1');
      expect(await cache.get(queryId)).toEqual(await queries.get(queryId));
      expect(await cache.get(queryId)).toMatchObject({
        querySql: 'select 2',
        latestCompletedExecutionId: 'e-1',
      });
      expect(reads()).toBe(2);
      // A run's end keeps the cached query with its latest result: no read for the next run. An
      // older run finishing late does not replace a newer result, in the store or in the cache.
      await cache.setLatestCompletedExecution(queryId, 'e-3');
      await cache.setLatestCompletedExecution(queryId, 'e-2');
      expect(await cache.get(queryId)).toEqual(await queries.get(queryId));
      expect((await cache.get(queryId))!.latestCompletedExecutionId).toBe('e-3');
      expect(reads()).toBe(2);
    });

    it('does not keep a query read while it was being written', async () => {
      const queries = new DynamoQueryStore(doc, SERVICE_TABLE.localName);
      const cache = new SoleWriterQueryCache(queries);
      const { queryId } = await savedQuery(queries);
      await Promise.all([
        cache.get(queryId),
        cache.update(queryId, 1, { querySql: 'select 3' }, new Date().toISOString()),
      ]);
      expect((await cache.get(queryId))!.querySql).toBe('select 3');
    });

    it('serves views and readable lists from memory until a view is written, by any account', async () => {
      const views = new DynamoMaterializedViewStore(doc, SERVICE_TABLE.localName);
      const { store, reads } = counting<MaterializedViewStore>(views, 'listReadableBy');
      const cache = new SoleWriterViewCache(store);
      const reader = `reader-${newId()}`;
      const other = `other-${newId()}`;
      const own = view('result_own', reader, true);
      await cache.create(own);
      expect((await cache.listReadableBy(reader)).map((v) => v.fullName)).toEqual([own.fullName]);
      expect(await cache.listReadableBy(reader)).toHaveLength(1);
      expect(reads()).toBe(1);
      // Another account publishes a public view: every account's readable list changes.
      const shared = view('result_shared', other, false);
      await cache.create(shared);
      expect((await cache.listReadableBy(reader)).map((v) => v.fullName).sort()).toEqual(
        [own.fullName, shared.fullName].sort(),
      );
      await cache.update(shared.fullName, { isPrivate: true }, new Date().toISOString());
      expect((await cache.listReadableBy(reader)).map((v) => v.fullName)).toEqual([own.fullName]);
      // A refresh published through the cache is what the next read sees.
      const version = {
        executionId: 'e-9',
        columns: [],
        rowCount: 3,
        tableSizeBytes: 10,
        refreshedAt: new Date().toISOString(),
      };
      expect(await cache.publish(own.fullName, version)).toBe(true);
      expect(await cache.get(own.fullName)).toEqual(await views.get(own.fullName));
      expect(await cache.get(own.fullName)).toMatchObject({ currentExecutionId: 'e-9', rowCount: 3 });
      // Why a scheduled refresh could not start, recorded and cleared through the cache.
      const error = { at: new Date().toISOString(), message: 'no start' };
      await cache.recordScheduleError(own.fullName, error);
      expect(await cache.get(own.fullName)).toEqual(await views.get(own.fullName));
      expect((await cache.get(own.fullName))?.scheduleError).toEqual(error);
      await cache.recordScheduleError(own.fullName, undefined);
      expect(await cache.get(own.fullName)).toEqual(await views.get(own.fullName));
      expect((await cache.get(own.fullName))?.scheduleError).toBeUndefined();
      await cache.delete(own.fullName);
      expect(await cache.get(own.fullName)).toBeUndefined();
      expect(await cache.listReadableBy(reader)).toEqual([]);
    });

    it('keeps a readable list and its views across a refresh: the next list reads nothing', async () => {
      const views = new DynamoMaterializedViewStore(doc, SERVICE_TABLE.localName);
      const listed = counting<MaterializedViewStore>(views, 'listReadableBy');
      const fetched = counting<MaterializedViewStore>(listed.store, 'get');
      const cache = new SoleWriterViewCache(fetched.store);
      const reader = `reader-${newId()}`;
      const [a, b] = [view('result_a', reader, true), view('result_b', reader, true)];
      await cache.create(a);
      await cache.create(b);
      const names = (list: MaterializedView[]) => list.map((v) => v.fullName);
      expect(names(await cache.listReadableBy(reader))).toEqual([a.fullName, b.fullName]);
      // Kept as names: the views come from the view cache (read once each), the list is not queried again.
      await cache.listReadableBy(reader);
      expect(await cache.listReadableBy(reader)).toEqual(await views.listReadableBy(reader));
      expect([listed.reads(), fetched.reads()]).toEqual([1, 2]);
      // A refresh (its execution recorded, then its version published) changes no list's
      // membership, and the view's record is kept with what the two writes changed.
      const refreshedAt = new Date().toISOString();
      await cache.recordRefresh(a.fullName, 'e-1');
      await cache.publish(a.fullName, {
        executionId: 'e-1',
        columns: [],
        rowCount: 2,
        tableSizeBytes: 9,
        refreshedAt,
      });
      const afterRefresh = await cache.listReadableBy(reader);
      expect(afterRefresh).toEqual(await views.listReadableBy(reader));
      expect(afterRefresh[0]).toMatchObject({
        currentExecutionId: 'e-1',
        lastExecutionIds: ['e-1'],
        rowCount: 2,
      });
      expect([listed.reads(), fetched.reads()]).toEqual([1, 2]);
      // A version older than the published one is not published, in the store or in the cache.
      const older = { executionId: 'e-0', columns: [], rowCount: 1, tableSizeBytes: 1, refreshedAt };
      expect(await cache.publish(a.fullName, older)).toBe(false);
      expect(await cache.get(a.fullName)).toEqual(await views.get(a.fullName));
      expect(fetched.reads()).toBe(2);
      // A view created or deleted changes the lists: they are queried again.
      const c = view('result_c', reader, true);
      await cache.create(c);
      expect(names(await cache.listReadableBy(reader))).toEqual([a.fullName, b.fullName, c.fullName]);
      await cache.delete(b.fullName);
      expect(names(await cache.listReadableBy(reader))).toEqual([a.fullName, c.fullName]);
      expect(listed.reads()).toBe(3);
      // A view gone by the time its record is read (as when a delete races a list) drops out of the list.
      await views.delete(c.fullName);
      await cache.recordRefresh(c.fullName, 'e-2');
      expect(names(await cache.listReadableBy(reader))).toEqual([a.fullName]);
    });
  });

  describe('CachedApiKeys', () => {
    const setup = async (handle: string) => {
      let stamp = 0;
      const { store, reads } = counting<AccountStore>(accounts, 'getApiKey');
      let clock = 1_000_000;
      const cache = new CachedApiKeys(store, {
        ttlMs: 60_000,
        capacity: 100,
        revocations: () => String(stamp),
        now: () => clock,
      });
      const account = await createAccount(accounts, { handle });
      const key = await createApiKey(accounts, account.accountId, 'k');
      return {
        cache,
        key,
        reads,
        revokedElsewhere: () => stamp++,
        advance: (ms: number) => {
          clock += ms;
        },
      };
    };

    it('authenticates from memory after the first request, for one account only', async () => {
      const { cache, key, reads } = await setup('cache_a');
      const other = await setup('cache_b');
      expect((await authenticateApiKey(cache, key.apiKey)).handle).toBe('cache_a');
      expect((await authenticateApiKey(cache, key.apiKey)).handle).toBe('cache_a');
      expect(reads()).toBe(1);
      // The same cache never answers one key with another key's account.
      expect((await authenticateApiKey(cache, other.key.apiKey)).handle).toBe('cache_b');
      await expect(authenticateApiKey(cache, `${key.apiKey.slice(0, -4)}AAAA`)).rejects.toThrow(
        /Invalid API key/,
      );
    });

    it('a revocation through the cache takes effect on the next request', async () => {
      const { cache, key } = await setup('cache_c');
      await authenticateApiKey(cache, key.apiKey);
      await revokeApiKey(cache, key.record.prefix);
      await expect(authenticateApiKey(cache, key.apiKey)).rejects.toThrow(/revoked/);
    });

    it('a revocation by another process takes effect as soon as the revocation signal changes', async () => {
      const { cache, key, revokedElsewhere } = await setup('cache_d');
      await authenticateApiKey(cache, key.apiKey);
      await revokeApiKey(accounts, key.record.prefix); // the admin CLI, straight to the table
      revokedElsewhere(); // ...and it appends to the revocation log
      await expect(authenticateApiKey(cache, key.apiKey)).rejects.toThrow(/revoked/);
    });

    it('re-reads a key after the time to live even without a signal, and never caches a revoked key', async () => {
      const { cache, key, reads, advance } = await setup('cache_e');
      await authenticateApiKey(cache, key.apiKey);
      await revokeApiKey(accounts, key.record.prefix); // no signal: only the TTL bounds it
      advance(60_001);
      await expect(authenticateApiKey(cache, key.apiKey)).rejects.toThrow(/revoked/);
      await expect(authenticateApiKey(cache, key.apiKey)).rejects.toThrow(/revoked/);
      expect(reads()).toBe(3);
    });

    it('keeps accounts read by id (they never change), as copies, and reads an unknown id each time', async () => {
      const { store, reads } = counting<AccountStore>(accounts, 'getAccount');
      const cache = new CachedApiKeys(store, { ttlMs: 60_000, capacity: 100, revocations: () => '0' });
      const account = await createAccount(accounts, { handle: 'cache_f' });
      const first = await cache.getAccount(account.accountId);
      expect(first).toEqual(account);
      first!.name = 'changed by a caller';
      expect(await cache.getAccount(account.accountId)).toEqual(account);
      expect(reads()).toBe(1);
      expect(await cache.getAccount('01HKZJ0000000000000000000Z')).toBeUndefined();
      expect(await cache.getAccount('01HKZJ0000000000000000000Z')).toBeUndefined();
      expect(reads()).toBe(3);
    });
  });

  describe('CreditStandingCache (the local host records every run’s credits)', () => {
    const period = '2026-11';
    const counters = () => new DynamoAccountCounters(doc, SERVICE_TABLE.localName);

    it('reads a standing once, then adds the credits it records and applies the limits it sets', async () => {
      const accountId = newId();
      const { store, reads } = counting<UsageStore>(counters(), 'getCreditStanding');
      const cache = new CreditStandingCache(store, { capacity: 100, limitChanges: () => 'none' });
      expect(await cache.getCreditStanding(accountId, period)).toEqual({ creditsUsed: 0 });
      await cache.addCredits(accountId, period, 1.5);
      await cache.setCreditLimit(accountId, 10);
      expect(await cache.getCreditStanding(accountId, period)).toEqual({ creditsUsed: 1.5, creditLimit: 10 });
      expect(reads()).toBe(1);
      // What it serves is what DynamoDB holds.
      expect(await counters().getCreditStanding(accountId, period)).toEqual({
        creditsUsed: 1.5,
        creditLimit: 10,
      });
    });

    it('drops every standing when another process sets a limit (the admin CLI’s log changes)', async () => {
      const accountId = newId();
      let log = 'v1';
      const cache = new CreditStandingCache(counters(), { capacity: 100, limitChanges: () => log });
      await cache.getCreditStanding(accountId, period);
      await counters().setCreditLimit(accountId, 0.5); // behind the cache's back
      expect(await cache.getCreditStanding(accountId, period)).toEqual({ creditsUsed: 0 });
      log = 'v2';
      expect(await cache.getCreditStanding(accountId, period)).toEqual({ creditsUsed: 0, creditLimit: 0.5 });
    });

    it('does not keep a standing read while credits were being added', async () => {
      const accountId = newId();
      const store = counters();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      // The first read answers only after the add has landed: it read the value before the add.
      const slowFirstRead: UsageStore = Object.assign(Object.create(store), {
        getCreditStanding: async (id: string, p: string) => {
          const standing = await store.getCreditStanding(id, p);
          await gate;
          return standing;
        },
      });
      const cache = new CreditStandingCache(slowFirstRead, { capacity: 100, limitChanges: () => 'none' });
      const racing = cache.getCreditStanding(accountId, period);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await cache.addCredits(accountId, period, 2);
      release();
      expect(await racing).toEqual({ creditsUsed: 0 });
      // Not cached: the next read sees the add.
      expect(await cache.getCreditStanding(accountId, period)).toEqual({ creditsUsed: 2 });
    });

    it('reads an account’s stored bytes once, then adds what it records; a read racing an add is not kept', async () => {
      const accountId = newId();
      const { store, reads } = counting<UsageStore>(counters(), 'getStorageBytes');
      await counters().addStorageBytes(accountId, 100); // stored before this process started
      const cache = new CreditStandingCache(store, { capacity: 100, limitChanges: () => 'none' });
      expect(await cache.getStorageBytes(accountId)).toBe(100);
      await cache.addStorageBytes(accountId, 50);
      expect(await cache.getStorageBytes(accountId)).toBe(150);
      expect(reads()).toBe(1);
      expect(await counters().getStorageBytes(accountId)).toBe(150);

      const other = newId();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slowRead: UsageStore = Object.assign(Object.create(counters()), {
        getStorageBytes: async (id: string) => {
          const bytes = await counters().getStorageBytes(id);
          await gate;
          return bytes;
        },
      });
      const racingCache = new CreditStandingCache(slowRead, { capacity: 100, limitChanges: () => 'none' });
      const racing = racingCache.getStorageBytes(other);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await racingCache.addStorageBytes(other, 7);
      release();
      expect(await racing).toBe(0);
      expect(await racingCache.getStorageBytes(other)).toBe(7);
    });
  });
});
