import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeRunner } from '../../functions/runner/node-runner';
import { RUNAWAY_SQL } from '../support/executions';
import { bodyOf, type Json, newAccountKey, startTestHost, type TestHost } from '../support/test-host';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A receiver on this machine: records every POST and answers by path. `/flaky` fails twice with
 * 503 before it accepts; `/down` always fails; `/gone` refuses (410); `/moved` redirects.
 */
function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const failures = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const base = path.split('?')[0]!;
      const failed = failures.get(path) ?? 0;
      if (base === '/flaky' && failed < 2) {
        failures.set(path, failed + 1);
        response.writeHead(503).end();
      } else if (base === '/down') response.writeHead(500).end('no');
      else if (base === '/gone') response.writeHead(410).end();
      else if (base === '/moved') response.writeHead(302, { location: 'http://127.0.0.1:1/' }).end();
      else response.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received }),
    ),
  );
}

describe('pipeline webhooks: the final status posted, signed, retried, recorded', () => {
  let host: TestHost;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    host = await startTestHost(undefined, {
      execution: {
        queryTimeoutMs: { medium: 20_000, large: 20_000 },
        webhooks: { allowInsecureUrls: true, timeoutMs: 2000, retryDelaysMs: [20, 20] },
      },
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await host?.stop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  const createQuery = async (sql: string) =>
    (await bodyOf(await host.call('/v1/query', { json: { name: 'hooked', query_sql: sql } })))
      .query_id as number;
  const statusOf = async (id: string) =>
    bodyOf(await host.call(`/v1/pipelines/executions/${id}/status`)) as Promise<Json>;
  /** The run's status once its webhook was tried (delivered or given up). */
  const afterDelivery = async (id: string): Promise<Json> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const status = await statusOf(id);
      if (status.webhook?.delivery) return status;
      if (Date.now() > deadline) throw new Error(`no webhook delivery recorded: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const hooked = (path: string) => receiver.received.filter((request) => request.path === path);
  const run = async (queryId: number, webhookPath: string) => {
    const response = await host.call(`/v1/query/${queryId}/pipeline/execute`, {
      json: { performance: 'medium', webhook_url: `${receiver.url}${webhookPath}` },
    });
    expect(response.status).toBe(200);
    return (await bodyOf(response)).pipeline_execution_id as string;
  };

  it('posts the final status with a JWT the service JWKS verifies, bound to the URL and the body', async () => {
    const id = await run(await createQuery('select 1 as one'), '/ok?run=1');
    const status = await afterDelivery(id);
    expect(status.webhook).toEqual({
      url: `${receiver.url}/ok?run=1`,
      delivery: { state: 'delivered', attempts: 1, status_code: 204, at: expect.any(String) },
    });
    const [request, ...more] = hooked('/ok?run=1');
    expect(more).toEqual([]);
    const body = JSON.parse(request!.body);
    expect(body).toMatchObject({
      event: 'pipeline_execution.finished',
      pipeline_execution_id: id,
      status: 'completed',
      node_executions: [{ id: 1, query_execution_status: { status: 'completed' } }],
    });
    const { webhook: _delivery, ...posted } = status;
    expect({ ...body, webhook: undefined, event: undefined }).toEqual({
      ...posted,
      webhook: undefined,
      event: undefined,
    });

    const token = String(request!.headers['x-service-webhook-token']);
    const jwks = createRemoteJWKSet(new URL(`${host.baseUrl}/oauth/mcp/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      issuer: `${host.baseUrl}/oauth/mcp`,
      audience: `${receiver.url}/ok?run=1`,
      typ: 'webhook+jwt',
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      event: 'pipeline_execution.finished',
      jti: `${id}.completed`,
      body_sha256: createHash('sha256').update(request!.body).digest('hex'),
    });
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300);
    // The same token sent to another receiver does not verify there.
    await expect(
      jwtVerify(token, jwks, { issuer: `${host.baseUrl}/oauth/mcp`, audience: `${receiver.url}/elsewhere` }),
    ).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
    expect(decodeProtectedHeader(token).kid).toBeTruthy();
  });

  it('tells a failure and its node errors; a retry tells the same receiver how it ended', async () => {
    const ok = await createQuery('select 1 as one');
    const boom = await createQuery("select cast('boom' as integer) as never");
    const started = await bodyOf(
      await host.call('/v1/pipelines/execute', {
        json: {
          performance: 'medium',
          webhook_url: `${receiver.url}/ok?run=2`,
          pipeline: {
            nodes: [
              { id: 1, query_execution: { query_id: ok } },
              { id: 2, dependencies: [1], query_execution: { query_id: boom } },
            ],
          },
        },
      }),
    );
    const id = started.pipeline_execution_id;
    expect((await afterDelivery(id)).webhook.delivery.state).toBe('delivered');
    const body = JSON.parse(hooked('/ok?run=2')[0]!.body);
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(new RegExp(`^1 node failed: node 2 \\(query ${boom}\\): .*boom`));
    expect(body.node_executions[1].query_execution_status).toMatchObject({
      status: 'failed',
      error: { message: expect.stringMatching(/boom/) },
    });

    const retried = await bodyOf(await host.call(`/v1/pipelines/executions/${id}/retry`, { method: 'POST' }));
    const retryStatus = await afterDelivery(retried.pipeline_execution_id);
    expect(retryStatus.webhook.url).toBe(`${receiver.url}/ok?run=2`);
    const second = JSON.parse(hooked('/ok?run=2')[1]!.body);
    expect(second).toMatchObject({
      pipeline_execution_id: retried.pipeline_execution_id,
      retry_of: id,
      status: 'failed',
    });

    // A retry may tell another receiver (a URL the policy refuses is a 400 before anything runs).
    const refused = await host.call(`/v1/pipelines/executions/${retried.pipeline_execution_id}/retry`, {
      json: { webhook_url: 'ftp://example.com/hook' },
    });
    expect(refused.status).toBe(400);
    expect((await bodyOf(refused)).error).toMatch(/webhook/i);
    const elsewhere = await bodyOf(
      await host.call(`/v1/pipelines/executions/${retried.pipeline_execution_id}/retry`, {
        json: { webhook_url: `${receiver.url}/ok?run=2b` },
      }),
    );
    const elsewhereStatus = await afterDelivery(elsewhere.pipeline_execution_id);
    expect(elsewhereStatus.webhook).toMatchObject({
      url: `${receiver.url}/ok?run=2b`,
      delivery: { state: 'delivered' },
    });
    expect(JSON.parse(hooked('/ok?run=2b')[0]!.body)).toMatchObject({
      pipeline_execution_id: elsewhere.pipeline_execution_id,
      retry_of: retried.pipeline_execution_id,
    });
  });

  it('tells a cancelled run once its nodes have stopped', async () => {
    const slow = await createQuery(RUNAWAY_SQL);
    const id = await run(slow, '/ok?run=3');
    for (let i = 0; i < 200; i++) {
      const status = await statusOf(id);
      if (status.node_executions[0].query_execution_status.status === 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await host.call(`/v1/pipelines/executions/${id}/cancel`, { method: 'POST' })).status).toBe(200);
    expect((await afterDelivery(id)).webhook.delivery.state).toBe('delivered');
    const body = JSON.parse(hooked('/ok?run=3')[0]!.body);
    expect(body.status).toBe('cancelled');
    expect(body.node_executions[0].query_execution_status.status).toBe('cancelled');
  }, 30_000);

  it.each([
    ['/flaky', { state: 'delivered', attempts: 3, status_code: 204 }, 3],
    ['/down', { state: 'failed', attempts: 3, status_code: 500, error: 'the receiver answered HTTP 500' }, 3],
    ['/gone', { state: 'failed', attempts: 1, status_code: 410, error: 'the receiver answered HTTP 410' }, 1],
    [
      '/moved',
      {
        state: 'failed',
        attempts: 1,
        status_code: 302,
        error: expect.stringMatching(/redirects are not followed/),
      },
      1,
    ],
  ])('retries what may pass and records the outcome: %s', async (path, delivery, posts) => {
    const id = await run(await createQuery('select 2 as two'), `${path}?id=${path.slice(1)}`);
    expect((await afterDelivery(id)).webhook.delivery).toEqual({ ...delivery, at: expect.any(String) });
    const calls = hooked(`${path}?id=${path.slice(1)}`);
    expect(calls).toHaveLength(posts);
    // Every attempt carries the same delivery id.
    const ids = calls.map(
      (call) =>
        JSON.parse(
          Buffer.from(String(call.headers['x-service-webhook-token']).split('.')[1]!, 'base64url').toString(),
        ).jti,
    );
    expect(new Set(ids)).toEqual(new Set([`${id}.completed`]));
  });

  it("tells each scheduled refresh of a view, and shows the URL to the view's owner only", async () => {
    const queryId = await createQuery('select 5 as five');
    const url = `${receiver.url}/ok?run=scheduled`;
    const withoutCron = await host.call('/v1/materialized-views', {
      json: { name: 'result_hooked_view', query_id: queryId, webhook_url: url },
    });
    expect(withoutCron.status).toBe(400);
    expect((await bodyOf(withoutCron)).error).toMatch(/give cron_expression too/);
    const created = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: {
          name: 'result_hooked_view',
          query_id: queryId,
          is_private: false,
          cron_expression: '*/15 * * * *',
          webhook_url: url,
        },
      }),
    );
    expect(created.name).toBe('mv.local.result_hooked_view');
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_hooked_view'));
    expect(view.schedule.webhook_url).toBe(url);
    const otherKey = await newAccountKey(host, 'hook_watcher');
    const seen = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_hooked_view', { apiKey: otherKey }),
    );
    expect(seen.schedule).toBeDefined();
    expect(seen.schedule.webhook_url).toBeUndefined();

    const quarter = new Date(Math.ceil(Date.now() / 900_000) * 900_000);
    expect(await host.scheduler.tick(new Date(quarter.getTime() + 1000))).toEqual([
      'mv.local.result_hooked_view',
    ]);
    const deadline = Date.now() + 20_000;
    while (hooked('/ok?run=scheduled').length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const body = JSON.parse(hooked('/ok?run=scheduled')[0]!.body);
    expect(body).toMatchObject({
      status: 'completed',
      // What fired it, so one receiver can tell the runs of several schedules apart.
      trigger: {
        type: 'schedule',
        materialized_view: 'mv.local.result_hooked_view',
        cron_expression: '*/15 * * * *',
      },
      node_executions: [
        {
          id: 1,
          materialized_view_refresh_status: { name: 'mv.local.result_hooked_view', status: 'completed' },
        },
      ],
    });
  });

  it("tells a scheduled refresh that cannot start: a failed run, its webhook and the view's last_error", async () => {
    // The test drives the clock alone: a first tick a day ahead fires what earlier tests scheduled.
    await host.scheduler.stop();
    const ahead = Date.now() + 86_400_000;
    await host.scheduler.tick(new Date(ahead));
    const a = await createQuery('select 1 as v');
    const first = await bodyOf(
      await host.call('/v1/materialized-views', {
        json: {
          name: 'result_tick_a',
          query_id: a,
          is_private: false,
          cron_expression: '*/15 * * * *',
          webhook_url: `${receiver.url}/ok?run=tick`,
        },
      }),
    );
    expect(first.name).toBe('mv.local.result_tick_a');
    const b = await createQuery('select v from mv.local.result_tick_a');
    expect(
      (await host.call('/v1/materialized-views', { json: { name: 'result_tick_b', query_id: b } })).status,
    ).toBe(200);
    // A cycle that comes after the schedule: only the tick can find it.
    expect(
      (
        await host.call(`/v1/query/${a}`, {
          method: 'PATCH',
          json: { query_sql: 'select v from mv.local.result_tick_b' },
        })
      ).status,
    ).toBe(200);

    const quarter = Math.ceil(ahead / 900_000) * 900_000;
    expect(await host.scheduler.tick(new Date(quarter + 1000))).not.toContain('mv.local.result_tick_a');
    const view = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_tick_a'));
    expect(view.schedule.last_error).toEqual({
      at: new Date(quarter + 1000).toISOString(),
      message: expect.stringMatching(
        /^The scheduled refresh of mv\.local\.result_tick_a could not start: The lineage has a cycle: .*result_tick_a/,
      ),
      pipeline_execution_id: expect.any(String),
    });
    const id = view.schedule.last_error.pipeline_execution_id;
    const status = await afterDelivery(id);
    expect(status).toMatchObject({
      status: 'failed',
      error: view.schedule.last_error.message,
      execution_cost_credits: 0,
      node_executions: [
        {
          id: 1,
          materialized_view_refresh_status: {
            name: 'mv.local.result_tick_a',
            status: 'failed',
            error: { message: expect.stringMatching(/^The lineage has a cycle/) },
          },
        },
      ],
      webhook: { delivery: { state: 'delivered' } },
    });
    const [posted, ...more] = hooked('/ok?run=tick');
    expect(more).toEqual([]);
    expect(JSON.parse(posted!.body)).toMatchObject({
      event: 'pipeline_execution.finished',
      pipeline_execution_id: id,
      status: 'failed',
      trigger: { type: 'schedule', materialized_view: 'mv.local.result_tick_a' },
    });
    const token = String(posted!.headers['x-service-webhook-token']);
    expect(JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti).toBe(`${id}.failed`);
    // Another account reading the public view does not see the owner's error.
    const otherKey = await newAccountKey(host, 'tick_watcher');
    const seen = await bodyOf(
      await host.call('/v1/materialized-views/mv.local.result_tick_a', { apiKey: otherKey }),
    );
    expect(seen.schedule.cron_expression).toBe('*/15 * * * *');
    expect(seen.schedule.last_error).toBeUndefined();

    // In AWS the view's EventBridge schedule invokes the node runner: the same record, the same webhook.
    const runner = createNodeRunner(host.services);
    const fired = (await runner({
      action: 'scheduled_refresh',
      materialized_view: 'mv.local.result_tick_a',
    })) as { failed: string; pipelineExecutionId: string };
    expect(fired.failed).toMatch(/could not start: The lineage has a cycle/);
    expect((await afterDelivery(fired.pipelineExecutionId)).status).toBe('failed');
    expect(hooked('/ok?run=tick')).toHaveLength(2);
    expect(
      (await bodyOf(await host.call('/v1/materialized-views/mv.local.result_tick_a'))).schedule.last_error
        .pipeline_execution_id,
    ).toBe(fired.pipelineExecutionId);

    // Fixed, the next tick starts the refresh and the error is gone.
    await host.call(`/v1/query/${a}`, { method: 'PATCH', json: { query_sql: 'select 2 as v' } });
    expect(await host.scheduler.tick(new Date(quarter + 900_000 + 1000))).toContain('mv.local.result_tick_a');
    const fixed = await bodyOf(await host.call('/v1/materialized-views/mv.local.result_tick_a'));
    expect(fixed.schedule.last_error).toBeUndefined();
  });

  it('records a receiver it cannot reach, and refuses URLs it will not call before anything runs', async () => {
    const queryId = await createQuery('select 3 as three');
    // A port nothing listens on: one this machine just gave out and took back.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const started = await bodyOf(
      await host.call(`/v1/query/${queryId}/pipeline/execute`, {
        json: { performance: 'medium', webhook_url: `http://127.0.0.1:${port}/closed` },
      }),
    );
    expect((await afterDelivery(started.pipeline_execution_id)).webhook.delivery).toEqual({
      state: 'failed',
      attempts: 3,
      error: expect.stringMatching(/^could not reach the receiver/),
      at: expect.any(String),
    });
    for (const [url, why] of [
      ['not a url', /must be an absolute URL/],
      ['ftp://example.com/hook', /must use http or https, not ftp/],
      ['https://user:secret@example.com/hook', /must not carry a user name or password/],
      ['https://example.com/hook#part', /must not have a #fragment/],
      [`https://example.com/${'x'.repeat(2100)}`, /longer than 2048 characters/],
      // Ports fetch refuses ("bad port"): never delivered, so refused before anything runs.
      ['http://127.0.0.1:6000/hook', /must not use port 6000: fetch refuses to call it/],
      ['http://127.0.0.1:9/nobody-listens', /must not use port 9/],
    ] as const) {
      const response = await host.call(`/v1/query/${queryId}/pipeline/execute`, {
        json: { performance: 'medium', webhook_url: url },
      });
      expect(response.status, url).toBe(400);
      expect((await bodyOf(response)).error).toMatch(why);
    }
  });
});
