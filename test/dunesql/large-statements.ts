/**
 * Large statements shaped as real dashboard queries write them, for the typing-work tests and the
 * translation benchmark: a chain of CTEs that each join earlier ones, and a UNION ALL of one SELECT
 * per chain or pool.
 */

/** n + 1 CTEs, each from the third on joining the two before it; typed work on every pass. */
export function chainOfCtes(n: number): string {
  const ctes = [
    `c0 as (select block_date as day, blockchain, amount_usd as v, cast(tx_hash as varchar) as tx
            from dex.trades where blockchain = 'ethereum')`,
    'c1 as (select day, blockchain, sum(v) as v, max(tx) as tx from c0 group by 1, 2)',
  ];
  for (let i = 2; i <= n; i++) {
    ctes.push(
      `c${i} as (select a.day, a.blockchain, a.v + b.v / 2 as v, a.tx
                 from c${i - 1} a join c${i - 2} b on a.day = b.day and a.blockchain = b.blockchain)`,
    );
  }
  return `with ${ctes.join(',\n')}\nselect day, blockchain, v, tx, array[v, v * 2] as vs from c${n}`;
}

/** A UNION ALL of n SELECTs (nested n levels deep in the parsed statement). */
export function unionOfSelects(n: number): string {
  return Array.from(
    { length: n },
    (_, i) =>
      `select '${i}' as chain, cast(tx_hash as varchar) as tx from dex.trades where block_number = ${i}`,
  ).join('\nunion all\n');
}

/** The i-th of a list of distinct 20-byte addresses, as `0x…`. */
const address = (i: number) => `0x${(i * 7919 + 1).toString(16).padStart(40, '0')}`;

/** A pasted list of n addresses with labels, joined to a table (how Dune users bring their own rows). */
export function addressList(n: number): string {
  const rows = Array.from({ length: n }, (_, i) => `(${address(i)}, 'label ${i}', ${i})`);
  return `with addrs (address, label, rank) as (values ${rows.join(',\n')})
select a.label, a.rank, count(t.tx_hash) as transfers
from addrs a left join tokens.transfers t on t."from" = a.address
group by 1, 2 order by 3 desc`;
}

/** n addresses in an IN list (how Dune users filter by a watch list). */
export function addressInList(n: number): string {
  const addresses = Array.from({ length: n }, (_, i) => address(i));
  return `select "to", count(*) as transfers from tokens.transfers
where "from" in (${addresses.join(',\n')})
group by 1 order by 2 desc`;
}
