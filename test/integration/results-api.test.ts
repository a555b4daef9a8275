import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitSql, waitUntilFinished } from '../support/executions';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

const ROWS = 120_000;
/** 120k rows with a numeric, text, uint256, varbinary and timestamp column (DuneSQL). */
const BIG_SQL = `
  select n,
         case when n % 3 = 0 then 'fizz' else 'plain' end as kind,
         cast(n as uint256) * cast(1000000000000000000 as uint256) as amount_raw,
         0xab as tag,
         timestamp '2026-10-01 00:00:00' + n * interval '1' second as block_time
  from (select i * 1000 + j as n
        from unnest(sequence(0, ${ROWS / 1000 - 1})) as a (i) cross join unnest(sequence(0, 999)) as b (j))
  order by n`;

describe('results: paging, projection, filters, sorting, sampling and CSV on a 120k-row result', () => {
  let host: TestHost;
  let id: string;
  beforeAll(async () => {
    host = await startTestHost();
    id = await submitSql(host, BIG_SQL);
    const status = await waitUntilFinished(host, id, 60_000);
    expect(status.state).toBe('QUERY_STATE_COMPLETED');
  });
  afterAll(() => host?.stop());

  const results = async (query: string) => {
    const response = await host.call(`/v1/execution/${id}/results${query}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return bodyOf(response);
  };

  it('pages with limit/offset and links to the next page', async () => {
    const page = await results('?limit=5&offset=10');
    expect(page.result.rows.map((r: { n: number }) => r.n)).toEqual([10, 11, 12, 13, 14]);
    expect(page.result.metadata).toMatchObject({
      row_count: 5,
      total_row_count: ROWS,
      column_names: ['n', 'kind', 'amount_raw', 'tag', 'block_time'],
    });
    expect(page.next_offset).toBe(15);
    // One meaning per name: the page's metadata and the status agree on the whole result's size.
    expect(page.result.metadata.result_set_bytes).toBe(page.result_metadata.result_set_bytes);
    expect(page.result.metadata.result_set_bytes).toBeGreaterThan(100_000);
    expect(page.next_uri).toMatch(new RegExp(`/v1/execution/${id}/results\\?limit=5&offset=15$`));
    const next = await bodyOf(await fetch(page.next_uri, { headers: { 'x-service-api-key': host.apiKey } }));
    expect(next.result.rows[0].n).toBe(15);
  });

  it('links the next page by the scheme the host speaks, whatever the Host header says', async () => {
    /** A GET that reaches the host under another name (as `http://vm:3101` does from another machine). */
    const viaHost = (path: string, headers: Record<string, string> = {}) =>
      new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const request = httpGet(
          `${host.baseUrl}${path}`,
          { headers: { host: 'vm:3101', 'x-service-api-key': host.apiKey, ...headers } },
          (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => {
              body += chunk;
            });
            response.on('end', () => resolve({ headers: response.headers, body }));
          },
        );
        request.on('error', reject);
      });
    const json = await viaHost(`/v1/execution/${id}/results?limit=5`);
    expect(JSON.parse(json.body).next_uri).toBe(`http://vm:3101/v1/execution/${id}/results?limit=5&offset=5`);
    const csv = await viaHost(`/v1/execution/${id}/results/csv?limit=5`);
    expect(csv.headers['x-dune-next-uri']).toBe(
      `http://vm:3101/v1/execution/${id}/results/csv?limit=5&offset=5`,
    );
    // Behind a proxy that terminates TLS, the scheme it forwards is the client's.
    const proxied = await viaHost(`/v1/execution/${id}/results?limit=5`, { 'x-forwarded-proto': 'https' });
    expect(JSON.parse(proxied.body).next_uri).toMatch(/^https:\/\/vm:3101\/v1\/execution\//);
  });

  it('encodes values as analysts expect: exact uint256 strings, 0x binary, UTC timestamps', async () => {
    const [row] = (await results('?limit=1&offset=7')).result.rows;
    expect(row).toEqual({
      n: 7,
      kind: 'plain',
      amount_raw: '7000000000000000000',
      tag: '0xab',
      block_time: '2026-10-01 00:00:07.000 UTC',
    });
  });

  it('lowers an oversized limit and says where to continue', async () => {
    const page = await results('?limit=100000');
    expect(page.result.rows.length).toBeLessThan(100_000);
    expect(page.next_offset).toBe(page.result.rows.length);
  });

  it.each([
    // 100 rows of 100,000 characters: 10 MB of JSON.
    ['text', 100, "lpad('', 100000, 'x')", 41],
    // Control characters take 6 characters each in JSON (\u0001): 600 KB a row, 18 MB in all,
    // though the text itself is 3 MB.
    ['escaped text', 30, "lpad('', 100000, chr(1))", 6],
  ])(
    'keeps a page of wide rows (%s) under 4 MiB of JSON and says where to continue',
    async (_, count, value, rows) => {
      const wide = await submitSql(
        host,
        `select i, ${value} as s from unnest(sequence(1, ${count})) t(i) order by i`,
      );
      expect((await waitUntilFinished(host, wide, 60_000)).state).toBe('QUERY_STATE_COMPLETED');
      const response = await host.call(`/v1/execution/${wide}/results?limit=100`);
      const text = await response.text();
      const page = JSON.parse(text);
      expect(page.result.rows).toHaveLength(rows);
      expect(page.next_offset).toBe(rows);
      expect(text.length).toBeLessThan(4 * 1024 * 1024);
      expect(text.length).toBeGreaterThan(3 * 1024 * 1024);
    },
  );

  it('returns empty rows past the end, with the true total', async () => {
    const page = await results(`?offset=${ROWS + 10}&limit=10`);
    expect(page.result.rows).toEqual([]);
    expect(page.result.metadata.total_row_count).toBe(ROWS);
    expect(page.next_offset).toBeUndefined();
  });

  it('projects columns, filters with parameters, and sorts', async () => {
    const page = await results(
      `?columns=n,kind&filters=${encodeURIComponent("kind = 'fizz' AND (n < 30 OR n >= 119990)")}&sort_by=${encodeURIComponent('n desc')}&limit=3`,
    );
    expect(page.result.metadata.column_names).toEqual(['n', 'kind']);
    expect(page.result.metadata.total_row_count).toBe(13);
    expect(page.result.rows).toEqual([
      { n: 119997, kind: 'fizz' },
      { n: 119994, kind: 'fizz' },
      { n: 119991, kind: 'fizz' },
    ]);
    const injected = await results(`?filters=${encodeURIComponent("kind = 'x'' OR ''1''=''1'")}&limit=1`);
    expect(injected.result.metadata.total_row_count).toBe(0);
  });

  it('samples about N rows', async () => {
    const page = await results('?sample_count=100');
    expect(page.result.rows.length).toBeGreaterThan(50);
    expect(page.result.rows.length).toBeLessThanOrEqual(150);
  });

  it.each([
    [`?filters=${encodeURIComponent('n NOT IN (1)')}`, /NOT/],
    [`?filters=${encodeURIComponent('lower(kind) = 1')}`, /function|not allowed/i],
    // A literal the column cannot hold: the value, the column, its type and what to write.
    [
      `?filters=${encodeURIComponent("block_time > 'yesterday'")}`,
      /^filters: 'yesterday' is not a timestamp\(3\) \(column block_time\); write a timestamp or a date in quotes, e\.g\. block_time >= '2024-03-05 12:00:00'$/,
    ],
    [
      `?filters=${encodeURIComponent("kind = 'fizz' AND n > 'abc'")}`,
      /^filters: 'abc' is not a bigint \(column n\); write a number, e\.g\. n > 100$/,
    ],
    [
      `?filters=${encodeURIComponent("amount_raw > 'lots'")}`,
      /^filters: 'lots' is not a uint256 \(column amount_raw\); write a number/,
    ],
    [
      `?filters=${encodeURIComponent("tag = 'ab'")}`,
      /^filters: 'ab' is not a varbinary \(column tag\); write 0x and pairs of hex digits in quotes, e\.g\. tag = '0x00ab'$/,
    ],
    ['?columns=nope', /nope/],
    [`?sort_by=${encodeURIComponent('nope desc')}`, /nope/],
    ['?sample_count=10&limit=5', /sample_count cannot be combined/],
    ['?limit=0', /query\.limit/],
    // An option given twice would keep only its last value: refused, saying how to give it once.
    [
      '?columns=n&columns=kind',
      /gives columns 2 times; give it once: .* comma-separated .* columns=tx_hash,block_time/,
    ],
    [
      `?sort_by=n&sort_by=${encodeURIComponent('kind desc')}`,
      /gives sort_by 2 times; .* one comma-separated value/,
    ],
    [
      `?filters=${encodeURIComponent('n > 1')}&filters=${encodeURIComponent('n < 5')}`,
      /gives filters 2 times; give it once: several conditions as one expression joined with AND or OR/,
    ],
    ['?limit=1&limit=2', /^The query string gives limit 2 times; give it once\.$/],
    // A row keyed by name cannot hold a column twice.
    ['?columns=n,kind,n', /^columns: n is named twice; name each column once\.$/],
    [
      '?columns=kind,KIND',
      /^columns: kind is named twice \(as "kind" and "KIND"\); name each column once\.$/,
    ],
  ])('explains a bad results request %s', async (query, message) => {
    const response = await host.call(`/v1/execution/${id}/results${query}`);
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toMatch(message);
  });

  it('ignores a cache-buster `_=` as Dune does, and refuses any other unknown option', async () => {
    for (const path of [
      `/v1/execution/${id}/results?limit=1&_=1764412345678`,
      `/v1/execution/${id}/status?_=1&_=2`,
    ]) {
      expect((await host.call(path)).status, path).toBe(200);
    }
    const typo = await host.call(`/v1/execution/${id}/results?limt=1`);
    expect(typo.status).toBe(400);
    expect((await bodyOf(typo)).error).toMatch(/limt/);
    // Routes that take no option at all read their query string too (nothing runs, nothing changes).
    for (const [path, request] of [
      ['/v1/sql/execute?performance=large', { json: { sql: 'select 1' } }],
      [`/v1/execution/${id}/cancel?force=1`, { method: 'POST' }],
      ['/v1/materialized-views/mv.local.result_nothing?foo=1', { method: 'DELETE' }],
      ['/v1/usage?foo=1', { method: 'POST' }],
    ] as const) {
      const refused = await host.call(path, request);
      expect(refused.status, path).toBe(400);
      expect((await bodyOf(refused)).error, path).toMatch(
        /^query: Unrecognized key: "(performance|force|foo)"/,
      );
    }
    expect((await host.call('/v1/usage?_=1764412345678', { method: 'POST' })).status).toBe(200);
  });

  it('compares literals the columns can hold, and refuses one they cannot in CSV too', async () => {
    const valid = encodeURIComponent(
      "kind = 1 OR tag = '0xAB' AND n < '3' AND block_time >= '2026-10-01 00:00'",
    );
    expect((await results(`?filters=${valid}&columns=n`)).result.rows).toEqual([
      { n: 0 },
      { n: 1 },
      { n: 2 },
    ]);
    const response = await host.call(
      `/v1/execution/${id}/results/csv?filters=${encodeURIComponent("block_time < '2026-13-01'")}`,
    );
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toMatch(
      /^filters: '2026-13-01' is not a timestamp\(3\) \(column block_time\); write a timestamp or a date in quotes/,
    );
  });

  it('serves CSV with paging headers', async () => {
    const response = await host.call(`/v1/execution/${id}/results/csv?limit=3&offset=3&columns=n,kind`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/csv/);
    expect(response.headers.get('x-service-next-offset')).toBe('6');
    expect(response.headers.get('x-service-next-uri')).toMatch(/offset=6/);
    expect((await response.text()).trim().split(/\r?\n/)).toEqual(['n,kind', '3,fizz', '4,plain', '5,plain']);
  });
});

describe('results: a timestamp moved to a zone, and a year-to-month interval', () => {
  let host: TestHost;
  let id: string;
  beforeAll(async () => {
    host = await startTestHost();
    // 48 hours of New York's wall-clock time from 2024-01-01 00:00 UTC (19:00 the day before there).
    id = await submitSql(
      host,
      `select h, (timestamp '2024-01-01 00:00:00.000' + h * interval '1' hour) at time zone 'America/New_York' as ny,
              h * interval '1' month as months
       from unnest(sequence(0, 47)) as t (h)`,
    );
    expect((await waitUntilFinished(host, id, 60_000)).state).toBe('QUERY_STATE_COMPLETED');
  });
  afterAll(() => host?.stop());

  const results = async (path: string) => {
    const response = await host.call(`/v1/execution/${id}/${path}`);
    expect(response.status, await response.clone().text()).toBe(200);
    return response;
  };

  it('shows the zone and the types Trino gives, and filters and sorts by what is shown', async () => {
    const page = await bodyOf(await results('results?limit=2'));
    expect(page.result.metadata.column_types).toEqual([
      'bigint',
      'timestamp(3) with time zone',
      'interval year to month',
    ]);
    expect(page.result.rows).toEqual([
      { h: 0, ny: '2023-12-31 19:00:00.000 America/New_York', months: '0-0' },
      { h: 1, ny: '2023-12-31 20:00:00.000 America/New_York', months: '0-1' },
    ]);
    const filter = encodeURIComponent("ny >= '2024-01-02 16:00:00.000 America/New_York' OR months = '0-5'");
    const filtered = await bodyOf(await results(`results?filters=${filter}&sort_by=ny%20desc&columns=h`));
    expect(filtered.result.rows).toEqual([{ h: 47 }, { h: 46 }, { h: 45 }, { h: 5 }]);
    for (const [filter, message] of [
      [
        "ny > 'tomorrow'",
        "filters: 'tomorrow' is not a timestamp(3) with time zone (column ny); write a timestamp",
      ],
      [
        'months >= 5',
        "filters: 5 is not an interval year to month (column months); write years-months as results show them, in quotes, e.g. months >= '1-6'",
      ],
    ]) {
      const refused = await host.call(`/v1/execution/${id}/results?filters=${encodeURIComponent(filter!)}`);
      expect(refused.status, filter).toBe(400);
      expect((await bodyOf(refused)).error.startsWith(message!), filter).toBe(true);
    }
    const csv = await (await results('results/csv?limit=1&offset=30&columns=ny,months')).text();
    expect(csv.trim().split(/\r?\n/)).toEqual(['ny,months', '2024-01-02 01:00:00.000 America/New_York,2-6']);
  });
});
