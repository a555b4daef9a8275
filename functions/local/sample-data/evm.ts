import {
  EVENT_TOPICS,
  UNISWAP_V3_FACTORY,
  UNISWAP_V3_SWAP_ROUTER_02,
  WELL_KNOWN_TOKENS,
  type WellKnownToken,
} from '../../datasets/base-tables';
import {
  CONTRACTS_DEPLOYED_BEFORE,
  type EvmChainConfig,
  TICK_SPACING,
  TOKEN_PRICE_ASSET,
  WINDOW_SECONDS,
} from './config';
import { assetIndex } from './prices';
import { insertFromHex, lit, num, valuesTable } from './sql';

export interface EvmPlan {
  config: EvmChainConfig;
  blocks: number;
  transactions: number;
  eoaCount: number;
  /** Start of the data window, `YYYY-MM-DD HH:MM:SS` UTC. */
  windowStart: string;
}

/** `CASE` picking an index by weight from a uniform (0,1) column. */
export function weightedPick(uniform: string, weights: readonly (readonly [number, number])[]): string {
  const total = weights.reduce((sum, [, weight]) => sum + weight, 0);
  let cumulative = 0;
  const branches = weights.slice(0, -1).map(([index, weight]) => {
    cumulative += weight;
    return `WHEN ${uniform} < ${num(cumulative / total)} THEN ${index}`;
  });
  const last = weights[weights.length - 1];
  if (!last) throw new Error('weightedPick needs weights');
  return branches.length === 0 ? String(last[0]) : `(CASE ${branches.join(' ')} ELSE ${last[0]} END)`;
}

interface PoolRow {
  idx: number;
  t0: number;
  t1: number;
  fee: number;
  tickSpacing: number;
  weight: number;
  createdTx: number;
}

function chainTokens(plan: EvmPlan): WellKnownToken[] {
  return WELL_KNOWN_TOKENS.filter((token) => token.blockchain === plan.config.chain);
}

function tokenIndex(tokens: readonly WellKnownToken[], symbol: string): number {
  const index = tokens.findIndex((token) => token.symbol === symbol);
  if (index < 0) throw new Error(`unknown token ${symbol}`);
  return index;
}

function poolRows(plan: EvmPlan, tokens: readonly WellKnownToken[]): PoolRow[] {
  let core = 0;
  return plan.config.pools.map((pool, idx) => {
    const a = tokenIndex(tokens, pool.tokenA);
    const b = tokenIndex(tokens, pool.tokenB);
    // Uniswap orders a pair by address: token0 is the lower one.
    const [t0, t1] = tokens[a]!.address < tokens[b]!.address ? [a, b] : [b, a];
    // Core pools open the window (one every few transactions); later ones at their fraction of it.
    const createdTx =
      pool.createdAt === undefined ? 2 + 3 * core++ : Math.floor(pool.createdAt * plan.transactions);
    return {
      idx,
      t0,
      t1,
      fee: pool.fee,
      tickSpacing: TICK_SPACING[pool.fee],
      weight: pool.weight,
      createdTx,
    };
  });
}

/** The statements that build one EVM chain's raw, decoded and (its share of) curated tables. */
export function evmStatements(plan: EvmPlan): string[] {
  const { config } = plan;
  const c = config.chain;
  const tokens = chainTokens(plan);
  const pools = poolRows(plan, tokens);
  const weth = tokenIndex(tokens, 'WETH');
  const factory = lit(UNISWAP_V3_FACTORY[c]);
  const router = lit(UNISWAP_V3_SWAP_ROUTER_02[c]);
  const start = `TIMESTAMP ${lit(plan.windowStart)}`;
  const salt = (name: string) => lit(`${c}.${name}`);
  // Contracts that predate the window were deployed between the chain's launch and mid-2025.
  const genesis = `TIMESTAMP ${lit(config.genesis)}`;
  const lifetime = Math.floor(
    (Date.parse(`${CONTRACTS_DEPLOYED_BEFORE}T00:00:00Z`) - Date.parse(`${config.genesis}Z`)) / 1000,
  );

  const tokenTable = valuesTable(
    't',
    ['idx', 'symbol', 'address', 'decimals', 'asset_idx', 'mult', 'tw', 'token_name'],
    tokens.map((token, idx) => {
      const price = TOKEN_PRICE_ASSET[token.symbol];
      if (!price) throw new Error(`no price model for ${token.symbol}`);
      return [
        String(idx),
        lit(token.symbol),
        lit(token.address),
        String(token.decimals),
        String(assetIndex(price.asset)),
        num(price.multiplier),
        num(config.transferWeights[token.symbol] ?? 0),
        lit(token.name),
      ];
    }),
  );
  const poolTable = valuesTable(
    'p',
    ['idx', 't0', 't1', 'fee', 'tick_spacing', 'created_tx'],
    pools.map((pool) =>
      [pool.idx, pool.t0, pool.t1, pool.fee, pool.tickSpacing, pool.createdTx].map((value) => String(value)),
    ),
  );
  const dappTable = valuesTable(
    'd',
    ['idx', 'namespace', 'name'],
    config.dapps.map(([namespace, name], idx) => [String(idx), lit(namespace), lit(name)]),
  );
  const minerTable = valuesTable(
    'mi',
    ['idx', 'address'],
    config.miners.map((miner, idx) => [String(idx), lit(miner.address)]),
  );

  const mix = config.mix;
  const kindCase = (u: string) => {
    let cumulative = 0;
    const branches = (['swap', 'erc20', 'approve', 'native'] as const).map((kind) => {
      cumulative += mix[kind];
      return `WHEN ${u} < ${num(cumulative)} THEN '${kind}'`;
    });
    return `CASE ${branches.join(' ')} ELSE 'other' END`;
  };
  const poolCreatedCase = `CASE tx_id ${pools.map((pool) => `WHEN ${pool.createdTx} THEN ${pool.idx}`).join(' ')} END`;
  const transferPick = weightedPick(
    'u_tok',
    tokens
      .map((token, idx) => [idx, config.transferWeights[token.symbol] ?? 0] as const)
      .filter(([, w]) => w > 0),
  );
  const poolPick = weightedPick(
    'u_pool',
    pools.map((pool) => [pool.idx, pool.weight] as const),
  );
  // Popular protocols get most calls (Zipf-like weights 1/rank).
  const dappPick = weightedPick(
    'u_dapp',
    config.dapps.map((_, idx) => [idx, 1 / (idx + 1)] as const),
  );
  const minerPick = weightedPick(
    'u_miner',
    config.miners.map((miner, idx) => [idx, miner.weight] as const),
  );
  const eoa = plan.eoaCount;

  return [
    // ------------------------------------------------------------ lookups
    `CREATE OR REPLACE TEMP TABLE _sd_tok AS SELECT * FROM ${tokenTable}`,
    `CREATE OR REPLACE TEMP TABLE _sd_tp AS
       SELECT t.idx AS tok_idx, ap.m, ap.price * t.mult AS price
       FROM _sd_tok t JOIN _sd_ap ap ON ap.asset_idx = t.asset_idx`,
    `CREATE OR REPLACE TEMP TABLE _sd_dapp AS
       SELECT d.*, _sd_addr(${salt('dapp')}, d.idx) AS address FROM ${dappTable}`,
    `CREATE OR REPLACE TEMP TABLE _sd_miner AS SELECT * FROM ${minerTable}`,

    // ------------------------------------------------------------ blocks plan
    // Blocks are evenly spaced; each gets a share of the transactions proportional to an integer
    // weight (UTC activity cycle x noise), allocated by cumulative sums so the total is exact.
    `CREATE OR REPLACE TEMP TABLE _sd_blk AS
     WITH b AS (
       SELECT range AS b, ${config.firstBlock} + range AS number,
              ${start} + to_seconds(range * ${WINDOW_SECONDS} // ${plan.blocks}) AS time
       FROM range(${plan.blocks})
     ), w AS (
       SELECT *, greatest(1, round(1000 * _sd_activity(time) * (0.4 + 1.2 * _sd_u(${salt('bw')}, b))))::BIGINT AS w,
              _sd_u(${salt('miner')}, b) AS u_miner
       FROM b
     ), cw AS (
       SELECT *, sum(w) OVER (ORDER BY b ROWS UNBOUNDED PRECEDING) AS cum, sum(w) OVER () AS total FROM w
     )
     SELECT b, number, time, _sd_hash32(${salt('block')}, number) AS hash,
            ((cum - w)::HUGEINT * ${plan.transactions} // total)::BIGINT AS first_tx,
            (cum::HUGEINT * ${plan.transactions} // total)::BIGINT AS end_tx,
            greatest(1, floor(${num(config.baseFeeGwei)} * 1e9
              * exp(${num(config.baseFeeSigma)} * _sd_n(${salt('basefee')}, b) + 0.25 * (_sd_activity(time) - 1))))::BIGINT
              AS base_fee,
            ${minerPick} AS miner_idx
     FROM cw`,

    // ------------------------------------------------------------ transactions: kinds
    `CREATE OR REPLACE TEMP TABLE _sd_tx0 AS
     SELECT tx_id, number AS block_number, time AS block_time, hash AS block_hash,
            (tx_id - first_tx)::INTEGER AS tx_index, base_fee,
            CASE WHEN tx_id IN (${pools.map((pool) => pool.createdTx).join(', ')}) THEN 'pool_create'
                 ELSE ${kindCase(`_sd_u(${salt('kind')}, tx_id)`)} END AS kind0,
            ${poolCreatedCase} AS created_pool
     FROM (SELECT *, unnest(range(first_tx, end_tx)) AS tx_id FROM _sd_blk)`,
    `CREATE OR REPLACE TEMP TABLE _sd_pool AS
     SELECT p.*, x.block_number AS created_block, x.block_time AS created_time,
            _sd_addr(${salt('pool')}, p.idx) AS address,
            pow(10, 15 + 4 * _sd_u(${salt('liq')}, p.idx)) AS liq_base
     FROM ${poolTable} JOIN _sd_tx0 x ON x.tx_id = p.created_tx`,
    // A swap picks a pool by weight; if that pool does not exist yet it falls back to the first pool,
    // and before any pool exists the transaction becomes a native transfer instead.
    `CREATE OR REPLACE TEMP TABLE _sd_tx1 AS
     WITH a AS (
       SELECT *, _sd_u(${salt('pool')}, tx_id) AS u_pool, _sd_u(${salt('tok')}, tx_id) AS u_tok,
              _sd_u(${salt('dapp')}, tx_id) AS u_dapp
       FROM _sd_tx0
     ), b AS (
       SELECT a.*, ${poolPick} AS pick, ${transferPick} AS transfer_tok, ${dappPick} AS dapp_idx FROM a
     ), c AS (
       SELECT b.*,
              CASE WHEN b.kind0 = 'pool_create' THEN b.created_pool
                   WHEN b.kind0 <> 'swap' THEN NULL
                   WHEN pk.created_block < b.block_number THEN pk.idx
                   WHEN p0.created_block < b.block_number THEN 0 END AS pool_idx
       FROM b LEFT JOIN _sd_pool pk ON pk.idx = b.pick
       CROSS JOIN (SELECT created_block FROM _sd_pool WHERE idx = 0) p0
     )
     SELECT c.tx_id, c.block_number, c.block_time, c.block_hash, c.tx_index, c.base_fee, c.pool_idx, c.dapp_idx,
            CASE WHEN c.kind0 = 'swap' AND c.pool_idx IS NULL THEN 'native' ELSE c.kind0 END AS kind,
            _sd_u(${salt('zfo')}, c.tx_id) < 0.5 AS zfo,
            CASE WHEN kind IN ('erc20', 'approve') THEN c.transfer_tok
                 WHEN kind = 'swap' THEN CASE WHEN zfo THEN p.t0 ELSE p.t1 END
                 WHEN kind = 'pool_create' THEN p.t0
                 WHEN kind = 'native' THEN ${weth} END AS tok_a,
            CASE WHEN kind = 'swap' THEN CASE WHEN zfo THEN p.t1 ELSE p.t0 END
                 WHEN kind = 'pool_create' THEN p.t1 END AS tok_b,
            datediff('minute', ${start}, c.block_time)::INTEGER AS m
     FROM c LEFT JOIN _sd_pool p ON p.idx = c.pool_idx`,

    // ------------------------------------------------------------ transactions: values
    `CREATE OR REPLACE TEMP TABLE _sd_tx AS
     WITH r AS (
       SELECT x.*,
              floor(${eoa} * pow(_sd_u(${salt('from')}, x.tx_id), 3))::INTEGER AS from_idx,
              floor(${eoa} * pow(_sd_u(${salt('to')}, x.tx_id), 2))::INTEGER AS to_idx,
              _sd_u(${salt('fail')}, x.tx_id) >= CASE x.kind WHEN 'swap' THEN 0.04 WHEN 'other' THEN 0.03
                   WHEN 'erc20' THEN 0.004 WHEN 'approve' THEN 0.002 ELSE 0 END AS success,
              CASE x.kind
                WHEN 'swap' THEN least(5e6, exp(ln(800) + 1.7 * _sd_n(${salt('usd')}, x.tx_id)))
                WHEN 'erc20' THEN least(2e7, exp(ln(250) + 2.0 * _sd_n(${salt('usd')}, x.tx_id)))
                WHEN 'native' THEN least(1e7, exp(ln(150) + 1.8 * _sd_n(${salt('usd')}, x.tx_id)))
                WHEN 'approve' THEN least(1e6, exp(ln(500) + 1.5 * _sd_n(${salt('usd')}, x.tx_id)))
              END AS usd,
              least(0.02, abs(_sd_n(${salt('slip')}, x.tx_id)) * 0.0015) AS slip,
              _sd_u(${salt('gas')}, x.tx_id) AS u_gas, _sd_n(${salt('gasn')}, x.tx_id) AS n_gas
       FROM _sd_tx1 x
     ), v AS (
       SELECT r.*, ta.address AS tok_a_address, tb.address AS tok_b_address, ta.decimals AS dec_a,
              tb.decimals AS dec_b, pa.price AS price_a, pb.price AS price_b,
              p.address AS pool_address, p.fee, p.liq_base,
              _sd_raw(r.usd / pa.price, ta.decimals, _sd_h(${salt('ra')}, r.tx_id)) AS raw_a,
              _sd_raw(r.usd * (1 - p.fee / 1e6) * (1 - r.slip) / pb.price, tb.decimals, _sd_h(${salt('rb')}, r.tx_id)) AS raw_b,
              ef.address AS from_address,
              CASE WHEN r.kind = 'erc20' AND _sd_u(${salt('xto')}, r.tx_id) >= 0.85 THEN d.address
                   ELSE et.address END AS counterparty,
              d.address AS dapp_address,
              CASE r.kind WHEN 'native' THEN 21000
                WHEN 'erc20' THEN 34000 + floor(r.u_gas * 30000)
                WHEN 'approve' THEN 44000 + floor(r.u_gas * 2500)
                WHEN 'swap' THEN least(600000, greatest(90000, floor(130000 * exp(0.35 * r.n_gas))))
                WHEN 'pool_create' THEN 4500000 + floor(r.u_gas * 400000)
                ELSE least(3000000, greatest(25000, floor(95000 * exp(0.8 * r.n_gas)))) END::BIGINT AS gas_ok
       FROM r
       LEFT JOIN _sd_tok ta ON ta.idx = r.tok_a
       LEFT JOIN _sd_tok tb ON tb.idx = r.tok_b
       LEFT JOIN _sd_tp pa ON pa.tok_idx = r.tok_a AND pa.m = r.m
       LEFT JOIN _sd_tp pb ON pb.tok_idx = r.tok_b AND pb.m = r.m
       LEFT JOIN _sd_pool p ON p.idx = r.pool_idx
       JOIN _sd_eoa ef ON ef.idx = r.from_idx
       JOIN _sd_eoa et ON et.idx = r.to_idx
       JOIN _sd_dapp d ON d.idx = r.dapp_idx
     )
     SELECT v.tx_id, v.block_number, v.block_time, v.block_hash, v.tx_index, v.kind, v.success, v.m, v.from_idx,
            v.tok_a, v.tok_b, v.raw_a, v.raw_b, v.price_b, v.pool_idx, v.pool_address, v.dapp_idx,
            _sd_hash32(${salt('tx')}, v.tx_id) AS hash,
            v.from_address,
            CASE v.kind WHEN 'native' THEN v.counterparty WHEN 'erc20' THEN v.tok_a_address
              WHEN 'approve' THEN v.tok_a_address WHEN 'swap' THEN ${router}
              WHEN 'pool_create' THEN ${factory} ELSE v.dapp_address END AS to_address,
            v.counterparty,
            v.dapp_address,
            CASE WHEN v.kind = 'native' THEN v.raw_a ELSE 0::UHUGEINT END AS value,
            CASE WHEN v.success THEN v.gas_ok ELSE floor(v.gas_ok * (0.25 + 0.5 * v.u_gas))::BIGINT END AS gas_used,
            CASE WHEN v.kind = 'native' THEN 21000
                 ELSE (ceil(v.gas_ok * (1.15 + 0.5 * _sd_u(${salt('gl')}, v.tx_id)) / 1000) * 1000)::BIGINT
            END AS gas_limit,
            v.base_fee,
            floor(${num(config.priorityFeeGwei)} * 1e9 * exp(1.2 * _sd_n(${salt('prio')}, v.tx_id)))::BIGINT AS priority_fee,
            _sd_u(${salt('legacy')}, v.tx_id) < 0.08 AS legacy,
            _sd_u(${salt('unlimited')}, v.tx_id) < 0.6 AS unlimited,
            -- Swap event fields, from the pool's point of view.
            CASE WHEN v.kind = 'swap' THEN CASE WHEN v.zfo THEN v.raw_a::HUGEINT ELSE -(v.raw_b::HUGEINT) END END AS amount0,
            CASE WHEN v.kind = 'swap' THEN CASE WHEN v.zfo THEN -(v.raw_b::HUGEINT) ELSE v.raw_a::HUGEINT END END AS amount1,
            -- Raw price of token0 in token1 units, from the USD prices of that minute.
            CASE WHEN v.kind = 'swap' THEN
              CASE WHEN v.zfo THEN (v.price_a / v.price_b) * pow(10, v.dec_b - v.dec_a)
                   ELSE (v.price_b / v.price_a) * pow(10, v.dec_a - v.dec_b) END END AS raw_price,
            CAST(sqrt(raw_price) * 79228162514264337593543950336.0 AS UHUGEINT) AS sqrt_price,
            floor(ln(raw_price) / ln(1.0001))::INTEGER AS tick,
            CASE WHEN v.kind = 'swap' THEN
              CAST(floor(v.liq_base * (0.8 + 0.4 * _sd_u(${salt('liq')}, v.tx_id))) AS UHUGEINT) END AS liquidity,
            v.fee, v.tok_a_address, v.tok_b_address, v.zfo,
            -- Logs this transaction emits (reverted transactions emit none).
            CASE WHEN NOT v.success THEN 0 WHEN v.kind = 'swap' THEN 3
                 WHEN v.kind IN ('erc20', 'approve', 'pool_create') THEN 1
                 WHEN v.kind = 'other' THEN floor(_sd_u(${salt('nlogs')}, v.tx_id) * 4)::INTEGER
                 ELSE 0 END AS n_logs
     FROM v`,

    // ------------------------------------------------------------ final transactions
    insertFromHex(
      `${c}.transactions`,
      `     SELECT t.block_time, t.block_time::DATE AS block_date, t.block_number, t.block_hash, t.hash,
            t.tx_index AS "index",
            t.from_address AS "from", t.to_address AS "to", t.value, t.gas_limit,
            t.base_fee + t.priority_fee AS gas_price, t.gas_used,
            CASE WHEN NOT t.legacy THEN 2 * t.base_fee + t.priority_fee * 2 END AS max_fee_per_gas,
            CASE WHEN NOT t.legacy THEN t.priority_fee * 2 END AS max_priority_fee_per_gas,
            t.priority_fee AS priority_fee_per_gas,
            row_number() OVER (PARTITION BY t.from_idx ORDER BY t.tx_id) - 1
              + floor(3000 * pow(_sd_u(${salt('nonce')}, t.from_idx), 2))::BIGINT
              + CASE WHEN t.from_idx < 25 THEN 400000 ELSE 0 END AS nonce,
            t.success,
            CASE WHEN t.legacy THEN 'Legacy' ELSE 'DynamicFee' END AS "type",
            CASE t.kind
              WHEN 'native' THEN '0x'
              WHEN 'erc20' THEN '0xa9059cbb' || _sd_aword(t.counterparty) || _sd_word(t.raw_a)
              WHEN 'approve' THEN '0x095ea7b3' || _sd_aword(${router})
                || CASE WHEN t.unlimited THEN repeat('f', 64) ELSE _sd_word(t.raw_a) END
              -- SwapRouter02.exactInputSingle((tokenIn, tokenOut, fee, recipient, amountIn, amountOutMinimum, sqrtPriceLimitX96))
              WHEN 'swap' THEN '0x04e45aaf' || _sd_aword(t.tok_a_address) || _sd_aword(t.tok_b_address)
                || _sd_word(t.fee) || _sd_aword(t.from_address) || _sd_word(t.raw_a)
                || _sd_word(t.raw_b * 99 // 100) || _sd_word(0)
              -- UniswapV3Factory.createPool(tokenA, tokenB, fee)
              WHEN 'pool_create' THEN '0xa1671295' || _sd_aword(t.tok_a_address) || _sd_aword(t.tok_b_address)
                || _sd_word(t.fee)
              ELSE '0x' || printf('%08x', _sd_h(${salt('selector')}, t.dapp_idx * 16 + t.tx_id % 5) >> 32)
                || array_to_string(list_transform(range(1 + t.tx_id % 6),
                     i -> _sd_hex64(${salt('calldata')}, t.tx_id * 8 + i)), '')
            END AS data,
            ${config.chainId} AS chain_id
     FROM _sd_tx t
     ORDER BY t.block_number, t.tx_index`,
    ),

    // ------------------------------------------------------------ events (structured)
    `CREATE OR REPLACE TEMP TABLE _sd_ev AS
     SELECT tx_id, 0 AS pos, 'transfer' AS ev, tok_a_address AS contract_address, from_address AS a_from,
            counterparty AS a_to, tok_a AS tok_idx, raw_a AS raw
       FROM _sd_tx WHERE success AND kind = 'erc20'
     UNION ALL BY NAME
     SELECT tx_id, 0 AS pos, 'approval' AS ev, tok_a_address AS contract_address, from_address AS a_from,
            ${router} AS a_to, tok_a AS tok_idx, raw_a AS raw, unlimited
       FROM _sd_tx WHERE success AND kind = 'approve'
     UNION ALL BY NAME
     -- A V3 swap pays out first, then pulls the input in the callback, then emits Swap.
     SELECT tx_id, 0 AS pos, 'transfer' AS ev, tok_b_address AS contract_address, pool_address AS a_from,
            from_address AS a_to, tok_b AS tok_idx, raw_b AS raw
       FROM _sd_tx WHERE success AND kind = 'swap'
     UNION ALL BY NAME
     SELECT tx_id, 1 AS pos, 'transfer' AS ev, tok_a_address AS contract_address, from_address AS a_from,
            pool_address AS a_to, tok_a AS tok_idx, raw_a AS raw
       FROM _sd_tx WHERE success AND kind = 'swap'
     UNION ALL BY NAME
     SELECT tx_id, 2 AS pos, 'swap' AS ev, pool_address AS contract_address, ${router} AS a_from,
            from_address AS a_to, amount0, amount1, sqrt_price, liquidity, tick,
            tok_a AS tok_idx, raw_a AS raw, tok_b AS tok_out_idx, raw_b AS raw_out, price_b AS price_out
       FROM _sd_tx WHERE success AND kind = 'swap'
     UNION ALL BY NAME
     SELECT x.tx_id, 0 AS pos, 'pool_created' AS ev, ${factory} AS contract_address, p.idx AS pool_idx,
            t0.address AS token0, t1.address AS token1, p.fee, p.tick_spacing, p.address AS pool
       FROM _sd_tx x JOIN _sd_pool p ON p.idx = x.pool_idx
       JOIN _sd_tok t0 ON t0.idx = p.t0 JOIN _sd_tok t1 ON t1.idx = p.t1
       WHERE x.kind = 'pool_create'
     UNION ALL BY NAME
     SELECT tx_id, pos::INTEGER AS pos, 'other' AS ev, dapp_address AS contract_address,
            '0x' || _sd_hex64(${salt('topic')}, dapp_idx * 4 + (tx_id + pos) % 4) AS topic0,
            CASE WHEN pos = 0 THEN _sd_topic(from_address) END AS topic1,
            '0x' || _sd_hex64(${salt('logdata')}, tx_id * 4 + pos) AS data
       FROM (SELECT *, unnest(range(n_logs)) AS pos FROM _sd_tx WHERE kind = 'other')`,
    // Log index within the block = logs of the block's earlier transactions + position in this one.
    `CREATE OR REPLACE TEMP TABLE _sd_log AS
     WITH before AS (
       SELECT tx_id, sum(n_logs) OVER (PARTITION BY block_number ORDER BY tx_index ROWS UNBOUNDED PRECEDING)
                     - n_logs AS logs_before
       FROM _sd_tx
     )
     SELECT e.*, t.block_number, t.block_time, t.block_hash, t.tx_index, t.hash AS tx_hash, t.from_address AS tx_from,
            t.to_address AS tx_to, t.m, (b.logs_before + e.pos)::INTEGER AS log_index
     FROM _sd_ev e JOIN _sd_tx t USING (tx_id) JOIN before b USING (tx_id)`,

    insertFromHex(
      `${c}.logs`,
      `     SELECT block_time, block_time::DATE AS block_date, block_number, block_hash, contract_address,
            CASE ev WHEN 'transfer' THEN ${lit(EVENT_TOPICS.erc20Transfer)}
                    WHEN 'approval' THEN ${lit(EVENT_TOPICS.erc20Approval)}
                    WHEN 'swap' THEN ${lit(EVENT_TOPICS.uniswapV3Swap)}
                    WHEN 'pool_created' THEN ${lit(EVENT_TOPICS.uniswapV3PoolCreated)}
                    ELSE topic0 END AS topic0,
            CASE WHEN ev = 'pool_created' THEN _sd_topic(token0) WHEN ev = 'other' THEN topic1
                 ELSE _sd_topic(a_from) END AS topic1,
            CASE WHEN ev = 'pool_created' THEN _sd_topic(token1) WHEN ev <> 'other' THEN _sd_topic(a_to) END AS topic2,
            CASE WHEN ev = 'pool_created' THEN '0x' || _sd_word(fee) END AS topic3,
            CASE ev WHEN 'transfer' THEN '0x' || _sd_word(raw)
                    WHEN 'approval' THEN '0x' || CASE WHEN unlimited THEN repeat('f', 64) ELSE _sd_word(raw) END
                    WHEN 'swap' THEN '0x' || _sd_word(amount0) || _sd_word(amount1) || _sd_word(sqrt_price)
                      || _sd_word(liquidity) || _sd_word(tick)
                    WHEN 'pool_created' THEN '0x' || _sd_word(tick_spacing) || _sd_aword(pool)
                    ELSE data END AS data,
            tx_hash, log_index AS "index", tx_index, tx_from, tx_to
     FROM _sd_log
     ORDER BY block_number, log_index`,
    ),

    // ------------------------------------------------------------ decoded events
    insertFromHex(
      `erc20_${c}.evt_Transfer`,
      `     SELECT contract_address, tx_hash AS evt_tx_hash, tx_from AS evt_tx_from, tx_to AS evt_tx_to,
            tx_index AS evt_tx_index, log_index AS evt_index, block_time AS evt_block_time,
            block_number AS evt_block_number, block_time::DATE AS evt_block_date,
            a_from AS "from", a_to AS "to", raw AS "value"
     FROM _sd_log WHERE ev = 'transfer'
     ORDER BY block_number, log_index`,
    ),
    insertFromHex(
      `uniswap_v3_${c}.Factory_evt_PoolCreated`,
      `     SELECT contract_address, tx_hash AS evt_tx_hash, tx_from AS evt_tx_from, tx_to AS evt_tx_to,
            tx_index AS evt_tx_index, log_index AS evt_index, block_time AS evt_block_time,
            block_number AS evt_block_number, block_time::DATE AS evt_block_date,
            token0, token1, fee, tick_spacing AS "tickSpacing", pool
     FROM _sd_log WHERE ev = 'pool_created'
     ORDER BY block_number, log_index`,
    ),
    insertFromHex(
      `uniswap_v3_${c}.Pair_evt_Swap`,
      `     SELECT contract_address, tx_hash AS evt_tx_hash, tx_from AS evt_tx_from, tx_to AS evt_tx_to,
            tx_index AS evt_tx_index, log_index AS evt_index, block_time AS evt_block_time,
            block_number AS evt_block_number, block_time::DATE AS evt_block_date,
            a_from AS sender, a_to AS recipient, amount0, amount1, sqrt_price AS "sqrtPriceX96", liquidity, tick
     FROM _sd_log WHERE ev = 'swap'
     ORDER BY block_number, log_index`,
    ),

    // ------------------------------------------------------------ blocks
    insertFromHex(
      `${c}.blocks`,
      `     SELECT b.time, b.number, b.time::DATE AS date, b.hash, _sd_hash32(${salt('block')}, b.number - 1) AS parent_hash,
            mi.address AS miner, ${config.blockGasLimit} AS gas_limit, coalesce(g.gas_used, 0) AS gas_used,
            b.base_fee AS base_fee_per_gas, 620 + coalesce(g.bytes, 0) AS size,
            coalesce(g.n, 0) AS transaction_count
     FROM _sd_blk b
     JOIN _sd_miner mi ON mi.idx = b.miner_idx
     LEFT JOIN (
       SELECT block_number, sum(gas_used) AS gas_used, count(*) AS n,
              sum(110 + octet_length(data)) AS bytes
       FROM ${c}.transactions GROUP BY block_number
     ) g ON g.block_number = b.number
     ORDER BY b.number`,
    ),

    // ------------------------------------------------------------ contracts
    insertFromHex(
      `${c}.contracts`,
      `     SELECT address, 'erc20' AS namespace, token_name AS name, _sd_addr(${salt('deployer')}, idx) AS "from",
            ${genesis} + to_seconds((_sd_h(${salt('tokcreated')}, idx) % ${lifetime})::BIGINT) AS created_at,
            false AS dynamic, false AS factory, 'submitted' AS detection_source
     FROM _sd_tok
     UNION ALL
     SELECT ${factory}, 'uniswap_v3', 'Factory', _sd_addr(${salt('deployer')}, 100), ${genesis} + INTERVAL 1 DAY,
            false, true, 'submitted'
     UNION ALL
     SELECT ${router}, 'uniswap_v3', 'SwapRouter02', _sd_addr(${salt('deployer')}, 100), ${genesis} + INTERVAL 2 DAY,
            false, false, 'submitted'
     UNION ALL
     SELECT address, namespace, name, _sd_addr(${salt('deployer')}, 200 + idx),
            ${genesis} + to_seconds((_sd_h(${salt('dappcreated')}, idx) % ${lifetime})::BIGINT),
            false, false, 'submitted'
     FROM _sd_dapp
     UNION ALL
     SELECT address, 'uniswap_v3', 'Pair', ${factory}, created_time, true, false, 'factory'
     FROM _sd_pool
     ORDER BY created_at, address`,
    ),

    // ------------------------------------------------------------ curated
    insertFromHex(
      `tokens.erc20`,
      `     SELECT '${c}' AS blockchain, address AS contract_address, symbol, decimals, token_name AS name
     FROM _sd_tok ORDER BY idx`,
    ),
    insertFromHex(
      `prices.usd`,
      `     SELECT ${start} + to_minutes(p.m) AS minute, '${c}' AS blockchain, t.address AS contract_address,
            t.symbol, t.decimals, p.price
     FROM _sd_tp p JOIN _sd_tok t ON t.idx = p.tok_idx
     ORDER BY minute, contract_address`,
    ),
    insertFromHex(
      `tokens.transfers`,
      `     SELECT '${c}' AS blockchain, date_trunc('month', l.block_time)::DATE AS block_month,
            l.block_time::DATE AS block_date, l.block_time, l.block_number, l.tx_hash, l.log_index AS evt_index,
            l.tx_index, l.tx_from, l.tx_to, 'erc20' AS token_standard, l.contract_address, t.symbol,
            l.a_from AS "from", l.a_to AS "to", l.raw AS amount_raw, _sd_units(l.raw, t.decimals) AS amount,
            p.price AS price_usd, _sd_units(l.raw, t.decimals) * p.price AS amount_usd
     FROM _sd_log l JOIN _sd_tok t ON t.idx = l.tok_idx
     LEFT JOIN _sd_tp p ON p.tok_idx = l.tok_idx AND p.m = l.m
     WHERE l.ev = 'transfer'
     ORDER BY l.block_number, l.log_index`,
    ),
    insertFromHex(
      `dex.trades`,
      `     SELECT '${c}' AS blockchain, 'uniswap' AS project, '3' AS version,
            date_trunc('month', l.block_time)::DATE AS block_month, l.block_time::DATE AS block_date,
            l.block_time, l.block_number,
            tb.symbol AS token_bought_symbol, ts.symbol AS token_sold_symbol,
            CASE WHEN tb.symbol < ts.symbol THEN tb.symbol || '-' || ts.symbol
                 ELSE ts.symbol || '-' || tb.symbol END AS token_pair,
            _sd_units(l.raw_out, tb.decimals) AS token_bought_amount, _sd_units(l.raw, ts.decimals) AS token_sold_amount,
            l.raw_out AS token_bought_amount_raw, l.raw AS token_sold_amount_raw,
            _sd_units(l.raw_out, tb.decimals) * l.price_out AS amount_usd,
            tb.address AS token_bought_address, ts.address AS token_sold_address,
            l.a_to AS taker, NULL AS maker, l.contract_address AS project_contract_address,
            l.tx_hash, l.tx_from, l.tx_to, l.log_index AS evt_index
     FROM _sd_log l JOIN _sd_tok tb ON tb.idx = l.tok_out_idx JOIN _sd_tok ts ON ts.idx = l.tok_idx
     WHERE l.ev = 'swap'
     ORDER BY l.block_number, l.log_index`,
    ),
  ];
}

export const EVM_TEMP_TABLES = [
  '_sd_tok',
  '_sd_tp',
  '_sd_dapp',
  '_sd_miner',
  '_sd_blk',
  '_sd_tx0',
  '_sd_pool',
  '_sd_tx1',
  '_sd_tx',
  '_sd_ev',
  '_sd_log',
];
