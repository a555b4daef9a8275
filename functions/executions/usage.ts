import type { Account } from '../core/accounts';
import { billingPeriodBounds, billingPeriodOf } from '../core/credits';
import type { Services } from '../services';

export interface Usage {
  privateQueries: number;
  bytesUsed: number;
  bytesAllowed: number;
  billingPeriods: { startDate: string; endDate: string; creditsUsed: number; creditsIncluded: number }[];
}

/** Credits per billing period (calendar months, UTC) from `startDate` to `endDate` (default: now), and storage. */
export async function usageOf(
  services: Services,
  account: Account,
  range: { startDate?: string; endDate?: string },
  now = new Date(),
): Promise<Usage> {
  const today = now.toISOString().slice(0, 10);
  const periods = periodsBetween(range.startDate ?? today, range.endDate ?? range.startDate ?? today);
  const [usage, limit, bytesUsed, privateQueries] = await Promise.all([
    services.usage.getCredits(account.accountId, periods),
    services.usage.getCreditLimit(account.accountId),
    services.usage.getStorageBytes(account.accountId),
    countPrivateQueries(services, account),
  ]);
  return {
    privateQueries,
    bytesUsed,
    bytesAllowed: services.config.storageBytesAllowed,
    billingPeriods: usage.map(({ period, creditsUsed }) => ({
      ...billingPeriodBounds(period),
      creditsUsed: Math.round(creditsUsed * 1000) / 1000,
      creditsIncluded: limit ?? services.config.defaultCreditLimit,
    })),
  };
}

async function countPrivateQueries(services: Services, account: Account): Promise<number> {
  const { queries } = await services.queries.listByAccount(account.accountId, Number.MAX_SAFE_INTEGER, 0);
  return queries.filter((q) => q.isPrivate && !q.isArchived).length;
}

/** Billing periods overlapping [start, end], at most 24. */
function periodsBetween(startDate: string, endDate: string): string[] {
  const periods: string[] = [];
  const cursor = new Date(`${startDate.slice(0, 7)}-01T00:00:00Z`);
  const last = billingPeriodOf(new Date(`${endDate}T00:00:00Z`));
  while (periods.length < 24) {
    const period = billingPeriodOf(cursor);
    periods.push(period);
    if (period >= last) break;
    cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  return periods;
}
