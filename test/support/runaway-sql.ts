/**
 * A DuneSQL query that runs until it is interrupted: 10^12 rows from a cross join of three
 * 10,000-element sequences (Trino's `sequence` stops at 10,000 elements, so the size comes from the joins).
 */
export const RUNAWAY_SQL =
  'SELECT sum(a.x * b.x + c.x) AS s FROM unnest(sequence(1, 10000)) AS a(x) ' +
  'CROSS JOIN unnest(sequence(1, 10000)) AS b(x) CROSS JOIN unnest(sequence(1, 10000)) AS c(x)';
