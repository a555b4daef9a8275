import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../functions/core/ids';
import { startNode } from '../../functions/pipelines/node-steps';
import { createNodeRunner } from '../../functions/runner/node-runner';
import { RUNAWAY_SQL, submitSql, waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

describe('query pipelines: lineage, generated workflow, per-node status, failure, cancel and retry', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const createQuery = async (sql: string) =>
    (await bodyOf(await host.call('/v1/query', { json: { name: 'pipeline part', query_sql: sql } })))
      .query_id as number;
  const materialize = async (name: string, sql: string) => {
    const queryId = await createQuery(sql);
    const upsert = await bodyOf(
      await host.call('/v1/materialized-views', { json: { name, query_id: queryId } }),
    );
    expect((await waitUntilFinished(host, upsert.execution_id)).state).toBe('QUERY_STATE_COMPLETED');
    return queryId;
  };
  const waitForPipeline = async (id: string, timeoutMs = 60_000): Promise<Json> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status`));
      if (['completed', 'failed', 'cancelled'].includes(status.status)) return status;
      if (Date.now() > deadline) throw new Error(`pipeline never finished: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const node = (status: Json, id: number) => {
    const entry = status.node_executions.find((n: Json) => n.id === id);
    return entry.query_execution_status ?? entry.materialized_view_refresh_status;
  };

  it('builds the pipeline from lineage through CTEs, subqueries and unions, and runs it in dependency order', async () => {
    const a = await materialize(
      'result_pipe_a',
      'select blockchain, count(*) as n from dex.trades group by 1',
    );
    const b = await materialize('result_pipe_b', 'select symbol, avg(price) as p from prices.usd group by 1');
    const c = await materialize(
      'result_pipe_c',
      'with x as (select * from mv.local.result_pipe_a) select x.blockchain, x.n, (select count(*) from mv.local.result_pipe_b) as tokens from x',
    );
    const root = await createQuery(
      'select blockchain, n from mv.local.result_pipe_c union all select blockchain, n from mv.local.result_pipe_a where blockchain in (select blockchain from dex.trades)',
    );
    const definition = await bodyOf(await host.call(`/v1/query/${root}/pipeline?performance=large`));
    expect(definition.pipeline.nodes).toEqual([
      {
        id: 1,
        dependencies: [],
        materialized_view_refresh: { name: 'mv.local.result_pipe_a', performance: 'large' },
      },
      {
        id: 2,
        dependencies: [],
        materialized_view_refresh: { name: 'mv.local.result_pipe_b', performance: 'large' },
      },
      {
        id: 3,
        dependencies: [1, 2],
        materialized_view_refresh: { name: 'mv.local.result_pipe_c', performance: 'large' },
      },
      { id: 4, dependencies: [1, 3], query_execution: { query_id: root, performance: 'large' } },
    ]);
    expect(definition.execution_order).toEqual([[1, 2], [3], [4]]);
    expect(definition.estimated_bytes_scanned).toBeGreaterThan(0);
    expect([a, b, c].every(Number.isInteger)).toBe(true);

    const usageBefore = await bodyOf(await host.call('/v1/usage', { method: 'POST' }));
    // Each charge lands 300 ms late: a node's Task that answered before its run's last writes
    // would let the pipeline read completed before its usage does.
    const { usage } = host.services;
    const addCredits = usage.addCredits.bind(usage);
    usage.addCredits = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return addCredits(...args);
    };
    const started = await bodyOf(await host.call(`/v1/query/${root}/pipeline/execute`, { json: {} }));
    expect(started.pipeline_execution_id).toMatch(/^01[0-9A-Z]{24}$/);
    const status = await waitForPipeline(started.pipeline_execution_id).finally(() => {
      usage.addCredits = addCredits;
    });
    expect(status.status).toBe('completed');
    expect(status.execution_cost_credits).toBeGreaterThan(0);
    for (const id of [1, 2, 3, 4]) expect(node(status, id).status).toBe('completed');
    // A node ends alongside its run's last writes, and its Task answers only once they are done:
    // when the pipeline reads completed, every node's credits and result bytes are counted.
    const usageAfter = await bodyOf(await host.call('/v1/usage', { method: 'POST' }));
    expect(
      usageAfter.billing_periods[0].credits_used - usageBefore.billing_periods[0].credits_used,
    ).toBeCloseTo(status.execution_cost_credits, 6);
    expect(usageAfter.bytes_used).toBeGreaterThan(usageBefore.bytes_used);
    // A node starts only after every dependency ended.
    expect(Date.parse(node(status, 3).started_at)).toBeGreaterThanOrEqual(
      Date.parse(node(status, 1).ended_at),
    );
    expect(Date.parse(node(status, 3).started_at)).toBeGreaterThanOrEqual(
      Date.parse(node(status, 2).ended_at),
    );
    expect(Date.parse(node(status, 4).started_at)).toBeGreaterThanOrEqual(
      Date.parse(node(status, 3).ended_at),
    );
    // Each query node's execution reads like any execution.
    const results = await bodyOf(await host.call(`/v1/execution/${node(status, 4).execution_id}/results`));
    expect(results.result.metadata.row_count).toBe(6);
  }, 60_000); // seven runs one after the other; the first also waits for the engine process to start

  /**
   * A one-node pipeline run whose node is cancelled just before a start's claim lands (a cancel
   * landing as it starts), while the start creates the node's execution: `start` runs then.
   */
  async function startCancelledAsItStarts(start: (pipelineExecutionId: string) => Promise<unknown>) {
    const queryId = await createQuery('select 1 as one');
    const id = newId();
    const graph = {
      nodes: [{ id: 1, dependencies: [], queryExecution: { queryId, performance: 'medium' as const } }],
    };
    await host.services.pipelines.create(
      {
        pipelineExecutionId: id,
        accountId: host.accountId,
        state: 'pending',
        graphHash: 'h',
        graph,
        submittedAt: new Date().toISOString(),
      },
      [
        {
          pipelineExecutionId: id,
          nodeId: 1,
          kind: 'query_execution',
          queryId,
          performance: 'medium',
          dependencies: [],
          state: 'pending',
        },
      ],
    );
    const { pipelines, executions } = host.services;
    const [transitionNode, create] = [
      pipelines.transitionNode.bind(pipelines),
      executions.create.bind(executions),
    ];
    const created: string[] = [];
    pipelines.transitionNode = async (pipelineId, nodeId, from, changes) => {
      if (changes.state === 'running')
        await transitionNode(pipelineId, nodeId, ['pending'], { state: 'cancelled' });
      return transitionNode(pipelineId, nodeId, from, changes);
    };
    executions.create = async (execution) => {
      created.push(execution.executionId);
      return create(execution);
    };
    try {
      const answer = await start(id);
      expect(created).toHaveLength(1);
      expect(await executions.get(created[0]!)).toMatchObject({
        state: 'QUERY_STATE_CANCELLED',
        pipelineExecutionId: id,
      });
      expect((await executions.listActive(host.accountId)).map((e) => e.executionId)).not.toContain(
        created[0],
      );
      return answer;
    } finally {
      Object.assign(pipelines, { transitionNode });
      Object.assign(executions, { create });
    }
  }

  it('cancels the execution it made for a node claimed meanwhile (a cancel landing as it starts)', async () => {
    const answer = await startCancelledAsItStarts((id) => startNode(host.services, id, 1));
    expect(answer).toEqual({ state: 'cancelled' });
  });

  it('gives back the slot its Start step took while the node was claimed by someone else', async () => {
    const before = await host.services.limiter.running(host.accountId);
    const runner = createNodeRunner(host.services);
    const answer = await startCancelledAsItStarts((id) =>
      runner({ action: 'start_node', pipeline_execution_id: id, node_id: 1 }),
    );
    expect(answer).toMatchObject({ status: 'finished' });
    expect(await host.services.limiter.running(host.accountId)).toBe(before);
  });

  it('skips what depends on a failure and keeps unrelated branches running (the N graph)', async () => {
    const ok = await createQuery('select 1 as one');
    const boom = await createQuery("select cast('boom' as integer) as never");
    const graph = {
      pipeline: {
        nodes: [
          { id: 1, query_execution: { query_id: ok } }, // a
          { id: 2, query_execution: { query_id: boom } }, // b fails
          { id: 3, dependencies: [1], query_execution: { query_id: ok } }, // c: a → c
          { id: 4, dependencies: [1, 2], query_execution: { query_id: ok } }, // d: a, b → d
        ],
      },
    };
    const started = await bodyOf(await host.call('/v1/pipelines/execute', { json: graph }));
    const status = await waitForPipeline(started.pipeline_execution_id);
    expect(status.status).toBe('failed');
    expect(status.error).toMatch(new RegExp(`^1 node failed: node 2 \\(query ${boom}\\): .*boom`));
    expect([1, 2, 3, 4].map((id) => node(status, id).status)).toEqual([
      'completed',
      'failed',
      'completed',
      'skipped',
    ]);
    expect(node(status, 4).execution_id).toBeNull();
    expect(node(status, 4).error.message).toBe(`Not run: dependency 2 (query ${boom}) ended failed.`);
    expect(node(status, 2).error.type).toBe('execution_error');

    // A retry refuses what it would not honour before it starts (and charges) anything.
    const retryPath = `/v1/pipelines/executions/${started.pipeline_execution_id}/retry`;
    for (const [request, message] of [
      [{ json: { foo: 1 } }, /Unrecognized key.*foo/],
      [{ method: 'POST', body: 'not json' }, /not valid JSON/],
      [{ json: { on_failure: 'halt' } }, /on_failure/],
      [{ json: { performance: 'huge' } }, /performance/],
      [{ json: { query_parameters: { a: 1 } } }, /Unrecognized key.*query_parameters/],
    ] as const) {
      const refused = await host.call(retryPath, request);
      expect(refused.status, JSON.stringify(request)).toBe(400);
      expect((await bodyOf(refused)).error, JSON.stringify(request)).toMatch(message);
    }
    const unknownOption = await host.call(`${retryPath}?foo=1`, { method: 'POST' });
    expect(unknownOption.status).toBe(400);
    expect((await bodyOf(unknownOption)).error).toMatch(/foo/);
    // Execute and cancel read their query string as every route does: an unknown option is a 400
    // (nothing runs, nothing is cancelled); the `_=` cache-buster is ignored.
    const cancelPath = `/v1/pipelines/executions/${started.pipeline_execution_id}/cancel`;
    for (const [path, request] of [
      ['/v1/pipelines/execute?performance=large', { json: graph }],
      ['/v1/pipelines/execute?foo=1', { json: graph }],
      [`${cancelPath}?foo=1`, { method: 'POST' }],
    ] as const) {
      const refused = await host.call(path, request);
      expect(refused.status, path).toBe(400);
      expect((await bodyOf(refused)).error, path).toMatch(/query: Unrecognized key: "(performance|foo)"/);
    }
    // The run has ended: a cancel that reads its query string answers that, not a 400.
    expect((await host.call(`${cancelPath}?_=1700000000000`, { method: 'POST' })).status).toBe(409);
    const busted = await host.call('/v1/pipelines/execute?_=1700000000000', {
      json: { pipeline: { nodes: [{ id: 1, query_execution: { query_id: ok } }] } },
    });
    expect(busted.status).toBe(200);
    expect((await waitForPipeline((await bodyOf(busted)).pipeline_execution_id)).status).toBe('completed');

    // Retry reruns exactly the failed and skipped nodes once the cause is fixed, here on the large
    // tier and failing fast; the completed nodes it reuses are not run.
    await host.call(`/v1/query/${boom}`, { method: 'PATCH', json: { query_sql: 'select 2 as two' } });
    const retried = await bodyOf(
      await host.call(retryPath, { json: { performance: 'large', on_failure: 'stop' } }),
    );
    expect(retried).toMatchObject({ rerun_node_ids: [2, 4], reused_node_ids: [1, 3] });
    const after = await waitForPipeline(retried.pipeline_execution_id);
    expect(after.status).toBe('completed');
    expect(after.retry_of).toBe(started.pipeline_execution_id);
    expect(after.on_failure).toBe('stop');
    const tierOf = async (status: Json, id: number) =>
      (await bodyOf(await host.call(`/v1/execution/${node(status, id).execution_id}/status`))).performance;
    expect([await tierOf(after, 1), await tierOf(after, 2), await tierOf(after, 4)]).toEqual([
      'medium',
      'large',
      'large',
    ]);
    expect(node(after, 1)).toMatchObject({
      status: 'completed',
      reused_from: started.pipeline_execution_id,
      execution_id: node(status, 1).execution_id,
    });
    expect(node(after, 2).execution_id).not.toBe(node(status, 2).execution_id);
    expect(node(after, 4).reused_from).toBeUndefined();
    const again = await host.call(`/v1/pipelines/executions/${retried.pipeline_execution_id}/retry`, {
      method: 'POST',
    });
    expect(again.status).toBe(409);
  });

  it('fails fast with on_failure "stop": the first failure stops every other node', async () => {
    const boom = await createQuery("select cast('boom' as integer) as never");
    const slow = await createQuery(RUNAWAY_SQL);
    const after = await createQuery('select 1 as one');
    const started = await bodyOf(
      await host.call('/v1/pipelines/execute', {
        json: {
          on_failure: 'stop',
          pipeline: {
            nodes: [
              { id: 1, query_execution: { query_id: slow } },
              { id: 2, dependencies: [1], query_execution: { query_id: after } },
              { id: 3, query_execution: { query_id: boom } },
            ],
          },
        },
      }),
    );
    // The runaway node would run for minutes: the run ends only because the failure stopped it.
    const status = await waitForPipeline(started.pipeline_execution_id, 30_000);
    expect(status).toMatchObject({
      status: 'failed',
      on_failure: 'stop',
      error: expect.stringMatching(new RegExp(`node failed: node 3 \\(query ${boom}\\)`)),
    });
    expect(node(status, 3).status).toBe('failed');
    expect(node(status, 1)).toMatchObject({
      status: 'cancelled',
      error: {
        type: 'cancelled',
        message: expect.stringMatching(
          new RegExp(`node 3 \\(query ${boom}\\) failed, and the pipeline stops at the first failure`),
        ),
      },
    });
    expect(node(status, 2).status).toMatch(/^(cancelled|skipped)$/);
    expect(node(status, 2).execution_id).toBeNull();
    if (node(status, 1).execution_id) {
      expect((await waitUntilFinished(host, node(status, 1).execution_id)).state).toBe(
        'QUERY_STATE_CANCELLED',
      );
    }
    const bad = await host.call('/v1/pipelines/execute', {
      json: { on_failure: 'halt', pipeline: { nodes: [{ id: 1, query_execution: { query_id: after } }] } },
    });
    expect(bad.status).toBe(400);
    expect((await bodyOf(bad)).error).toMatch(/on_failure/);
  }, 40_000);

  it('cancels: the running node stops, pending nodes end cancelled; a held status read answers the cancel', async () => {
    const slow = await createQuery(RUNAWAY_SQL);
    const after = await createQuery('select 1 as x');
    const started = await bodyOf(
      await host.call('/v1/pipelines/execute', {
        json: {
          pipeline: {
            nodes: [
              { id: 1, query_execution: { query_id: slow } },
              { id: 2, dependencies: [1], query_execution: { query_id: after } },
            ],
          },
        },
      }),
    );
    const id = started.pipeline_execution_id;
    for (let i = 0; i < 200; i++) {
      const status = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=0`));
      if (node(status, 1).status === 'running' && node(status, 1).execution_id) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A read that may wait answers the run as it stands when the wait runs out...
    const heldSince = performance.now();
    const held = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=300`));
    expect(held.status).toBe('executing');
    expect(performance.now() - heldSince).toBeGreaterThanOrEqual(290);
    for (const bad of ['-1', '20001', 'later', 'abc', '1.5']) {
      const response = await host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=${bad}`);
      expect(response.status, bad).toBe(400);
      const { error } = await bodyOf(response);
      expect(error, bad).toMatch(/^query\.max_wait_ms: /);
      expect(error, bad).not.toMatch(/NaN/);
    }
    expect(
      (await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=abc`))).error,
    ).toBe(
      'query.max_wait_ms: must be a whole number of milliseconds from 0 to 20000, e.g. max_wait_ms=5000',
    );
    // ...and as soon as the run ends: here a cancel, 100 ms into a wait of up to 20 s.
    const waitSince = performance.now();
    const waiting = host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=20000`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(
      await bodyOf(await host.call(`/v1/pipelines/executions/${id}/cancel`, { method: 'POST' })),
    ).toEqual({ success: true });
    // Until the stopped node's engine time is charged the run reads executing, with cancelled_at:
    // a read right after the cancel never shows a final state with a cost still to come.
    const right = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status?max_wait_ms=0`));
    expect(right.cancelled_at).toEqual(expect.any(String));
    if (right.status !== 'cancelled') {
      expect(right.status).toBe('executing');
      expect(node(right, 1).status).toBe('running');
      const again = await host.call(`/v1/pipelines/executions/${id}/cancel`, { method: 'POST' });
      expect(again.status).toBe(409);
      expect((await bodyOf(again)).error).toMatch(/is being cancelled already/);
    }
    const status = await bodyOf(await waiting);
    expect(status.status).toBe('cancelled');
    expect(performance.now() - waitSince).toBeLessThan(5_000);
    expect(status.error).toBe('Cancelled by the user.');
    expect([node(status, 1).status, node(status, 2).status]).toEqual(['cancelled', 'cancelled']);
    // The cost it reads as it ends is final: the stopped node's execution, charged.
    const execution = await bodyOf(await host.call(`/v1/execution/${node(status, 1).execution_id}/status`));
    expect(execution.state).toBe('QUERY_STATE_CANCELLED');
    expect(execution.execution_cost_credits).toBeGreaterThan(0);
    expect(node(status, 1).execution_cost_credits).toBe(execution.execution_cost_credits);
    expect(status.execution_cost_credits).toBe(execution.execution_cost_credits);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/status`));
    expect(later.execution_cost_credits).toBe(status.execution_cost_credits);
    expect((await host.call(`/v1/pipelines/executions/${id}/cancel`, { method: 'POST' })).status).toBe(409);
  });

  it('runs an explicit graph on the top-level performance, except the nodes that set their own', async () => {
    const one = await createQuery('select 1 as one');
    const started = await bodyOf(
      await host.call('/v1/pipelines/execute', {
        json: {
          performance: 'large',
          pipeline: {
            nodes: [
              { id: 1, query_execution: { query_id: one } },
              { id: 2, query_execution: { query_id: one, performance: 'medium' } },
              { id: 3, dependencies: [1], materialized_view_refresh: { name: 'mv.local.result_pipe_a' } },
            ],
          },
        },
      }),
    );
    const status = await waitForPipeline(started.pipeline_execution_id);
    expect(status.status).toBe('completed');
    const tiers = await Promise.all(
      [1, 2, 3].map(
        async (id) =>
          (await bodyOf(await host.call(`/v1/execution/${node(status, id).execution_id}/status`)))
            .performance,
      ),
    );
    expect(tiers).toEqual(['large', 'medium', 'large']);
  });

  it('rejects lineage cycles and unknown tables, naming them', async () => {
    const x = await materialize('result_cycle_x', 'select 1 as v');
    await materialize('result_cycle_y', 'select v from mv.local.result_cycle_x');
    await host.call(`/v1/query/${x}`, {
      method: 'PATCH',
      json: { query_sql: 'select v from mv.local.result_cycle_y' },
    });
    const root = await createQuery('select * from mv.local.result_cycle_x');
    const cycle = await host.call(`/v1/query/${root}/pipeline`);
    expect(cycle.status).toBe(400);
    expect((await bodyOf(cycle)).error).toMatch(
      /cycle: mv\.local\.result_cycle_x → mv\.local\.result_cycle_y → mv\.local\.result_cycle_x\. /,
    );

    const unknown = await createQuery(
      'with t as (select 1) select * from t join dex.no_such_table using (x)',
    );
    const response = await host.call(`/v1/query/${unknown}/pipeline`);
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toMatch(/dex\.no_such_table/);
    const unreadable = await createQuery('selec nothing');
    expect((await bodyOf(await host.call(`/v1/query/${unreadable}/pipeline`))).error).toMatch(
      /Cannot read the query's SQL/,
    );
  });

  it.each([
    [
      {},
      /^body: send query_id \(to build the pipeline from the query lineage\) or pipeline\.nodes .*\{"query_id": 1234\}$/,
    ],
    [
      { pipeline: { nodes: [{ id: 1, query_execution: { query_id: 1 } }] }, query_parameters: { a: 1 } },
      /query_parameters: with pipeline\.nodes, parameter values go on each query_execution node/,
    ],
    [{ query_id: 1, pipeline: { nodes: [{ id: 1, query_execution: { query_id: 1 } }] } }, /not both/],
    [{ pipeline: { nodes: [] } }, /at least one node/],
    [
      {
        pipeline: {
          nodes: [
            { id: 1, query_execution: { query_id: 1 } },
            { id: 1, query_execution: { query_id: 1 } },
          ],
        },
      },
      /id 1 is used twice/,
    ],
    [
      { pipeline: { nodes: [{ id: 1, dependencies: [7], query_execution: { query_id: 1 } }] } },
      /unknown node 7|7.*does not exist/,
    ],
    [
      {
        pipeline: {
          nodes: [
            { id: 1, dependencies: [2], query_execution: { query_id: 1 } },
            { id: 2, dependencies: [1], query_execution: { query_id: 1 } },
          ],
        },
      },
      /cycle/,
    ],
    [{ pipeline: { nodes: [{ id: 1 }] } }, /exactly one|neither|one of/],
    [
      {
        pipeline: {
          nodes: [
            {
              id: 1,
              query_execution: { query_id: 1 },
              materialized_view_refresh: { name: 'mv.local.result_pipe_a' },
            },
          ],
        },
      },
      /both|exactly one/,
    ],
    [
      { pipeline: { nodes: [{ id: 1, query_execution: { query_id: 999999 } }] } },
      /^Node 1 \(query 999999\): Query 999999 not found/,
    ],
    [
      { pipeline: { nodes: [{ id: 1, materialized_view_refresh: { name: 'mv.local.result_nope' } }] } },
      /^Node 1 \(mv\.local\.result_nope\): Materialized view mv\.local\.result_nope not found/,
    ],
    [
      { pipeline: { nodes: [{ id: 1, query_execution: { query_id: 1 }, extra: true }] } },
      /Unrecognized key.*extra/,
    ],
    [
      {
        pipeline: {
          nodes: [{ id: 1, materialized_view_refresh: { name: `mv.local.result_${'x'.repeat(193)}` } }],
        },
      },
      /^body\.pipeline\.nodes\.0\.materialized_view_refresh\.name: the view name result_x+… is 200 characters; view names are 8-128 characters$/,
    ],
  ])('explains a bad /v1/pipelines/execute body %#', async (body, message) => {
    const response = await host.call('/v1/pipelines/execute', { json: body });
    const payload = await bodyOf(response);
    expect([400, 404], JSON.stringify(payload)).toContain(response.status);
    expect(payload.error).toMatch(message);
  });

  it('refuses to retry when the lineage changed since the run (409)', async () => {
    const root = await createQuery("select cast('not yet' as integer) as e from mv.local.result_pipe_a");
    const first = await bodyOf(await host.call(`/v1/query/${root}/pipeline/execute`, { json: {} }));
    const failed = await waitForPipeline(first.pipeline_execution_id);
    expect(failed.status).toBe('failed');
    // Rerun on another tier, a run's lineage is still the same: a retry of that retry is no 409.
    const onLarge = await bodyOf(
      await host.call(`/v1/pipelines/executions/${first.pipeline_execution_id}/retry?performance=large`, {
        method: 'POST',
      }),
    );
    expect((await waitForPipeline(onLarge.pipeline_execution_id)).status).toBe('failed');
    const again = await host.call(`/v1/pipelines/executions/${onLarge.pipeline_execution_id}/retry`, {
      method: 'POST',
    });
    expect(again.status).toBe(200);
    await waitForPipeline((await bodyOf(again)).pipeline_execution_id);
    await host.call(`/v1/query/${root}`, {
      method: 'PATCH',
      json: {
        query_sql: 'select a.blockchain from mv.local.result_pipe_a a, mv.local.result_pipe_b b limit 1',
      },
    });
    const retry = await host.call(`/v1/pipelines/executions/${first.pipeline_execution_id}/retry`, {
      method: 'POST',
    });
    expect(retry.status).toBe(409);
    expect((await bodyOf(retry)).error).toMatch(/lineage is different/);
  });

  it('checks the credit limit before a run starts (402)', async () => {
    const queryId = await createQuery('select 1 as x');
    await host.services.usage.setCreditLimit(host.accountId, 0.000001);
    try {
      const response = await host.call('/v1/pipelines/execute', {
        json: { pipeline: { nodes: [{ id: 1, query_execution: { query_id: queryId } }] } },
      });
      expect(response.status).toBe(402);
      const { error } = await bodyOf(response);
      expect(error).toMatch(/credit limit .*next billing period.*ask the service's operator/);
      // The operator's command is for the operator (the log), not for an API client.
      expect(error).not.toMatch(/npm|admin|set-credit-limit/);
    } finally {
      await host.services.usage.setCreditLimit(host.accountId, 1_000_000);
    }
  });

  it('refuses a null parameter value with a 400 naming the parameter, before anything runs', async () => {
    const queryId = (
      await bodyOf(
        await host.call('/v1/query', {
          json: {
            name: 'null chain',
            query_sql: 'select {{chain}} as chain',
            parameters: [{ key: 'chain', type: 'text', value: 'base' }],
          },
        }),
      )
    ).query_id;
    for (const [path, json] of [
      [
        '/v1/pipelines/execute',
        {
          pipeline: {
            nodes: [{ id: 1, query_execution: { query_id: queryId, query_parameters: { chain: null } } }],
          },
        },
      ],
      ['/v1/pipelines/execute', { query_id: queryId, query_parameters: { chain: null } }],
      [`/v1/query/${queryId}/pipeline/execute`, { query_parameters: { chain: null } }],
    ] as const) {
      const response = await host.call(path, { json });
      expect(response.status, path).toBe(400);
      expect((await bodyOf(response)).error).toMatch(
        /parameter "chain" is null: give it a value, or leave it out/,
      );
    }
  });

  it('builds lineage for parameterized queries', async () => {
    const queryId = (
      await bodyOf(
        await host.call('/v1/query', {
          json: {
            name: 'by chain',
            query_sql: 'select * from mv.local.result_pipe_a where blockchain = {{chain}}',
            parameters: [{ key: 'chain', type: 'text', value: 'base' }],
          },
        }),
      )
    ).query_id;
    const definition = await bodyOf(
      await host.call(
        `/v1/query/${queryId}/pipeline?query_parameters=${encodeURIComponent('{"chain":"arbitrum"}')}`,
      ),
    );
    expect(definition.pipeline.nodes.at(-1)).toMatchObject({
      query_execution: { query_id: queryId, query_parameters: { chain: 'arbitrum' } },
    });
    expect(definition.pipeline.nodes[0].materialized_view_refresh.name).toBe('mv.local.result_pipe_a');

    // params.<name>= works as on execute, on the definition and on the run alike.
    const [chain] = (
      await bodyOf(
        await host.call(
          `/v1/execution/${(await waitUntilFinished(host, await submitSql(host, 'select blockchain from mv.local.result_pipe_a order by n desc limit 1'))).execution_id}/results`,
        ),
      )
    ).result.rows.map((row: Json) => row.blockchain as string);
    const byParams = await bodyOf(await host.call(`/v1/query/${queryId}/pipeline?params.chain=${chain}`));
    expect(byParams.pipeline.nodes.at(-1).query_execution.query_parameters).toEqual({ chain });
    const unknown = await host.call(`/v1/query/${queryId}/pipeline?params.chian=${chain}`);
    expect(unknown.status).toBe(400);
    expect((await bodyOf(unknown)).error).toBe(
      'Unknown parameter "chian"; this query has parameters "chain".',
    );
    const run = await bodyOf(
      await host.call(`/v1/query/${queryId}/pipeline/execute?params.chain=${chain}`, { method: 'POST' }),
    );
    const ran = await waitForPipeline(run.pipeline_execution_id);
    expect(ran.status).toBe('completed');
    const rows = (
      await bodyOf(
        await host.call(`/v1/execution/${node(ran, ran.node_executions.length).execution_id}/results`),
      )
    ).result.rows;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row: Json) => row.blockchain === chain)).toBe(true);
  });

  it('names the view or query of a node that cannot run, not only its id', async () => {
    const viewQuery = await materialize('result_pipe_archived', 'select 1 as v');
    const root = await createQuery('select v from mv.local.result_pipe_archived');
    await host.call(`/v1/query/${viewQuery}/archive`, { method: 'POST' });
    try {
      const refused = await host.call(`/v1/query/${root}/pipeline/execute`, { method: 'POST' });
      expect(refused.status).toBe(403);
      expect((await bodyOf(refused)).error).toMatch(
        new RegExp(`^Node 1 \\(mv\\.local\\.result_pipe_archived\\): Query ${viewQuery} is archived`),
      );
    } finally {
      await host.call(`/v1/query/${viewQuery}/unarchive`, { method: 'POST' });
    }
  });

  it('ends a node only once it has recorded its execution, however slow that write is', async () => {
    // The Start Task submits the node's query while the node records its execution id: a node
    // whose query ends first must still not end before the record (it would lose its id).
    const pipelines = host.services.pipelines;
    const original = pipelines.transitionNode.bind(pipelines);
    pipelines.transitionNode = async (id, nodeId, from, changes) => {
      if (changes.executionId) await new Promise((resolve) => setTimeout(resolve, 300));
      return original(id, nodeId, from, changes);
    };
    try {
      // A run the engine refuses at submit ends the node within the Start Task itself.
      const engine = host.services.engine;
      const submit = engine.submit.bind(engine);
      engine.submit = async () => {
        throw new Error('the engine refused it');
      };
      let status: Json;
      try {
        const root = await createQuery('select 1 as one');
        const started = await bodyOf(await host.call(`/v1/query/${root}/pipeline/execute`, { json: {} }));
        status = await waitForPipeline(started.pipeline_execution_id);
      } finally {
        engine.submit = submit;
      }
      expect(status.status).toBe('failed');
      expect(node(status, 1)).toMatchObject({ status: 'failed', execution_id: expect.stringMatching(/^01/) });
      const execution = await host.services.executions.get(node(status, 1).execution_id);
      expect(execution?.state).toBe('QUERY_STATE_FAILED');
    } finally {
      pipelines.transitionNode = original;
    }
  });

  it("starts a dependent once its dependency completed, while that node's end is still being written", async () => {
    const first = await createQuery('select 1 as one');
    const second = await createQuery('select 2 as two');
    const graph = {
      pipeline: {
        nodes: [
          { id: 1, query_execution: { query_id: first } },
          { id: 2, dependencies: [1], query_execution: { query_id: second } },
        ],
      },
    };
    // Node 1's end lands 400 ms late: node 2 must not wait for it, only for node 1's execution.
    const pipelines = host.services.pipelines;
    const original = pipelines.transitionNode.bind(pipelines);
    let firstEndWritten = Number.POSITIVE_INFINITY;
    pipelines.transitionNode = async (id, nodeId, from, changes) => {
      if (nodeId !== 1 || changes.state !== 'completed') return original(id, nodeId, from, changes);
      await new Promise((resolve) => setTimeout(resolve, 400));
      const ended = await original(id, nodeId, from, changes);
      firstEndWritten = Date.now();
      return ended;
    };
    let status: Json;
    try {
      const started = await bodyOf(await host.call('/v1/pipelines/execute', { json: graph }));
      status = await waitForPipeline(started.pipeline_execution_id);
    } finally {
      pipelines.transitionNode = original;
    }
    expect(status.status).toBe('completed');
    expect([1, 2].map((id) => node(status, id).status)).toEqual(['completed', 'completed']);
    // A node ends when its execution ended, so the timeline keeps dependency order.
    const execution = await host.services.executions.get(node(status, 1).execution_id);
    expect(node(status, 1).ended_at).toBe(execution?.executionEndedAt);
    const secondStarted = Date.parse(node(status, 2).started_at);
    expect(secondStarted).toBeGreaterThanOrEqual(Date.parse(node(status, 1).ended_at));
    expect(secondStarted).toBeLessThan(firstEndWritten);
  });

  it("hides other accounts' pipeline executions", async () => {
    expect((await host.call('/v1/pipelines/executions/01HKZJ2683PHF9Q9PHHQ8FW4Q1/status')).status).toBe(404);
    expect((await host.call('/v1/pipelines/executions/nope/status')).status).toBe(400);
  });
});
