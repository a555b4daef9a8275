-- Topic words are 32 bytes; addresses are the last 20 (varbinary_ltrim strips the zero padding).
-- rows: 1
-- columns: topic_length bigint, address_length bigint, ltrimmed_length bigint
SELECT max(varbinary_length(topic1)) AS topic_length,
  max(varbinary_length(varbinary_substring(topic1, 13, 20))) AS address_length,
  max(varbinary_length(varbinary_ltrim(topic1))) AS ltrimmed_length
FROM ethereum.logs
WHERE topic0 = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef
