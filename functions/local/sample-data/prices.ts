import { NATIVE_PRICES, PRICE_ASSETS, WINDOW_MINUTES } from './config';
import { insertFromHex, lit, num, valuesTable } from './sql';

/** Index of an asset in PRICE_ASSETS (the key of the `_sd_ap` price series). */
export function assetIndex(asset: string): number {
  const index = PRICE_ASSETS.findIndex((candidate) => candidate.asset === asset);
  if (index < 0) throw new Error(`unknown price asset ${asset}`);
  return index;
}

/**
 * `_sd_ap(asset_idx, m, price)`: one USD price per asset and minute m of the window. Volatile
 * assets follow a log random walk whose increments are integers (1e-9 units), so the running sum is
 * exact and thread-independent; stablecoins get small bounded noise around 1.
 */
export function assetPriceStatements(): string[] {
  const assets = valuesTable(
    'a',
    ['asset_idx', 'start', 'vol_min', 'stable'],
    PRICE_ASSETS.map((asset, index) => [
      String(index),
      num(asset.start),
      num(asset.stable ? asset.dailyVol : asset.dailyVol / Math.sqrt(1440)),
      asset.stable ? 'true' : 'false',
    ]),
  );
  return [
    `CREATE OR REPLACE TEMP TABLE _sd_ap AS
     WITH steps AS (
       SELECT a.asset_idx, m.range AS m, a.start, a.vol_min, a.stable,
              CASE WHEN m.range = 0 THEN 0
                   ELSE round(_sd_n('px', a.asset_idx * 10000000 + m.range) * a.vol_min * 1e9)::BIGINT END AS step
       FROM ${assets} CROSS JOIN range(${WINDOW_MINUTES}) AS m
     )
     SELECT asset_idx, m::INTEGER AS m,
            CASE WHEN stable THEN 1.0 + greatest(-0.003, least(0.003, step / 1e9))
                 ELSE start * exp(sum(step) OVER (PARTITION BY asset_idx ORDER BY m ROWS UNBOUNDED PRECEDING) / 1e9)
            END AS price
     FROM steps`,
  ];
}

/** Native coins in prices.usd: blockchain and contract_address NULL, as Dune lists them. */
export function nativePriceStatement(windowStart: string): string {
  const natives = valuesTable(
    'n',
    ['symbol', 'decimals', 'asset_idx'],
    NATIVE_PRICES.map((native) => [
      lit(native.symbol),
      String(native.decimals),
      String(assetIndex(native.asset)),
    ]),
  );
  return insertFromHex(
    'prices.usd',
    `SELECT TIMESTAMP ${lit(windowStart)} + to_minutes(ap.m) AS minute, NULL AS blockchain, NULL AS contract_address,
           n.symbol, n.decimals, ap.price
    FROM ${natives} JOIN _sd_ap ap USING (asset_idx)
    ORDER BY minute, n.symbol`,
  );
}
