import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOCKCHAINS, DATASET_CATEGORIES, type TableStats } from '../../functions/core/catalog';
import { duckDbTypeOf } from '../../functions/core/sql-types';
import { BASE_TABLES, UNISWAP_V3_FACTORY, WELL_KNOWN_TOKENS } from '../../functions/datasets/base-tables';
import { measureTableStats } from '../../functions/local/sample-data/table-stats';
import { closeSampleDb, rows, SAMPLE_WINDOW, type SampleDb, sampleDb } from './support';

let db: SampleDb;
let stats: TableStats[];

beforeAll(async () => {
  db = await sampleDb({ scale: 0.01 });
  stats = await measureTableStats(db.connection, BASE_TABLES);
});
afterAll(() => closeSampleDb(db));

/** information_schema quotes some struct field names ("index"); the registry mapping quotes all. */
const unquoted = (type: string) => type.replaceAll('"', '');
const iso = (sqlTimestamp: string) => `${sqlTimestamp.replace(' ', 'T')}.000Z`;

const statsOf = (fullName: string) => {
  const entry = stats.find((candidate) => candidate.fullName === fullName);
  if (!entry) throw new Error(`no stats for ${fullName}`);
  return entry;
};

describe('the base-table registry', () => {
  it('describes every generated table column for column (names, order, DuneSQL types mapped to DuckDB)', async () => {
    const columns = await rows(
      db.connection,
      `SELECT table_schema AS schema, table_name AS "table", column_name AS name, data_type AS type
       FROM information_schema.columns
       WHERE table_catalog = current_database() AND table_schema <> 'main'
       ORDER BY table_schema, table_name, ordinal_position`,
    );
    const generated = new Map<string, { name: string; type: string }[]>();
    for (const column of columns) {
      const key = `${column.schema}.${column.table}`;
      const list = generated.get(key) ?? [];
      list.push({ name: String(column.name), type: unquoted(String(column.type)) });
      generated.set(key, list);
    }
    expect([...generated.keys()].sort()).toEqual(BASE_TABLES.map((definition) => definition.fullName).sort());
    for (const definition of BASE_TABLES) {
      expect.soft(generated.get(definition.fullName), definition.fullName).toEqual(
        definition.columns.map((column) => ({
          name: column.name,
          type: unquoted(duckDbTypeOf(column.type)),
        })),
      );
    }
  });

  it('states types as Dune does: varbinary addresses and hashes, uint256/int256 amounts, lowercase names', () => {
    const typeOf = (fullName: string, column: string) =>
      BASE_TABLES.find((definition) => definition.fullName === fullName)?.columns.find(
        (c) => c.name === column,
      )?.type;
    expect(typeOf('prices.usd', 'contract_address')).toBe('varbinary');
    expect(typeOf('ethereum.transactions', 'hash')).toBe('varbinary');
    expect(typeOf('ethereum.transactions', 'data')).toBe('varbinary');
    expect(typeOf('ethereum.logs', 'topic1')).toBe('varbinary');
    expect(typeOf('ethereum.transactions', 'value')).toBe('uint256');
    expect(typeOf('uniswap_v3_base.Pair_evt_Swap', 'amount0')).toBe('int256');
    expect(typeOf('dex.trades', 'block_date')).toBe('date');
    expect(typeOf('bitcoin.transactions', 'inputs')).toMatch(/^array\(row\(.*spent_tx_id varbinary/);
    for (const definition of BASE_TABLES) {
      for (const column of definition.columns) {
        expect(column.type, `${definition.fullName}.${column.name}`).toBe(column.type.toLowerCase());
        // Every column that holds an address, hash, topic or calldata is varbinary.
        if (
          /(^|_)(address|hash|from|to|topic\d|data|taker|maker|miner|sender|recipient|token[01]|pool)$|^id$/.test(
            column.name,
          )
        ) {
          if (!['blockchain', 'token_standard'].includes(column.name)) {
            expect(column.type, `${definition.fullName}.${column.name}`).toBe('varbinary');
          }
        }
      }
    }
  });

  it('is well formed: unique names, known categories and chains, partition columns that exist', () => {
    const names = BASE_TABLES.map((definition) => definition.fullName);
    expect(new Set(names).size).toBe(names.length);
    for (const definition of BASE_TABLES) {
      expect(definition.fullName).toBe(`${definition.schema}.${definition.table}`);
      expect(DATASET_CATEGORIES).toContain(definition.category);
      expect(definition.blockchains.length).toBeGreaterThan(0);
      for (const chain of definition.blockchains) expect(BLOCKCHAINS).toContain(chain);
      expect(definition.columns.map((column) => column.name)).toContain(definition.partitionColumn);
      expect(definition.description.length).toBeGreaterThan(60);
      for (const column of definition.columns)
        expect(column.description.length, column.name).toBeGreaterThan(5);
      const popularity = definition.popularity ?? 0;
      expect(popularity).toBeGreaterThanOrEqual(0);
      expect(popularity).toBeLessThanOrEqual(1);
      if (definition.category === 'decoded') {
        expect(definition.project).toBeTruthy();
        expect(definition.contractName).toBeTruthy();
        expect(definition.eventName).toBeTruthy();
        expect(definition.columns.slice(0, 9).map((column) => column.name)).toEqual(
          expect.arrayContaining([
            'contract_address',
            'evt_tx_hash',
            'evt_index',
            'evt_block_time',
            'evt_block_number',
            'evt_block_date',
          ]),
        );
      }
    }
  });

  it('writes descriptions an analyst can search (dex.trades mentions swaps)', () => {
    const dexTrades = BASE_TABLES.find((definition) => definition.fullName === 'dex.trades');
    expect(dexTrades?.description.toLowerCase()).toContain('swap');
    const byPopularity = [...BASE_TABLES].sort((a, b) => (b.popularity ?? 0) - (a.popularity ?? 0));
    expect(byPopularity.slice(0, 5).map((definition) => definition.fullName)).toEqual(
      expect.arrayContaining(['dex.trades', 'prices.usd', 'ethereum.transactions', 'tokens.erc20']),
    );
  });

  it('lists static contract addresses for decoded tables: the tokens and the Uniswap V3 factory', () => {
    const transfer = BASE_TABLES.find((definition) => definition.fullName === 'erc20_ethereum.evt_Transfer');
    expect(transfer?.contractAddresses).toContain('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
    const created = BASE_TABLES.find(
      (definition) => definition.fullName === 'uniswap_v3_base.Factory_evt_PoolCreated',
    );
    expect(created?.contractAddresses).toEqual([UNISWAP_V3_FACTORY.base]);
    for (const token of WELL_KNOWN_TOKENS) expect(token.address).toMatch(/^0x[0-9a-f]{40}$/);
  });
});

describe('measureTableStats', () => {
  it('measures every table with positive sizes that add up per column', () => {
    expect(stats.map((entry) => entry.fullName)).toEqual(
      BASE_TABLES.map((definition) => definition.fullName),
    );
    for (const entry of stats) {
      expect(entry.rowCount, entry.fullName).toBeGreaterThan(0);
      expect(entry.sizeBytes, entry.fullName).toBeGreaterThan(0);
      const definition = BASE_TABLES.find((candidate) => candidate.fullName === entry.fullName)!;
      expect(Object.keys(entry.columnBytes)).toEqual(definition.columns.map((column) => column.name));
      const sum = Object.values(entry.columnBytes).reduce((total, bytes) => total + bytes, 0);
      expect(Math.abs(sum - entry.sizeBytes)).toBeLessThanOrEqual(entry.sizeBytes * 0.01);
      expect(Number.isNaN(Date.parse(entry.refreshedAt))).toBe(false);
    }
  });

  it('uses fixed widths for numbers and times and string lengths for text', () => {
    const transactions = statsOf('ethereum.transactions');
    expect(transactions.columnBytes.block_number).toBe(8 * transactions.rowCount);
    expect(transactions.columnBytes.block_time).toBe(8 * transactions.rowCount);
    expect(transactions.columnBytes.value).toBe(16 * transactions.rowCount);
    expect(transactions.columnBytes.index).toBe(4 * transactions.rowCount);
    expect(transactions.columnBytes.hash).toBe(32 * transactions.rowCount);
    expect(transactions.columnBytes.from).toBe(20 * transactions.rowCount);
    expect(statsOf('bitcoin.transactions').columnBytes.fee).toBe(
      8 * statsOf('bitcoin.transactions').rowCount,
    );
  });

  it('reports time ranges inside the data window', () => {
    for (const entry of stats) {
      if (['tokens.erc20'].includes(entry.fullName) || entry.fullName.endsWith('.contracts')) continue;
      expect(entry.timeRange, entry.fullName).toBeDefined();
      expect(entry.timeRange!.min >= iso(SAMPLE_WINDOW.start), entry.fullName).toBe(true);
      expect(entry.timeRange!.max < iso(SAMPLE_WINDOW.end), entry.fullName).toBe(true);
      // The data runs up to the end of the window: its last day holds rows (pools are created early).
      if (!entry.fullName.endsWith('_evt_PoolCreated')) {
        expect(entry.timeRange!.max >= iso('2026-10-31 00:00:00'), entry.fullName).toBe(true);
      }
      expect(entry.timeRange!.min <= entry.timeRange!.max).toBe(true);
    }
    expect(statsOf('tokens.erc20').timeRange).toBeUndefined();
  });

  it('reports the contracts found in decoded tables, sorted', () => {
    const transfer = statsOf('erc20_arbitrum.evt_Transfer');
    const arbitrumTokens = WELL_KNOWN_TOKENS.filter((token) => token.blockchain === 'arbitrum').map(
      (t) => t.address,
    );
    expect(transfer.contractAddresses?.length).toBeGreaterThan(3);
    for (const address of transfer.contractAddresses ?? []) expect(arbitrumTokens).toContain(address);
    expect(transfer.contractAddresses).toEqual([...(transfer.contractAddresses ?? [])].sort());
    expect(statsOf('uniswap_v3_ethereum.Factory_evt_PoolCreated').contractAddresses).toEqual([
      UNISWAP_V3_FACTORY.ethereum,
    ]);
    const pools = statsOf('uniswap_v3_ethereum.Pair_evt_Swap').contractAddresses ?? [];
    expect(pools.length).toBeGreaterThan(5);
    expect(statsOf('dex.trades').contractAddresses).toBeUndefined();
  });
});
