import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, startTestHost, type TestHost } from '../support/test-host';

interface SearchResponse {
  total: number;
  results: {
    full_name: string;
    category: string;
    schema?: unknown[];
    score?: number;
    row_count: number | null;
  }[];
  unmatched_words?: string[];
  pagination: { limit: number; offset: number; next_offset: number | null; has_more: boolean };
}

describe('dataset catalog over REST (local HTTP server, dynalite, DuckDB data)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startTestHost();
  });
  afterAll(() => host?.stop());

  const search = async (body: unknown) => {
    const response = await host.call('/v1/datasets/search', { method: 'POST', body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await bodyOf(response)) as SearchResponse;
  };

  it('ranks swap tables first for "swap", decoded and curated alike, even from curl-style form bodies', async () => {
    const result = await search({ query: 'swap' });
    const names = result.results.map((r) => r.full_name);
    expect(names.slice(0, 5)).toEqual(
      expect.arrayContaining(['uniswap_v3_ethereum.Pair_evt_Swap', 'dex.trades']),
    );
    expect(result.results.every((r) => r.category === 'decoded' || r.category === 'spell')).toBe(true);
    const scores = result.results.map((r) => r.score ?? 0);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('names the words no table matched when the results match only some of the query', async () => {
    const partial = await search({ query: 'nft trades' });
    expect(partial.unmatched_words).toEqual(['nft']);
    expect(partial.results.map((r) => r.full_name)).toContain('dex.trades');
    // Every word matched a table: no unmatched_words.
    expect(await search({ query: 'uniswap swap' })).not.toHaveProperty('unmatched_words');
  });

  it('filters by blockchain, category and schema, and pages with next_offset', async () => {
    const decodedOnBase = await search({
      query: '*',
      blockchains: ['base'],
      categories: ['decoded'],
      limit: 2,
    });
    expect(decodedOnBase.total).toBe(3);
    expect(decodedOnBase.results).toHaveLength(2);
    expect(decodedOnBase.pagination).toEqual({ limit: 2, offset: 0, next_offset: 2, has_more: true });
    expect(
      decodedOnBase.results.every((r) => r.full_name.endsWith(`_base.${r.full_name.split('.')[1]}`)),
    ).toBe(true);
    const last = await search({
      query: '*',
      blockchains: ['base'],
      categories: ['decoded'],
      limit: 2,
      offset: 2,
    });
    expect(last.results).toHaveLength(1);
    expect(last.pagination.has_more).toBe(false);
    const dex = await search({ query: 'trades', schemas: ['DEX'] });
    expect(dex.results.map((r) => r.full_name)).toEqual(['dex.trades']);
  });

  it('includes column schemas only when asked', async () => {
    const compact = await search({ query: 'prices' });
    expect(compact.results[0]?.schema).toBeUndefined();
    const full = await search({ query: 'prices', include_schema: true });
    const prices = full.results.find((r) => r.full_name === 'prices.usd');
    expect(prices?.schema).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'minute' })]));
  });

  it('describes one table with columns, partition column and measured size', async () => {
    const response = await host.call('/v1/datasets/dex.trades');
    expect(response.status).toBe(200);
    const dataset = await bodyOf(response);
    expect(dataset).toMatchObject({
      full_name: 'dex.trades',
      category: 'spell',
      type: 'spell',
      is_private: false,
    });
    expect(dataset.metadata.row_count).toBeGreaterThan(0);
    expect(dataset.metadata.size_bytes).toBeGreaterThan(0);
    const partition = dataset.columns.filter(
      (c: { metadata: { filtering_column: boolean } }) => c.metadata.filtering_column,
    );
    expect(partition.map((c: { name: string }) => c.name)).toEqual([dataset.metadata.partition_column]);
    const missing = await host.call('/v1/datasets/dex.nope');
    expect(missing.status).toBe(404);
    expect((await bodyOf(missing)).error).toMatch(/dex\.nope/);
  });

  it('lists datasets with type and chain filters and a total', async () => {
    const response = await host.call('/v1/datasets?type=decoded_table&blockchain=ethereum&limit=10');
    expect(response.status).toBe(200);
    const list = await bodyOf(response);
    expect(list.total).toBe(3);
    expect(list.datasets.map((d: { full_name: string }) => d.full_name).sort()).toEqual([
      'erc20_ethereum.evt_Transfer',
      'uniswap_v3_ethereum.Factory_evt_PoolCreated',
      'uniswap_v3_ethereum.Pair_evt_Swap',
    ]);
    const all = await bodyOf(await host.call('/v1/datasets?limit=250'));
    expect(all.total).toBe(all.datasets.length);
    expect(all.total).toBeGreaterThanOrEqual(26);
  });

  it('finds decoded tables by contract address, from definitions and from the data', async () => {
    const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';
    const response = await host.call('/v1/datasets/search-by-contract', {
      json: { contract_address: weth, include_schema: true },
    });
    expect(response.status).toBe(200);
    const result = (await bodyOf(response)) as SearchResponse;
    expect(result.results.map((r) => r.full_name)).toContain('erc20_ethereum.evt_Transfer');
    expect(result.results.every((r) => r.category === 'decoded')).toBe(true);

    const factory = await host.call('/v1/datasets/search-by-contract', {
      json: { contract_address: '0x1f98431c8ad98523631ae4a59f267346ea31f984', blockchains: ['arbitrum'] },
    });
    expect(((await bodyOf(factory)) as SearchResponse).results.map((r) => r.full_name)).toEqual([
      'uniswap_v3_arbitrum.Factory_evt_PoolCreated',
    ]);
  });

  it('explains a malformed contract address', async () => {
    const response = await host.call('/v1/datasets/search-by-contract', {
      json: { contract_address: '0x1234' },
    });
    expect(response.status).toBe(400);
    expect((await bodyOf(response)).error).toMatch(/contract_address: must be a 20-byte EVM address/);
  });
});
