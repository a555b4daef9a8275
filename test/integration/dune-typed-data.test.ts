import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitSql, waitUntilFinished } from '../support/executions';
import { bodyOf, type Json, startTestHost, type TestHost } from '../support/test-host';

/** SQL in this file is valid in both Trino (DuneSQL) and DuckDB, so it survives the translator. */
const WETH = 'c02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';

describe("the sample warehouse looks like Dune's: types, varbinary values and a window ending at the build date", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const run = async (sql: string): Promise<Json> => {
    const id = await submitSql(host, sql);
    const status = await waitUntilFinished(host, id);
    expect(status.state, JSON.stringify(status.error)).toBe('QUERY_STATE_COMPLETED');
    return bodyOf(await host.call(`/v1/execution/${id}/results`));
  };
  const csvOf = async (sql: string): Promise<string> => {
    const id = await submitSql(host, sql);
    await waitUntilFinished(host, id);
    return (await host.call(`/v1/execution/${id}/results/csv`)).text();
  };

  it('reports DuneSQL column types in the catalog', async () => {
    const prices = await bodyOf(await host.call('/v1/datasets/prices.usd'));
    const typeOf = (dataset: Json, name: string) =>
      dataset.columns.find((column: Json) => column.name === name)?.type;
    expect(typeOf(prices, 'contract_address')).toBe('varbinary');
    expect(typeOf(prices, 'minute')).toBe('timestamp');
    expect(typeOf(prices, 'price')).toBe('double');
    const transactions = await bodyOf(await host.call('/v1/datasets/ethereum.transactions'));
    expect(typeOf(transactions, 'value')).toBe('uint256');
    expect(typeOf(transactions, 'hash')).toBe('varbinary');
    expect(typeOf(transactions, 'block_date')).toBe('date');
    const search = await bodyOf(
      await host.call('/v1/datasets/search', {
        json: { query: 'uniswap swap', blockchains: ['base'], include_schema: true },
      }),
    );
    const swap = search.results.find((result: Json) => result.full_name === 'uniswap_v3_base.Pair_evt_Swap');
    expect(swap.schema.find((column: Json) => column.name === 'amount0').type).toBe('int256');
  });

  it('ends the data at the build date, so "the last 7 days" finds rows and none lie in the future', async () => {
    const manifest = await bodyOf(await host.call('/v1/datasets/ethereum.transactions'));
    const range = manifest.metadata.time_range;
    // The suite's warehouse is built by the global setup for the day it runs: the window ends where
    // that day begins, and the data runs up to it.
    const { buildDate, window } = host.warehouse.manifest;
    expect(window.end).toBe(`${buildDate}T00:00:00.000Z`);
    expect(range.max < window.end).toBe(true);
    expect(Date.parse(window.end) - Date.parse(range.max)).toBeLessThan(2 * 3_600_000);
    const recent = await run(
      `select count(*) as n, max(block_time) as latest, min(block_date) as first_day
       from ethereum.transactions where block_time > now() - interval '7' day`,
    );
    expect(recent.result.rows[0].n).toBeGreaterThan(100);
    expect(recent.result.metadata.column_types).toEqual(['bigint', 'timestamp(3)', 'date']);
    const future = await run('select count(*) as n from dex.trades where block_time > now()');
    expect(future.result.rows[0].n).toBe(0);
  });

  it('compares addresses as varbinary and renders varbinary and uint256 as Dune does, in JSON and CSV', async () => {
    const sql = `select e.contract_address, e."from", e.evt_tx_hash, e."value", t.data, t.value as eth_value
                 from erc20_ethereum.evt_Transfer e
                 join ethereum.transactions t on t.hash = e.evt_tx_hash
                 where e.contract_address = from_hex('${WETH}') and t."to" = e.contract_address
                 order by e."value" desc limit 3`;
    const page = await run(sql);
    expect(page.result.metadata.column_types).toEqual([
      'varbinary',
      'varbinary',
      'varbinary',
      'uint256',
      'varbinary',
      'uint256',
    ]);
    const [row] = page.result.rows;
    expect(row.contract_address).toBe(`0x${WETH}`);
    expect(row.from).toMatch(/^0x[0-9a-f]{40}$/);
    expect(row.evt_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // ERC-20 transfer(to, amount) calldata: selector + two ABI words, the amount exact.
    expect(row.data).toMatch(/^0xa9059cbb[0-9a-f]{128}$/);
    expect(BigInt(`0x${row.data.slice(-64)}`).toString()).toBe(String(row.value));
    // 18-decimal WETH amounts exceed 2^53: exact decimal strings.
    expect(typeof row.value).toBe('string');
    expect(row.value).toMatch(/^\d{16,}$/);
    expect(row.eth_value).toBe('0');

    const csv = await csvOf(sql);
    const [header, first] = csv.split('\r\n');
    expect(header).toBe('contract_address,from,evt_tx_hash,value,data,eth_value');
    expect(first).toBe(
      [row.contract_address, row.from, row.evt_tx_hash, row.value, row.data, row.eth_value].join(','),
    );
  });

  it('renders varbinary inside arrays as 0x hex', async () => {
    const page = await run(
      `select array[hash, block_hash] as hashes, value
       from ethereum.transactions where value > 0 order by value desc limit 1`,
    );
    expect(page.result.metadata.column_types).toEqual(['array(varbinary)', 'uint256']);
    const [row] = page.result.rows;
    expect(row.hashes).toHaveLength(2);
    for (const hash of row.hashes) expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(String(row.value)).toMatch(/^\d+$/);
  });
});
