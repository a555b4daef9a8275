-- date_diff counts whole units elapsed (Trino), not boundaries crossed.
-- rows: 1
-- columns: days bigint, hours bigint, months bigint, weeks bigint
-- result: [[0, 2, 0, 1]]
-- see: https://trino.io/docs/current/functions/datetime.html#date_diff
SELECT date_diff('day', timestamp '2024-01-01 23:00:00', timestamp '2024-01-02 01:00:00') AS days,
  date_diff('hour', timestamp '2024-01-01 23:00:00', timestamp '2024-01-02 01:00:00') AS hours,
  date_diff('month', date '2024-01-15', date '2024-02-14') AS months,
  date_diff('week', date '2024-01-01', date '2024-01-10') AS weeks
