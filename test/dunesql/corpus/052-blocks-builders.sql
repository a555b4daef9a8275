-- Block builder (miner) share over the last 30 days.
-- rows: 2..30
-- columns: miner varbinary, blocks bigint, share double
SELECT miner, count(*) AS blocks, cast(count(*) AS double) / sum(count(*)) OVER () AS share
FROM ethereum.blocks
WHERE time >= now() - interval '30' day
GROUP BY miner
ORDER BY blocks DESC
