/**
 * DuneSQL → DuckDB translation latency (functions/dunesql) as the engine process pays it: under
 * V8's baseline WASM compiler only (`--liftoff-only`, as engine-pool.ts starts engine processes;
 * the script restarts itself with it), the one-off load, the first translation (lazy compilation,
 * paid by the engine process's warm-up), then p50/p95 per query over typical dashboard-style
 * statements; then large statements shaped as real dashboard queries (a chain of CTEs each joining
 * two before it, a UNION ALL of a SELECT per chain) on both targets, each against polyglot's parse
 * of the same text in the same run; a pasted list of 1,500 literal rows and one of 1,500
 * addresses in an IN list, each against translating the list whole; and the process's RSS after. Prints figures, asserts nothing.
 *
 *   npx tsx test/bench/dunesql-translation.ts
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { preloadTranslator, translate } from '../../functions/dunesql';
import { addressInList, addressList, chainOfCtes, unionOfSelects } from '../dunesql/large-statements';
import { percentile } from './support';

const ENGINE_FLAGS = ['--liftoff-only'];
const ROUNDS = 30;

const QUERIES = [
  'select token_pair, sum(amount_usd) as volume from dex.trades group by 1 order by 2 desc limit 5',
  "select date_trunc('day', block_time) as day, count(*) as txs, approx_distinct(\"from\") as senders from ethereum.transactions where block_time > now() - interval '7' day group by 1 order by 1",
  `with transfers as (
     select evt_block_time, "to", varbinary_to_uint256(data) as amount
     from ethereum.logs where contract_address = 0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2
   )
   select "to", sum(amount) as received, count(*) from transfers group by 1 order by 2 desc limit 20`,
  `select t.block_date, p.symbol, sum(t.amount_usd) / nullif(avg(p.price), 0) as volume_in_token
   from dex.trades t join prices.usd p on p.contract_address = t.token_bought_address
     and p.minute = date_trunc('minute', t.block_time)
   where t.block_date >= current_date - interval '30' day group by 1, 2`,
  `select project, block_date, volume, avg(volume) over (partition by project order by block_date rows between 6 preceding and current row) as ma7
   from (select project, block_date, sum(amount_usd) as volume from dex.trades group by 1, 2)`,
  "select format_datetime(block_time, 'yyyy-MM-dd HH:mm') as t, to_hex(hash), element_at(split(cast(value as varchar), '.'), 1) from ethereum.transactions limit 10",
  "select date_diff('day', min(block_time), max(block_time)) as days, approx_percentile(gas_price, 0.5) from ethereum.transactions",
  'select x, cardinality(arr) from (select 1 as x, array[1, 2, 3] as arr) cross join unnest(arr) as u(y)',
];

async function main() {
  const loadStart = performance.now();
  await preloadTranslator();
  const loadMs = performance.now() - loadStart;
  const firstStart = performance.now();
  await translate(QUERIES[2]!, 'duckdb');
  const firstMs = performance.now() - firstStart;
  for (const sql of QUERIES) await translate(sql, 'duckdb'); // warm-up
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const sql of QUERIES) {
      const started = performance.now();
      await translate(sql, 'duckdb');
      samples.push(performance.now() - started);
    }
  }
  samples.sort((a, b) => a - b);
  console.log(`DuneSQL translation (${process.execArgv.filter((a) => ENGINE_FLAGS.includes(a)).join(' ')})`);
  console.log(`  load (once per process): ${loadMs.toFixed(0)} ms`);
  console.log(`  first translation (lazy compilation, once per process): ${firstMs.toFixed(0)} ms`);
  console.log(
    `  per query (${QUERIES.length} queries × ${ROUNDS} rounds): p50 ${percentile(samples, 50).toFixed(2)} ms, p95 ${percentile(samples, 95).toFixed(2)} ms`,
  );
  const polyglot = await preloadTranslator();
  const medianOf = async (run: () => unknown, times = 3) => {
    const taken: number[] = [];
    for (let i = 0; i < times; i++) {
      const started = performance.now();
      await run();
      taken.push(performance.now() - started);
    }
    return percentile(taken, 50);
  };
  // Large statements, each against polyglot's parse of it; pasted lists (translated by the rows
  // that type them, literal-rows.ts) also against translating the list whole.
  const large = [
    ['13 CTEs, each joining two before', chainOfCtes(12), false],
    ['UNION ALL of 120 SELECTs', unionOfSelects(120), false],
    ['1,500 literal rows in VALUES', addressList(1500), true],
    ['1,500 addresses in an IN list', addressInList(1500), true],
  ] as const;
  for (const [name, sql, pastedList] of large) {
    const parseMs = await medianOf(() => polyglot.parse(sql, polyglot.Dialect.Trino));
    const line = [];
    for (const target of ['duckdb', 'athena'] as const) {
      const ms = await medianOf(() => translate(sql, target));
      const wholeMs = pastedList
        ? await medianOf(() => translate(sql, target, { wholeLiteralRows: true }))
        : undefined;
      line.push(
        wholeMs === undefined
          ? `${target} ${ms.toFixed(0)} ms (${(ms / parseMs).toFixed(1)}× its parse)`
          : `${target} ${ms.toFixed(0)} ms (whole list ${wholeMs.toFixed(0)} ms, ${(wholeMs / ms).toFixed(1)}×)`,
      );
    }
    console.log(
      `  large statement, ${name} (${sql.length} characters; parse ${parseMs.toFixed(0)} ms): ${line.join(', ')}`,
    );
  }
  console.log(`  process RSS after: ${(process.memoryUsage.rss() / 1024 ** 2).toFixed(0)} MiB`);
}

if (ENGINE_FLAGS.every((flag) => process.execArgv.includes(flag))) {
  await main();
} else {
  const child = spawnSync(
    process.execPath,
    [...ENGINE_FLAGS, ...process.execArgv, ...process.argv.slice(1)],
    {
      stdio: 'inherit',
    },
  );
  process.exitCode = child.status ?? 1;
}
