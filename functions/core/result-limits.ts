import { type PerformanceTier, QueryFailure } from './engine';

/**
 * How large one stored result may be per tier, on both engines: DuckDB stops writing past it,
 * Athena's result is refused once written (docs/aws.md, "Result size and storage limits").
 */
export const RESULT_LIMITS: Record<PerformanceTier, { maxResultRows: number; maxResultBytes: number }> = {
  medium: { maxResultRows: 10_000_000, maxResultBytes: 1024 ** 3 },
  large: { maxResultRows: 50_000_000, maxResultBytes: 4 * 1024 ** 3 },
};

const SHRINK_ADVICE =
  'aggregate (GROUP BY), filter to fewer rows, select fewer or narrower columns, or add a LIMIT';

export interface ResultLimit {
  tier: PerformanceTier;
  maxResultRows: number;
  maxResultBytes: number;
  /** Why the byte limit is what it is (the tier's limit, or what is left of the storage quota). */
  resultBytesLimitReason: string;
}

/**
 * The byte limit of a run's result: the tier's, or what was left of the account's storage quota
 * when it was submitted if that is less.
 */
export function resultLimitOf(
  tier: PerformanceTier,
  quota: { storageBytesLeft?: number; storageBytesQuota?: number } = {},
  limits = RESULT_LIMITS[tier],
): ResultLimit {
  const left = quota.storageBytesLeft;
  const quotaBinds = left !== undefined && left < limits.maxResultBytes;
  return {
    tier,
    maxResultRows: limits.maxResultRows,
    maxResultBytes: quotaBinds ? Math.max(0, left) : limits.maxResultBytes,
    resultBytesLimitReason: quotaBinds
      ? `what is left of your ${formatBytes(quota.storageBytesQuota ?? left)} result storage quota`
      : `the result size limit of the ${tier} tier`,
  };
}

/** A run refused before it starts: the account's storage quota is used up. */
export function storageQuotaUsedUp(): QueryFailure {
  return new QueryFailure(
    'resource_exhausted',
    'Your result storage quota is used up; nothing new can be stored until older results expire. ' +
      'Check bytes_used and bytes_allowed with POST /v1/usage.',
  );
}

/** A result past its limit (rows or bytes): the run fails and nothing is stored. */
export function resultTooLarge(
  limit: ResultLimit,
  exceeded: 'rows' | 'bytes',
  engineMillis: number,
  usage: { scannedBytes?: number } = {},
): QueryFailure {
  const message =
    exceeded === 'rows'
      ? `The result has more than ${limit.maxResultRows.toLocaleString('en-US')} rows, the limit of the ${limit.tier} tier; ${SHRINK_ADVICE}.`
      : `The result grew past ${formatBytes(limit.maxResultBytes)} (${limit.resultBytesLimitReason}) and was not stored; ${SHRINK_ADVICE}.`;
  return new QueryFailure('resource_exhausted', message, undefined, engineMillis, usage.scannedBytes);
}

export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}
