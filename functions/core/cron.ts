import { Cron } from 'croner';
import { BadRequestError } from './errors';

const MINUTE = 60_000;

/** Next fire times of a 5-field cron expression (UTC), after `from`. */
export function nextRuns(expression: string, count: number, from = new Date()): Date[] {
  return parse(expression).nextRuns(count, from);
}

const DAY = 24 * 60 * MINUTE;
/** The most a refresh schedule may leave between two fire times. */
const MAX_GAP = 7 * DAY;
/** The least. */
const MIN_GAP = 15 * MINUTE;
/**
 * How far fire days are scanned: four years and more, so that every length of February and every
 * month's ending is seen (a `29 2` or a `31` schedule shows its longest gap in it).
 */
const HORIZON_DAYS = 4 * 366 + 14;
/** A day fires at most this often under the 15-minute rule (one more shows a smaller gap). */
const MAX_TIMES_A_DAY = 24 * 4;

/**
 * Refresh schedules fire at most every 15 minutes and at least weekly: every gap between two
 * consecutive fire times must lie in that range. In UTC a schedule fires at the same times of day
 * on every day it fires (its minute and hour fields do not depend on the date), so the times of its
 * first day and the days it fires on over four years and more (one match each, ~1,500 in all) give
 * every gap, however the month, day-of-month and day-of-week fields combine.
 */
export function validateRefreshSchedule(expression: string, from = new Date()): void {
  const cron = parse(expression);
  const refuse = (why: string): never => {
    throw new BadRequestError(`cron_expression "${expression}" ${why}.`);
  };
  const first = cron.nextRun(from);
  if (!first) {
    refuse(
      'never fires: no date matches its day-of-month, month and day-of-week fields together (e.g. "0 0 30 2 *" asks for February 30)',
    );
  }
  const firstDay = Math.floor(first!.getTime() / DAY) * DAY;
  // The times of day it fires at (after midnight, in ms), up to the first gap under 15 minutes.
  const times: number[] = [];
  for (let run = cron.nextRun(new Date(firstDay - 1)); run && run.getTime() < firstDay + DAY; ) {
    const at = run.getTime() - firstDay;
    if (times.length > 0 && at - times.at(-1)! < MIN_GAP) refuse('fires more often than every 15 minutes');
    times.push(at);
    if (times.length > MAX_TIMES_A_DAY) break;
    run = cron.nextRun(run);
  }
  const [earliest, latest] = [times[0]!, times.at(-1)!];
  for (let i = 1; i < times.length; i++) {
    if (times[i]! - times[i - 1]! > MAX_GAP) refuse('fires less often than weekly'); // never: a day is shorter
  }
  // The days it fires on: each gap from one day's last fire time to the next day's first.
  let previous = firstDay + latest;
  for (let day = 1; day <= HORIZON_DAYS; day++) {
    const start = firstDay + day * DAY;
    if (!cron.match(new Date(start + earliest))) continue;
    const gap = start + earliest - previous;
    if (gap < MIN_GAP) refuse('fires more often than every 15 minutes');
    if (gap > MAX_GAP) refuse(lessThanWeekly(previous, start + earliest));
    previous = start + latest;
  }
  const horizon = firstDay + (HORIZON_DAYS + 1) * DAY;
  if (horizon - previous > MAX_GAP) {
    const next = cron.nextRun(new Date(previous));
    refuse(next ? lessThanWeekly(previous, next.getTime()) : 'fires less often than weekly');
  }
}

function lessThanWeekly(from: number, to: number): string {
  const days = Math.round((to - from) / DAY);
  const day = (at: number) => new Date(at).toISOString().replace(':00.000Z', 'Z');
  return `fires less often than weekly: ${days} days pass between its runs at ${day(from)} and ${day(to)} (at most 7 may)`;
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
