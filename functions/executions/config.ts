import type { PerformanceTier } from '../core/engine';
import { type PerMinute, parsePerMinute, type RateLimits } from '../core/rate-limits';
import { DEFAULT_WEBHOOK_POLICY, type WebhookPolicy } from '../core/webhooks';

/** Operating limits of executions; each host reads them from its environment. */
export interface ExecutionConfig {
  /** Engine wall-clock limit per tier. */
  queryTimeoutMs: Record<PerformanceTier, number>;
  /** Executions one account may have running at once; more wait in PENDING. */
  maxConcurrentExecutions: number;
  /** Credits included per billing period when an account has no limit of its own. */
  defaultCreditLimit: number;
  /** Result storage allowed per account. */
  storageBytesAllowed: number;
  /** Results expire this many days after submission. */
  resultRetentionDays: number;
  /** Seconds between slot polls while queued. */
  slotPollSeconds: number;
  /** A queued execution gives up after this many polls (bounds the workflow's history). */
  maxSlotPolls: number;
  /** The node-runner function ARN generated workflows call. */
  runnerResource: string;
  /** Which webhook URLs are accepted and how a notification is retried. */
  webhooks: WebhookPolicy;
  /** Requests per minute and account, by class, when an account has no limits of its own. */
  rateLimits: RateLimits;
  /** OAuth dynamic client registrations (`POST /oauth/mcp/register`) per client address and hour. */
  oauthRegistrationsPerHour: number;
}

/** The default request budgets per account and minute (Dune's Enterprise plan is 350+ and 1000+). */
export const DEFAULT_RATE_LIMITS: RateLimits = { read: 1200, write: 300 };

/**
 * The longest a run may last, with a margin: a run resolves what it reads (view versions, upload
 * generations) when it is submitted and is stopped at its tier's limit, seen at the next poll.
 * Superseded view versions, retired upload generations and run sessions outlive it.
 */
export function longestRunMs(config: Pick<ExecutionConfig, 'queryTimeoutMs'>): number {
  return Math.max(...Object.values(config.queryTimeoutMs)) + 10 * 60_000;
}

function numberFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0)
    throw new Error(`${name} must be a positive number, got "${value}".`);
  return parsed;
}

function perMinuteFrom(env: NodeJS.ProcessEnv, name: string, fallback: PerMinute): PerMinute {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = parsePerMinute(value);
  if (parsed === undefined || parsed === 'default')
    throw new Error(
      `${name} must be a whole number of requests per minute above 0, or "unlimited"; got "${value}".`,
    );
  return parsed;
}

export function executionConfigFromEnv(env: NodeJS.ProcessEnv, runnerResource: string): ExecutionConfig {
  const timeoutSeconds = numberFrom(env, 'QUERY_TIMEOUT_SECONDS', 1800);
  return {
    queryTimeoutMs: {
      medium: numberFrom(env, 'QUERY_TIMEOUT_SECONDS_MEDIUM', timeoutSeconds) * 1000,
      large: numberFrom(env, 'QUERY_TIMEOUT_SECONDS_LARGE', timeoutSeconds) * 1000,
    },
    maxConcurrentExecutions: numberFrom(env, 'MAX_CONCURRENT_EXECUTIONS', 3),
    defaultCreditLimit: numberFrom(env, 'DEFAULT_CREDIT_LIMIT', 2500),
    storageBytesAllowed: numberFrom(env, 'STORAGE_BYTES_ALLOWED', 1024 ** 3),
    resultRetentionDays: numberFrom(env, 'RESULT_RETENTION_DAYS', 90),
    slotPollSeconds: numberFrom(env, 'SLOT_POLL_SECONDS', 2),
    maxSlotPolls: numberFrom(env, 'MAX_SLOT_POLLS', 900),
    runnerResource,
    webhooks: DEFAULT_WEBHOOK_POLICY,
    rateLimits: {
      read: perMinuteFrom(env, 'RATE_LIMIT_READS_PER_MINUTE', DEFAULT_RATE_LIMITS.read),
      write: perMinuteFrom(env, 'RATE_LIMIT_WRITES_PER_MINUTE', DEFAULT_RATE_LIMITS.write),
    },
    oauthRegistrationsPerHour: numberFrom(env, 'OAUTH_REGISTRATIONS_PER_HOUR', 30),
  };
}
