import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EVENT_TOPICS,
  EVM_CHAINS,
  UNISWAP_V3_FACTORY,
  WELL_KNOWN_TOKENS,
} from '../../functions/datasets/base-tables';
import { closeSampleDb, num, rows, SAMPLE_WINDOW, type SampleDb, sampleDb } from './support';

let db: SampleDb;
const count = (sql: string) => num(db.connection, sql);
/** A varbinary literal for `0x…` hex (from_hex returns varbinary in DuckDB and Trino alike). */
const bin = (hex: string) => `from_hex('${hex.slice(2)}')`;
/** One ABI word (32 bytes) of an integer, two's complement for negatives. */
const word = (x: string) =>
  `from_hex(lpad(lower(to_hex(${x})), 64, CASE WHEN ${x} < 0 THEN 'f' ELSE '0' END))`;
/** An address as a log topic: left-padded to 32 bytes. */
const topic = (address: string) => `(${bin(`0x${'00'.repeat(12)}`)} || ${address})`;

beforeAll(async () => {
  db = await sampleDb({ scale: 0.02 });
});
afterAll(() => closeSampleDb(db));

describe.each(EVM_CHAINS)('%s raw tables', (chain) => {
  it('has every transaction in an existing block with the same number, time and hash', async () => {
    expect(await count(`SELECT count(*) FROM ${chain}.transactions`)).toBeGreaterThan(1000);
    expect(
      await count(`SELECT count(*) FROM ${chain}.transactions t LEFT JOIN ${chain}.blocks b ON b.number = t.block_number
                   WHERE b.number IS NULL OR b.time <> t.block_time OR b.hash <> t.block_hash
                      OR t.block_date <> b.date`),
    ).toBe(0);
  });

  it('chains blocks: consecutive numbers, non-decreasing time, parent hash = previous hash, counts match', async () => {
    expect(
      await count(`SELECT count(*) FROM (
                     SELECT number, time, parent_hash, lag(number) OVER w AS pn, lag(time) OVER w AS pt,
                            lag(hash) OVER w AS ph FROM ${chain}.blocks WINDOW w AS (ORDER BY number))
                   WHERE pn IS NOT NULL AND (number <> pn + 1 OR time < pt OR parent_hash <> ph)`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM ${chain}.blocks b
                   LEFT JOIN (SELECT block_number, count(*) AS n, sum(gas_used) AS gas FROM ${chain}.transactions
                              GROUP BY ALL) t ON t.block_number = b.number
                   WHERE b.transaction_count <> coalesce(t.n, 0) OR b.gas_used <> coalesce(t.gas, 0)`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM ${chain}.blocks
                   WHERE time < TIMESTAMP '${SAMPLE_WINDOW.start}' OR time >= TIMESTAMP '${SAMPLE_WINDOW.end}'`),
    ).toBe(0);
  });

  it('has every log in an existing successful transaction of the same block, with contiguous log indexes', async () => {
    expect(
      await count(`SELECT count(*) FROM ${chain}.logs l LEFT JOIN ${chain}.transactions t ON t.hash = l.tx_hash
                   WHERE t.hash IS NULL OR t.block_number <> l.block_number OR t.block_time <> l.block_time
                      OR t."index" <> l.tx_index OR t."from" <> l.tx_from OR t."to" <> l.tx_to OR NOT t.success`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM (SELECT block_number, count(*) AS n, count(DISTINCT "index") AS d,
                                                min("index") AS lo, max("index") AS hi
                                         FROM ${chain}.logs GROUP BY ALL)
                   WHERE n <> d OR lo <> 0 OR hi <> n - 1`),
    ).toBe(0);
  });

  it('stores addresses (20 bytes), hashes and topics (32 bytes) and calldata as varbinary, uniquely', async () => {
    expect(
      await count(`SELECT count(*) FROM ${chain}.transactions
                   WHERE octet_length(hash) <> 32 OR octet_length("from") <> 20 OR octet_length("to") <> 20
                      OR octet_length(block_hash) <> 32 OR (octet_length(data) - 4) % 32 NOT IN (0, -4)`),
    ).toBe(0);
    expect(await count(`SELECT count(*) - count(DISTINCT hash) FROM ${chain}.transactions`)).toBe(0);
    expect(
      await count(`SELECT count(*) FROM ${chain}.logs
                   WHERE octet_length(topic0) <> 32 OR octet_length(contract_address) <> 20
                      OR octet_length(data) % 32 <> 0 OR octet_length(coalesce(topic1, topic0)) <> 32`),
    ).toBe(0);
    // Calldata starts with the selector of the function called: ERC-20 transfer for token transfers.
    expect(
      await count(`SELECT count(*) FROM ${chain}.transactions t JOIN ${chain}.logs l ON l.tx_hash = t.hash
                   WHERE l.topic0 = ${bin(EVENT_TOPICS.erc20Transfer)} AND t."to" = l.contract_address
                     AND left(lower(to_hex(t.data)), 8) <> 'a9059cbb'`),
    ).toBe(0);
  });
});

describe.each(EVM_CHAINS)('%s decoded tables', (chain) => {
  const tokens = WELL_KNOWN_TOKENS.filter((token) => token.blockchain === chain);

  it('matches every evt_Transfer row to its Transfer log (topic0, token contract, topics, data) and back', async () => {
    const transfers = await count(`SELECT count(*) FROM erc20_${chain}.evt_Transfer`);
    expect(transfers).toBeGreaterThan(100);
    expect(
      await count(`SELECT count(*) FROM ${chain}.logs WHERE topic0 = ${bin(EVENT_TOPICS.erc20Transfer)}`),
    ).toBe(transfers);
    expect(
      await count(`SELECT count(*) FROM erc20_${chain}.evt_Transfer e
                   JOIN ${chain}.logs l ON l.tx_hash = e.evt_tx_hash AND l."index" = e.evt_index
                   WHERE l.topic0 = ${bin(EVENT_TOPICS.erc20Transfer)} AND l.contract_address = e.contract_address
                     AND l.topic1 = ${topic('e."from"')} AND l.topic2 = ${topic('e."to"')}
                     AND l.data = ${word('e."value"')} AND l.block_number = e.evt_block_number
                     AND l.block_time = e.evt_block_time`),
    ).toBe(transfers);
    const known = tokens.map((token) => bin(token.address)).join(', ');
    expect(
      await count(
        `SELECT count(*) FROM erc20_${chain}.evt_Transfer WHERE contract_address NOT IN (${known})`,
      ),
    ).toBe(0);
  });

  it('has every decoded event in an existing transaction with the same block number and time', async () => {
    for (const table of [
      `erc20_${chain}.evt_Transfer`,
      `uniswap_v3_${chain}.Pair_evt_Swap`,
      `uniswap_v3_${chain}.Factory_evt_PoolCreated`,
    ]) {
      expect(
        await count(`SELECT count(*) FROM ${table} e LEFT JOIN ${chain}.transactions t ON t.hash = e.evt_tx_hash
                     WHERE t.hash IS NULL OR t.block_number <> e.evt_block_number OR t.block_time <> e.evt_block_time
                        OR t."from" <> e.evt_tx_from OR t."index" <> e.evt_tx_index
                        OR e.evt_block_date <> e.evt_block_time::DATE`),
      ).toBe(0);
    }
  });

  it('creates pools in the real factory, with ordered known tokens, before any swap in them', async () => {
    expect(
      await count(`SELECT count(*) FROM uniswap_v3_${chain}.Factory_evt_PoolCreated
                   WHERE contract_address <> ${bin(UNISWAP_V3_FACTORY[chain])} OR token0 >= token1
                      OR token0 NOT IN (SELECT contract_address FROM tokens.erc20 WHERE blockchain = '${chain}')
                      OR token1 NOT IN (SELECT contract_address FROM tokens.erc20 WHERE blockchain = '${chain}')`),
    ).toBe(0);
    expect(await count(`SELECT count(*) FROM uniswap_v3_${chain}.Pair_evt_Swap`)).toBeGreaterThan(50);
    expect(
      await count(`SELECT count(*) FROM uniswap_v3_${chain}.Pair_evt_Swap s
                   LEFT JOIN uniswap_v3_${chain}.Factory_evt_PoolCreated p ON p.pool = s.contract_address
                   WHERE p.pool IS NULL
                      OR (p.evt_block_number, p.evt_index) >= (s.evt_block_number, s.evt_index)`),
    ).toBe(0);
    // One side in, the other out; the Swap log carries the same words.
    expect(
      await count(`SELECT count(*) FROM uniswap_v3_${chain}.Pair_evt_Swap s
                   JOIN ${chain}.logs l ON l.tx_hash = s.evt_tx_hash AND l."index" = s.evt_index
                   WHERE sign(s.amount0) * sign(s.amount1) <> -1 OR l.topic0 <> ${bin(EVENT_TOPICS.uniswapV3Swap)}
                      OR l.data <> ${word('s.amount0')} || ${word('s.amount1')} || ${word('s."sqrtPriceX96"')}
                                       || ${word('s.liquidity')} || ${word('s.tick')}`),
    ).toBe(0);
  });
});

describe('curated tables', () => {
  it('has one dex.trades row per swap, with amounts = raw / 10^decimals and the right tokens', async () => {
    const swaps = await count(
      EVM_CHAINS.map((chain) => `SELECT count(*) AS n FROM uniswap_v3_${chain}.Pair_evt_Swap`)
        .join(' UNION ALL ')
        .replace(/^/, 'SELECT sum(n) FROM (')
        .concat(')'),
    );
    expect(await count('SELECT count(*) FROM dex.trades')).toBe(swaps);
    for (const chain of EVM_CHAINS) {
      expect(
        await count(`SELECT count(*) FROM dex.trades d
          JOIN uniswap_v3_${chain}.Pair_evt_Swap s ON s.evt_tx_hash = d.tx_hash AND s.evt_index = d.evt_index
          JOIN uniswap_v3_${chain}.Factory_evt_PoolCreated p ON p.pool = s.contract_address
          JOIN tokens.erc20 tb ON tb.blockchain = d.blockchain AND tb.contract_address = d.token_bought_address
          JOIN tokens.erc20 ts ON ts.blockchain = d.blockchain AND ts.contract_address = d.token_sold_address
          JOIN ${chain}.transactions t ON t.hash = d.tx_hash
          WHERE d.blockchain = '${chain}'
            AND d.project_contract_address = s.contract_address AND d.block_time = s.evt_block_time
            AND d.taker = s.recipient AND d.tx_from = t."from" AND d.tx_to = t."to"
            AND CASE WHEN s.amount0 > 0
                     THEN d.token_sold_address = p.token0 AND d.token_sold_amount_raw = s.amount0
                          AND d.token_bought_address = p.token1 AND d.token_bought_amount_raw = -s.amount1
                     ELSE d.token_sold_address = p.token1 AND d.token_sold_amount_raw = s.amount1
                          AND d.token_bought_address = p.token0 AND d.token_bought_amount_raw = -s.amount0 END
            AND abs(d.token_bought_amount / (d.token_bought_amount_raw::DOUBLE / pow(10, tb.decimals)) - 1) < 1e-12
            AND abs(d.token_sold_amount / (d.token_sold_amount_raw::DOUBLE / pow(10, ts.decimals)) - 1) < 1e-12
            AND d.token_bought_symbol = tb.symbol AND d.token_sold_symbol = ts.symbol
            AND d.block_date = d.block_time::DATE AND d.block_month = date_trunc('month', d.block_time)::DATE`),
      ).toBe(await count(`SELECT count(*) FROM uniswap_v3_${chain}.Pair_evt_Swap`));
    }
  });

  it('prices dex.trades with prices.usd at the minute, and swaps trade near the ratio of USD prices', async () => {
    const bad = await rows(
      db.connection,
      `SELECT d.tx_hash, d.amount_usd, d.token_bought_amount * pb.price AS bought_usd,
              d.token_sold_amount * ps.price AS sold_usd
       FROM dex.trades d
       JOIN prices.usd pb ON pb.blockchain = d.blockchain AND pb.contract_address = d.token_bought_address
                         AND pb.minute = date_trunc('minute', d.block_time)
       JOIN prices.usd ps ON ps.blockchain = d.blockchain AND ps.contract_address = d.token_sold_address
                         AND ps.minute = date_trunc('minute', d.block_time)
       WHERE abs(d.amount_usd / bought_usd - 1) > 1e-9
          OR d.amount_usd / sold_usd NOT BETWEEN 0.97 AND 1.0
       LIMIT 5`,
    );
    expect(bad).toEqual([]);
    expect(await count('SELECT count(*) FROM dex.trades WHERE amount_usd IS NULL OR amount_usd <= 0')).toBe(
      0,
    );
  });

  it('has one tokens.transfers row per evt_Transfer, with symbols from tokens.erc20 and USD from prices.usd', async () => {
    let total = 0;
    for (const chain of EVM_CHAINS) {
      const n = await count(`SELECT count(*) FROM erc20_${chain}.evt_Transfer`);
      total += n;
      expect(
        await count(`SELECT count(*) FROM tokens.transfers x
          JOIN erc20_${chain}.evt_Transfer e ON e.evt_tx_hash = x.tx_hash AND e.evt_index = x.evt_index
          JOIN tokens.erc20 k ON k.blockchain = x.blockchain AND k.contract_address = x.contract_address
          JOIN prices.usd p ON p.blockchain = x.blockchain AND p.contract_address = x.contract_address
                           AND p.minute = date_trunc('minute', x.block_time)
          WHERE x.blockchain = '${chain}' AND x.contract_address = e.contract_address AND x."from" = e."from"
            AND x."to" = e."to" AND x.amount_raw = e."value" AND x.block_time = e.evt_block_time
            AND x.block_number = e.evt_block_number AND x.symbol = k.symbol
            AND abs(x.amount / (x.amount_raw::DOUBLE / pow(10, k.decimals)) - 1) < 1e-12
            AND x.price_usd = p.price AND abs(x.amount_usd / (x.amount * p.price) - 1) < 1e-9`),
      ).toBe(n);
    }
    expect(await count('SELECT count(*) FROM tokens.transfers')).toBe(total);
  });

  it('lists the real token contracts with their decimals', async () => {
    expect(await count('SELECT count(*) FROM tokens.erc20')).toBe(WELL_KNOWN_TOKENS.length);
    const weth = await rows(
      db.connection,
      `SELECT symbol, decimals FROM tokens.erc20
       WHERE blockchain = 'ethereum' AND contract_address = ${bin('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2')}`,
    );
    expect(weth).toEqual([{ symbol: 'WETH', decimals: 18 }]);
    const usdc = await rows(
      db.connection,
      `SELECT symbol, decimals FROM tokens.erc20
       WHERE blockchain = 'base' AND contract_address = ${bin('0x833589fcd6edb6e08f4c7c32d4f71b54bda02913')}`,
    );
    expect(usdc).toEqual([{ symbol: 'USDC', decimals: 6 }]);
  });
});

describe('bitcoin', () => {
  it('balances every transaction exactly and pays subsidy + fees in the coinbase', async () => {
    expect(await count('SELECT count(*) FROM bitcoin.transactions')).toBeGreaterThan(500);
    expect(
      await count(`SELECT count(*) FROM bitcoin.transactions
                   WHERE NOT is_coinbase AND (input_value <> output_value + fee
                      OR input_value <> list_sum(list_transform(inputs, x -> x."value"))
                      OR output_value <> list_sum(list_transform(outputs, x -> x."value"))
                      OR input_count <> len(inputs) OR output_count <> len(outputs) OR fee <= 0)`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM bitcoin.blocks b
                   JOIN bitcoin.transactions c ON c.block_height = b.height AND c.is_coinbase
                   WHERE c."index" <> 0 OR c.output_value <> b.mint_reward + b.total_fees
                      OR b.total_reward <> b.mint_reward + b.total_fees
                      OR b.total_fees <> (SELECT sum(fee) FROM bitcoin.transactions t WHERE t.block_height = b.height)`),
    ).toBe(0);
    expect(
      await count(
        `SELECT count(*) - (SELECT count(*) FROM bitcoin.blocks) FROM bitcoin.transactions WHERE is_coinbase`,
      ),
    ).toBe(0);
  });

  it('puts every transaction in an existing block with the same time, and chains the blocks', async () => {
    expect(
      await count(`SELECT count(*) FROM bitcoin.transactions t LEFT JOIN bitcoin.blocks b ON b.height = t.block_height
                   WHERE b.height IS NULL OR b.time <> t.block_time OR b.hash <> t.block_hash`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM (
                     SELECT height, time, previous_block_hash, lag(height) OVER w AS ph, lag(time) OVER w AS pt,
                            lag(hash) OVER w AS phash FROM bitcoin.blocks WINDOW w AS (ORDER BY height))
                   WHERE ph IS NOT NULL AND (height <> ph + 1 OR time < pt OR previous_block_hash <> phash)`),
    ).toBe(0);
    expect(
      await count(`SELECT count(*) FROM bitcoin.blocks b
                   WHERE transaction_count <> (SELECT count(*) FROM bitcoin.transactions t WHERE t.block_height = b.height)`),
    ).toBe(0);
  });
});

describe('realism', () => {
  it('prices ETH near 3000 USD, BTC near 90k and stablecoins near 1', async () => {
    const eth = await num(
      db.connection,
      `SELECT avg(price) FROM prices.usd WHERE blockchain = 'ethereum' AND symbol = 'WETH'`,
    );
    expect(eth).toBeGreaterThan(2000);
    expect(eth).toBeLessThan(4500);
    const btc = await num(
      db.connection,
      `SELECT avg(price) FROM prices.usd WHERE blockchain IS NULL AND symbol = 'BTC'`,
    );
    expect(btc).toBeGreaterThan(60_000);
    expect(btc).toBeLessThan(130_000);
    expect(
      await count(
        `SELECT count(*) FROM prices.usd WHERE symbol IN ('USDC', 'USDT', 'DAI') AND abs(price - 1) > 0.01`,
      ),
    ).toBe(0);
    // Every minute of the window, for every token.
    expect(await count('SELECT count(DISTINCT minute) FROM prices.usd')).toBe(30 * 1440);
  });

  it('has a daily cycle, heavy users, heavy-tailed amounts and realistic gas', async () => {
    const peak = await count(
      `SELECT count(*) FROM ethereum.transactions WHERE hour(block_time) BETWEEN 13 AND 17`,
    );
    const trough = await count(
      `SELECT count(*) FROM ethereum.transactions WHERE hour(block_time) BETWEEN 1 AND 5`,
    );
    expect(peak).toBeGreaterThan(trough * 1.5);
    const topShare = await num(
      db.connection,
      `SELECT sum(n) FILTER (WHERE rk <= greatest(1, total_senders // 100)) / sum(n)
       FROM (SELECT n, row_number() OVER (ORDER BY n DESC) AS rk, count(*) OVER () AS total_senders
             FROM (SELECT "from", count(*) AS n FROM ethereum.transactions GROUP BY ALL))`,
    );
    expect(topShare).toBeGreaterThan(0.1);
    const tail = await num(db.connection, 'SELECT max(amount_usd) / median(amount_usd) FROM dex.trades');
    expect(tail).toBeGreaterThan(100);
    expect(
      await count(
        `SELECT count(*) FROM ethereum.transactions WHERE octet_length(data) = 0 AND gas_used <> 21000`,
      ),
    ).toBe(0);
    const gwei = await num(db.connection, 'SELECT median(gas_price) / 1e9 FROM ethereum.transactions');
    expect(gwei).toBeGreaterThan(0.5);
    expect(gwei).toBeLessThan(100);
    expect(
      await count(
        'SELECT count(*) FROM ethereum.logs l JOIN ethereum.transactions t ON t.hash = l.tx_hash WHERE NOT t.success',
      ),
    ).toBe(0);
    expect(await count('SELECT count(*) FROM ethereum.transactions WHERE NOT success')).toBeGreaterThan(0);
  });
});
