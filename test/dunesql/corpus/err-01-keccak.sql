-- keccak() has no Keccak-256 on the local engine: a clear error naming it and the supported form.
-- error: keccak\(\) is not available on the local engine.*topic0
SELECT keccak(to_utf8('Transfer(address,address,uint256)')) AS topic0
