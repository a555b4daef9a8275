-- Unlimited approvals: Approval logs whose amount word is all ones (varbinary comparison to a 32-byte literal).
-- rows: 1
-- columns: approvals bigint, unlimited bigint
SELECT count(*) AS approvals,
  count_if(varbinary_substring(data, 1, 32) = 0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff) AS unlimited
FROM ethereum.logs
WHERE topic0 = 0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925
