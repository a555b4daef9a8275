import { Cron } from 'croner';
import { BadRequestError } from './errors';

const MINUTE = 60_000;

/** Next fire times of a 5-field cron expression (UTC), after `from`. */
export function nextRuns(expression: string, count: number, from = new Date()): Date[] {
  return parse(expression).nextRuns(count, from);
}

/**
 * Refresh schedules fire at most every 15 minutes and at least weekly: the gaps between the next
 * fire times (over two weeks and more) must all lie in that range.
 */
export function validateRefreshSchedule(expression: string, from = new Date()): void {
  const runs = parse(expression).nextRuns(2000, from);
  if (runs.length < 2)
    throw new BadRequestError(`cron_expression "${expression}" fires less often than weekly.`);
  const horizon = from.getTime() + 15 * 24 * 60 * MINUTE;
  for (let i = 1; i < runs.length && runs[i - 1]!.getTime() < horizon; i++) {
    const gap = (runs[i]!.getTime() - runs[i - 1]!.getTime()) / MINUTE;
    if (gap < 15)
      throw new BadRequestError(`cron_expression "${expression}" fires more often than every 15 minutes.`);
    if (gap > 7 * 24 * 60)
      throw new BadRequestError(`cron_expression "${expression}" fires less often than weekly.`);
  }
}

function parse(expression: string): Cron {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new BadRequestError(
      `cron_expression must have 5 fields (minute hour day-of-month month day-of-week), e.g. "0 * * * *" for hourly or "0 */6 * * *"; got "${expression}".`,
    );
  }
  try {
    return new Cron(expression, { paused: true, timezone: 'UTC' });
  } catch (error) {
    throw new BadRequestError(`cron_expression "${expression}" is not valid: ${(error as Error).message}`);
  }
}
