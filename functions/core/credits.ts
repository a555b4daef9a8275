import type { EngineUsage, PerformanceTier } from './engine';

/** Large engines have twice the compute, so a second of it costs twice as much. */
export const TIER_FACTOR: Record<PerformanceTier, number> = { medium: 1, large: 2 };

/** Credits per engine-second on the medium tier. */
export const CREDITS_PER_ENGINE_SECOND = 1;

/** The smallest charge for a run that reached the engine. */
export const MINIMUM_CHARGE = 0.01;

/** Credits for the compute a run used: engine time × tier factor (failed and cancelled runs too). */
export function creditsFor(engineMillis: number, tier: PerformanceTier): number {
  const credits = (engineMillis / 1000) * CREDITS_PER_ENGINE_SECOND * TIER_FACTOR[tier];
  return Math.max(MINIMUM_CHARGE, Math.round(credits * 1000) / 1000);
}

/** Credits per GiB an engine scanned (Athena), on top of engine time. */
export const CREDITS_PER_SCANNED_GIB = 1;
/** Athena bills at least 10 MB per query that scanned anything (docs/aws.md, "Credits"). */
export const MINIMUM_BILLED_SCAN_BYTES = 10 * 1024 * 1024;

/**
 * Credits of one run: engine time × tier factor (`creditsFor`), plus 1 credit per GiB scanned with
 * Athena's 10 MB minimum; a reused result ran nothing and is free. Locally nothing is scanned per
 * byte, so this is `creditsFor` alone.
 */
export function runCredits(usage: EngineUsage, tier: PerformanceTier): number {
  if (usage.reusedResult) return 0;
  const scanned = usage.scannedBytes ?? 0;
  const scanCredits =
    scanned > 0 ? (Math.max(scanned, MINIMUM_BILLED_SCAN_BYTES) / 1024 ** 3) * CREDITS_PER_SCANNED_GIB : 0;
  return Math.round((creditsFor(usage.engineMillis, tier) + scanCredits) * 1000) / 1000;
}

/** Billing periods are calendar months in UTC: `2026-11`. */
export function billingPeriodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function billingPeriodBounds(period: string): { startDate: string; endDate: string } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const start = new Date(Date.UTC(year, month - 1, 1));
  const end = new Date(Date.UTC(year, month, 1));
  return { startDate: start.toISOString().slice(0, 10), endDate: end.toISOString().slice(0, 10) };
}

export interface AccountUsage {
  period: string;
  creditsUsed: number;
}

export interface UsageStore {
  addCredits(accountId: string, period: string, credits: number): Promise<void>;
  getCredits(accountId: string, periods: readonly string[]): Promise<AccountUsage[]>;
  addStorageBytes(accountId: string, bytes: number): Promise<void>;
  getStorageBytes(accountId: string): Promise<number>;
  /** Per-account credit limit per billing period, when one is set. */
  getCreditLimit(accountId: string): Promise<number | undefined>;
  /** The credits used in one period and the account's own limit, in one read (every submit asks). */
  getCreditStanding(
    accountId: string,
    period: string,
  ): Promise<{ creditsUsed: number; creditLimit?: number }>;
  setCreditLimit(accountId: string, credits: number): Promise<void>;
}
