import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

describe('bad input gets a 4xx JSON error that says what is wrong, never a 500', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const expectError = async (response: Response, status: number, message: RegExp) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = await bodyOf(response);
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(message);
  };

  const post = (path: string, body: string) => host.call(path, { method: 'POST', body });

  it('malformed JSON', async () => {
    await expectError(await post('/v1/datasets/search', '{"query": '), 400, /not valid JSON/);
  });

  it('wrong types, naming the field', async () => {
    await expectError(await post('/v1/datasets/search', '{"limit": "ten"}'), 400, /body\.limit/);
    await expectError(
      await post('/v1/datasets/search', '{"blockchains": ["solana"]}'),
      400,
      /body\.blockchains\.0.*ethereum/,
    );
    await expectError(await post('/v1/datasets/search', '[1,2]'), 400, /expected object/);
  });

  it('unknown fields', async () => {
    await expectError(await post('/v1/datasets/search', '{"qurey": "swap"}'), 400, /Unrecognized key.*qurey/);
    await expectError(await host.call('/v1/datasets?limt=5'), 400, /query.*limt/);
  });

  it('out-of-range paging', async () => {
    await expectError(await host.call('/v1/datasets?limit=1000'), 400, /query\.limit/);
    await expectError(await host.call('/v1/datasets?offset=-1'), 400, /query\.offset/);
    await expectError(await host.call('/v1/datasets?type=tables'), 400, /query\.type/);
  });

  it('oversized bodies', async () => {
    const big = JSON.stringify({ query: 'x'.repeat(2 * 1024 * 1024) });
    await expectError(await post('/v1/datasets/search', big), 413, /limit is 1048576 bytes/);
  });

  it("a URL past the local server's header limit gets a JSON 431 that says what to shorten", async () => {
    const response = await host.call(`/v1/datasets?query=${'x'.repeat(20_000)}`);
    await expectError(response, 431, /too large \(over 16 KiB\): shorten the query string/);
  });

  it('unknown routes and wrong methods', async () => {
    await expectError(await host.call('/v1/unknown'), 404, /no route for GET \/v1\/unknown/);
    const wrongMethod = await host.call('/v1/datasets', { method: 'DELETE' });
    expect(wrongMethod.headers.get('allow')).toBe('GET');
    await expectError(wrongMethod, 405, /use GET/);
  });
});
