-- Block gas utilisation and base fee per hour (avg of a ratio, round).
-- rows: 100..170
-- columns: hour timestamp(3), blocks bigint, utilisation double, base_fee_gwei double
SELECT date_trunc('hour', time) AS hour, count(*) AS blocks,
  round(avg(cast(gas_used AS double) / gas_limit), 4) AS utilisation,
  round(avg(base_fee_per_gas) / 1e9, 3) AS base_fee_gwei
FROM ethereum.blocks
WHERE time > now() - interval '7' day
GROUP BY 1
ORDER BY 1
