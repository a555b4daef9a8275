import { nextRuns } from './cron';
import type { MaterializedView, RefreshSchedule } from './materialized-views';

/**
 * The schedule's next refresh after `from`, or undefined when the schedule has expired by then: a
 * fire time at or after `expiresAt` never happens (EventBridge's EndDate, the local scheduler).
 */
export function nextScheduledRefresh(schedule: RefreshSchedule, from: Date): Date | undefined {
  const next = nextRuns(schedule.cronExpression, 1, from)[0];
  if (!next || (schedule.expiresAt && next.getTime() >= Date.parse(schedule.expiresAt))) return undefined;
  return next;
}

/**
 * Where refresh schedules live. Locally the in-process scheduler reads them from the views
 * themselves (nothing to register); in AWS each scheduled view has an EventBridge schedule that
 * invokes the node runner, which refreshes the view through a pipeline.
 */
export interface RefreshScheduleRegistry {
  /** Creates, updates or (when the view has no schedule) removes the view's schedule. */
  sync(view: MaterializedView): Promise<void>;
  remove(fullName: string): Promise<void>;
}

/** 5-field cron to EventBridge cron: 6 fields (a year) and `?` in one of the two day fields. */
export function toEventBridgeCron(expression: string): string {
  const [minute, hour, dayOfMonth, month, dayOfWeek] = expression.trim().split(/\s+/) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const weekdays = dayOfWeek === '*' ? '?' : eventBridgeWeekdays(dayOfWeek);
  const days = dayOfWeek !== '*' && dayOfMonth === '*' ? '?' : dayOfMonth;
  return `cron(${minute} ${hour} ${days} ${month} ${weekdays} *)`;
}

/** Unix cron numbers weekdays 0-7 from Sunday; EventBridge 1-7 from Sunday. */
function eventBridgeWeekdays(field: string): string {
  return field.replace(/\d+/g, (day) => String((Number(day) % 7) + 1));
}

/** A schedule name EventBridge accepts (≤ 64 chars of [0-9a-zA-Z-_.]), unique per view. */
export function scheduleName(fullName: string): string {
  return `refresh-${fullName.replace(/[^0-9a-zA-Z_.-]/g, '_')}`.slice(0, 64);
}
