import type { Account } from '../core/accounts';
import { billingPeriodBounds, billingPeriodOf } from '../core/credits';
import type { Services } from '../services';

/** `POST /v1/usage`: credits per billing period (calendar months, UTC) and storage. */
export async function usageOf(
  services: Services,
  account: Account,
  range: { start_date?: string; end_date?: string },
  now = new Date(),
) {
  const periods = periodsBetween(
    range.start_date ?? now.toISOString().slice(0, 10),
    range.end_date ?? range.start_date ?? now.toISOString().slice(0, 10),
  );
  const [usage, limit, bytesUsed, privateQueries] = await Promise.all([
    services.usage.getCredits(account.accountId, periods),
    services.usage.getCreditLimit(account.accountId),
    services.usage.getStorageBytes(account.accountId),
    countPrivateQueries(services, account),
  ]);
  return {
    private_queries: privateQueries,
    private_dashboards: 0,
    bytes_used: bytesUsed,
    bytes_allowed: services.config.storageBytesAllowed,
    billing_periods: usage.map(({ period, creditsUsed }) => {
      const bounds = billingPeriodBounds(period);
      return {
        start_date: bounds.startDate,
        end_date: bounds.endDate,
        credits_used: Math.round(creditsUsed * 1000) / 1000,
        credits_included: limit ?? services.config.defaultCreditLimit,
      };
    }),
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
