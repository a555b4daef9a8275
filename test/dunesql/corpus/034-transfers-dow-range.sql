-- day_of_week and dow are ISO: Monday 1 ... Sunday 7; 2024-01-07 was a Sunday, 2024-01-08 a Monday.
-- rows: 1
-- columns: sunday bigint, monday bigint, dow_sunday bigint
-- result: [[7, 1, 7]]
-- see: https://trino.io/docs/current/functions/datetime.html#day_of_week
SELECT day_of_week(date '2024-01-07') AS sunday, day_of_week(date '2024-01-08') AS monday, dow(timestamp '2024-01-07 12:00:00') AS dow_sunday
