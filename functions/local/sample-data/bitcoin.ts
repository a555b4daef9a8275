import { BITCOIN, WINDOW_SECONDS } from './config';
import { weightedPick } from './evm';
import { lit } from './sql';

export interface BitcoinPlan {
  blocks: number;
  transactions: number;
  addressCount: number;
  /** Start of the data window, `YYYY-MM-DD HH:MM:SS` UTC. */
  windowStart: string;
}

/**
 * Bitcoin: blocks with exponential inter-arrival times (10 minutes on average at scale 1), a coinbase
 * paying subsidy + fees per block, and transactions whose inputs and outputs are exact satoshi
 * amounts (input_value = output_value + fee). Inputs point at earlier transactions of the sample, but
 * the spent outputs' values are not reconciled (there is no full UTXO set).
 */
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

export function bitcoinStatements(plan: BitcoinPlan): string[] {
  const start = `TIMESTAMP ${lit(plan.windowStart)}`;
  const sats = (expr: string) => `CAST((${expr}) * 0.00000001 AS DECIMAL(18,8))`;
  const minerPick = weightedPick(
    'u_miner',
    BITCOIN.minerWeights.map((weight, idx) => [idx, weight] as const),
  );
  // Hashes and txids are varbinary (as on Dune), built from hex text.
  const blockHash = (height: string) =>
    `from_hex('0000000000000000000' || left(_sd_hex64('btc.block', ${height}), 45))`;
  const txid = (id: string) => `from_hex(_sd_hex64('btc.tx', ${id}))`;
  // Splits `total` into parts i = 0..n-1 along the curve ((i+1)/n)^a: integer differences of a
  // cumulative that ends exactly at total, so the parts always add up to it.
  const part = (total: string, i: string, n: string, a: string) =>
    `(floor(${total} * pow((${i} + 1) / ${n}, ${a}))::BIGINT - floor(${total} * pow(${i} / ${n}, ${a}))::BIGINT)`;

  return [
    // Address book by index: mostly native segwit, then taproot, legacy and P2SH, as on mainnet today.
    // Characters are hash hex digits mapped onto halves of the bech32 / base58 alphabets.
    `CREATE OR REPLACE TEMP MACRO _sd_btc_u(idx) AS _sd_u('btc.addrtype', idx)`,
    `CREATE OR REPLACE TEMP MACRO _sd_btc_type(idx) AS
       CASE WHEN _sd_btc_u(idx) < 0.55 THEN 'witness_v0_keyhash' WHEN _sd_btc_u(idx) < 0.75 THEN 'witness_v1_taproot'
            WHEN _sd_btc_u(idx) < 0.88 THEN 'pubkeyhash' ELSE 'scripthash' END`,
    `CREATE OR REPLACE TEMP MACRO _sd_btc_address(idx) AS
       CASE WHEN _sd_btc_u(idx) < 0.55
            THEN 'bc1q' || translate(printf('%016x%03x', _sd_h('btc.a1', idx), _sd_h('btc.a2', idx) >> 52), '0123456789abcdef', ${lit(BECH32.slice(0, 16))})
              || translate(printf('%016x%03x', _sd_h('btc.a3', idx), _sd_h('btc.a4', idx) >> 52), '0123456789abcdef', ${lit(BECH32.slice(16))})
            WHEN _sd_btc_u(idx) < 0.75
            THEN 'bc1p' || translate(printf('%016x%016x', _sd_h('btc.a1', idx), _sd_h('btc.a2', idx)), '0123456789abcdef', ${lit(BECH32.slice(0, 16))})
              || translate(printf('%016x%010x', _sd_h('btc.a3', idx), _sd_h('btc.a4', idx) >> 24), '0123456789abcdef', ${lit(BECH32.slice(16))})
            ELSE CASE WHEN _sd_btc_u(idx) < 0.88 THEN '1' ELSE '3' END
              || translate(printf('%011x', _sd_h('btc.a1', idx) >> 20), '0123456789abcdef', ${lit(BASE58.slice(0, 16))})
              || translate(printf('%011x', _sd_h('btc.a2', idx) >> 20), '0123456789abcdef', ${lit(BASE58.slice(16, 32))})
              || translate(printf('%011x', _sd_h('btc.a3', idx) >> 20), '0123456789abcdef', ${lit(BASE58.slice(32, 48))})
       END`,

    `CREATE OR REPLACE TEMP TABLE _sd_btc_addr AS
     SELECT range AS idx, _sd_btc_address(range) AS address, _sd_btc_type(range) AS type
     FROM range(${plan.addressCount})`,

    // Blocks: exponential gaps (integer milliseconds so the running sum is exact), rescaled to the window;
    // transactions are allocated in proportion to the gap (a longer wait fills the mempool more).
    `CREATE OR REPLACE TEMP TABLE _sd_bblk AS
     WITH e AS (
       SELECT range AS b, greatest(1, round(-ln(_sd_u('btc.gap', range)) * 600000))::BIGINT AS gap,
              _sd_u('btc.miner', range) AS u_miner
       FROM range(${plan.blocks})
     ), c AS (
       SELECT *, sum(gap) OVER (ORDER BY b ROWS UNBOUNDED PRECEDING) AS cum, sum(gap) OVER () AS total FROM e
     )
     SELECT b, ${BITCOIN.firstHeight} + b AS height,
            ${start} + to_seconds((cum::HUGEINT * ${WINDOW_SECONDS - 1} // total)::BIGINT) AS time,
            ((cum - gap)::HUGEINT * ${plan.transactions} // total)::BIGINT AS first_tx,
            (cum::HUGEINT * ${plan.transactions} // total)::BIGINT AS end_tx,
            1000000000 + ${minerPick} AS pool_idx
     FROM c`,

    `CREATE OR REPLACE TEMP TABLE _sd_btx AS
     WITH t AS (
       SELECT tx_id, height, time, (tx_id - first_tx + 1)::INTEGER AS tx_index,
              _sd_u('btc.nin', tx_id) AS u_in, _sd_u('btc.nout', tx_id) AS u_out
       FROM (SELECT *, unnest(range(first_tx, end_tx)) AS tx_id FROM _sd_bblk)
     ), p AS (
       SELECT *,
              CASE WHEN u_in < 0.70 THEN 1 WHEN u_in < 0.87 THEN 2 WHEN u_in < 0.94 THEN 3
                   ELSE 4 + floor(_sd_u('btc.nin2', tx_id) * 12) END::INTEGER AS n_in,
              CASE WHEN u_out < 0.15 THEN 1 WHEN u_out < 0.85 THEN 2
                   ELSE 3 + floor(pow(_sd_u('btc.nout2', tx_id), 2) * 40) END::INTEGER AS n_out,
              greatest(10000, least(200000000000,
                floor(exp(ln(0.02) + 2.0 * _sd_n('btc.pay', tx_id)) * 1e8)))::BIGINT AS pay,
              least(300, greatest(1, round(exp(ln(3) + 0.9 * _sd_n('btc.feerate', tx_id)))))::BIGINT AS feerate,
              floor(${plan.addressCount} * pow(_sd_u('btc.from', tx_id), 3))::BIGINT AS from_idx
       FROM t
     )
     SELECT tx_id, height, time, tx_index, n_in, n_out, pay,
            (11 + 68 * n_in + 31 * n_out)::BIGINT AS vsize,
            (11 + 68 * n_in + 31 * n_out) * feerate AS fee,
            CASE WHEN n_out = 1 THEN 0
                 ELSE 546 + floor(pay * (0.02 + 3 * pow(_sd_u('btc.change', tx_id), 2)))::BIGINT END AS change,
            pay + change + fee AS input_total, a.address AS from_address, a.type AS from_type,
            0.5 + 1.5 * _sd_u('btc.insplit', tx_id) AS in_curve,
            0.5 + 1.5 * _sd_u('btc.outsplit', tx_id) AS out_curve,
            CASE WHEN n_out > 1 THEN n_out - 1 ELSE 1 END AS payees,
            CASE WHEN _sd_u('btc.lock', tx_id) < 0.2 THEN height - 1 ELSE 0 END AS lock_time
     FROM p JOIN _sd_btc_addr a ON a.idx = p.from_idx`,

    // Outputs: payees share the payment; with two or more outputs the last one is change to the sender.
    `CREATE OR REPLACE TEMP TABLE _sd_bout AS
     WITH o AS (
       SELECT tx_id, i, from_address, from_type, n_out > 1 AND i = n_out - 1 AS is_change,
              CASE WHEN is_change THEN change ELSE ${part('pay', 'i', 'payees', 'out_curve')} END AS sats,
              floor(${plan.addressCount} * pow(_sd_u('btc.to', tx_id * 64 + i), 2))::BIGINT AS payee_idx
       FROM (SELECT *, unnest(range(n_out)) AS i FROM _sd_btx)
     )
     SELECT o.tx_id,
            list_sort(list({'index': o.i::INTEGER, 'value': ${sats('o.sats')},
                            'address': CASE WHEN o.is_change THEN o.from_address ELSE a.address END,
                            'type': CASE WHEN o.is_change THEN o.from_type ELSE a.type END})) AS outputs
     FROM o JOIN _sd_btc_addr a ON a.idx = o.payee_idx
     GROUP BY o.tx_id`,

    `INSERT INTO bitcoin.transactions BY NAME
     SELECT * FROM (
       SELECT time AS block_time, time::DATE AS block_date, height AS block_height,
              ${blockHash('height')} AS block_hash, tx_index AS "index", ${txid('tx_id')} AS id,
              vsize + 2 + 27 * n_in AS size, vsize AS virtual_size, lock_time, false AS is_coinbase,
              n_in AS input_count, n_out AS output_count,
              ${sats('input_total')} AS input_value, ${sats('pay + change')} AS output_value, ${sats('fee')} AS fee,
              list_transform(range(n_in), i -> {
                'index': i::INTEGER,
                'spent_tx_id': CASE WHEN tx_id > 5000
                  THEN ${txid(`tx_id - 1 - (_sd_h('btc.spent', tx_id * 64 + i) % 5000)::BIGINT`)}
                  ELSE from_hex(_sd_hex64('btc.pre', tx_id * 64 + i)) END,
                'spent_output_number': (_sd_h('btc.vout', tx_id * 64 + i) % 2)::BIGINT,
                'value': ${sats(part('input_total', 'i', 'n_in', 'in_curve'))},
                'address': from_address, 'type': from_type}) AS inputs,
              o.outputs
       FROM _sd_btx JOIN _sd_bout o USING (tx_id)
       UNION ALL
       -- Coinbase: new coins plus the block's fees to the mining pool, and the witness commitment.
       SELECT b.time, b.time::DATE, b.height, ${blockHash('b.height')}, 0, from_hex(_sd_hex64('btc.coinbase', b.height)),
              250, 223, 0, true, 1, 2, ${sats('0')}, ${sats(`${BITCOIN.subsidySats} + coalesce(f.fees, 0)`)}, ${sats('0')},
              [{'index': 0::INTEGER, 'spent_tx_id': NULL::BLOB, 'spent_output_number': NULL::BIGINT,
                'value': ${sats('0')}, 'address': NULL::VARCHAR, 'type': 'coinbase'}],
              [{'index': 0::INTEGER, 'value': ${sats(`${BITCOIN.subsidySats} + coalesce(f.fees, 0)`)},
                'address': _sd_btc_address(b.pool_idx), 'type': _sd_btc_type(b.pool_idx)},
               {'index': 1::INTEGER, 'value': ${sats('0')}, 'address': NULL::VARCHAR, 'type': 'nulldata'}]
       FROM _sd_bblk b
       LEFT JOIN (SELECT height, sum(fee) AS fees FROM _sd_btx GROUP BY height) f USING (height)
     )
     ORDER BY block_height, "index"`,

    `INSERT INTO bitcoin.blocks BY NAME
     SELECT b.time, b.height, b.time::DATE AS date, ${blockHash('b.height')} AS hash,
            ${blockHash('b.height - 1')} AS previous_block_hash, t.n AS transaction_count,
            80 + t.size AS size, 320 + t.weight AS weight, ${sats(String(BITCOIN.subsidySats))} AS mint_reward,
            t.fees AS total_fees, ${sats(String(BITCOIN.subsidySats))} + t.fees AS total_reward,
            (_sd_h('btc.nonce', b.height) % 4294967296)::BIGINT AS nonce,
            1.21e14 * (1 + 0.03 * (b.height // 2016 - ${Math.floor(BITCOIN.firstHeight / 2016)})) AS difficulty
     FROM _sd_bblk b JOIN (
       SELECT block_height, count(*) AS n, sum(size) AS size, sum(virtual_size * 4) AS weight, sum(fee) AS fees
       FROM bitcoin.transactions GROUP BY block_height
     ) t ON t.block_height = b.height
     ORDER BY b.height`,
  ];
}

export const BITCOIN_TEMP_TABLES = ['_sd_btc_addr', '_sd_bblk', '_sd_btx', '_sd_bout'];
export const BITCOIN_MACROS = ['_sd_btc_address', '_sd_btc_type', '_sd_btc_u'];
