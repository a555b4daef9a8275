/** Trino's `sequence()` returns at most 10,000 elements; more rows come from cross joins. */
const SEQUENCE_LIMIT = 10_000;

/**
 * A DuneSQL query that hashes about `rows` rows of a cross join of sequences (one xor and multiply
 * per row and join level, about as slow per row as DuckDB's hash()), so its run time grows with
 * `rows`. Returns one row, `h`.
 */
export function crossJoinSql(rows: number): string {
  const sides: number[] = [];
  for (let left = Math.max(1, Math.round(rows)); ; left = Math.ceil(left / SEQUENCE_LIMIT)) {
    sides.push(Math.min(left, SEQUENCE_LIMIT));
    if (left <= SEQUENCE_LIMIT) break;
  }
  const mixed = sides
    .slice(1)
    .reduce((value, _, i) => `bitwise_xor((${value}) % 1000003 * 2654435761, s${i + 1}.x)`, 's0.x');
  const from = sides.map((side, i) => `unnest(sequence(1, ${side})) AS s${i} (x)`).join(' CROSS JOIN ');
  return `SELECT sum(${mixed} % 7) AS h FROM ${from}`;
}

/** A DuneSQL query that runs until it is interrupted (10^12 rows). */
export const RUNAWAY_SQL = crossJoinSql(1e12);

/**
 * A heavy DuneSQL query that keeps an engine process busy (about 10^11 rows to filter) until it is
 * cancelled; the load test and benchmark run six at once.
 */
export const HEAVY_SQL =
  'select count(*) from unnest(sequence(1, 10000)) a (x) cross join unnest(sequence(1, 10000)) b (y) ' +
  'cross join unnest(sequence(1, 1000)) c (z) where (a.x + b.y + c.z) % 7 = 3';
