import { describe, expect, it } from 'vitest';
import { validateRefreshSchedule } from '../../functions/core/cron';

const FROM = new Date('2026-03-10T12:34:56Z');
const check = (expression: string) => () => validateRefreshSchedule(expression, FROM);

describe('validateRefreshSchedule: between every 15 minutes and weekly, every gap', () => {
  it.each([
    '*/15 * * * *',
    '0 6 * * 1',
    '0 0 * * *',
    '0 */6 * * *',
    '0,15,30,45 * * * *',
    '30 23 * * 0,3',
    // Day-of-month and day-of-week both given: either matches (Vixie cron), so Fridays keep it weekly.
    '0 0 13 * 5',
    '0 0 1,8,15,22,29 * *',
    '0 0 1-28 * *',
  ])('accepts %s', (expression) => {
    expect(check(expression)).not.toThrow();
  });

  it.each([
    ['0 0 29 2 *', 1461, '2028-02-29T00:00Z', '2032-02-29T00:00Z'],
    ['0 0 * 1 *', 335, '2027-01-31T00:00Z', '2028-01-01T00:00Z'],
    ['0 0 31 * *', 61, '2026-03-31T00:00Z', '2026-05-31T00:00Z'],
    ['0 0 1 * *', 30, '2026-04-01T00:00Z', '2026-05-01T00:00Z'],
    ['0 12 * * 1#1', 28, '2026-04-06T12:00Z', '2026-05-04T12:00Z'],
    ['0 0 1-7 * *', 24, '2026-04-07T00:00Z', '2026-05-01T00:00Z'],
  ] as const)('refuses %s, naming its first gap over 7 days (%i days)', (expression, days, from, to) => {
    expect(check(expression)).toThrow(
      `cron_expression "${expression}" fires less often than weekly: ${days} days pass between its runs at ${from} and ${to} (at most 7 may).`,
    );
  });

  it('says that one that never fires never fires', () => {
    expect(check('0 0 30 2 *')).toThrow(
      'cron_expression "0 0 30 2 *" never fires: no date matches its day-of-month, month and day-of-week fields together (e.g. "0 0 30 2 *" asks for February 30).',
    );
    expect(check('0 0 31 4,6,9,11 *')).toThrow(/never fires/);
  });

  it('refuses gaps under 15 minutes, across midnight too', () => {
    expect(check('*/5 * * * *')).toThrow(
      'cron_expression "*/5 * * * *" fires more often than every 15 minutes.',
    );
    expect(check('0,10 * * * *')).toThrow(/more often than every 15 minutes/);
    expect(check('50 23 * * *')).not.toThrow();
    expect(check('55 23,0 * * *')).not.toThrow(); // 23:55 → 00:55, and 00:55 → 23:55
    expect(check('0,50 0,23 * * *')).toThrow(/more often than every 15 minutes/); // 23:50 → 00:00
  });

  it('does a bounded amount of work (about 1,500 day matches at most)', () => {
    const started = performance.now();
    for (const expression of ['*/15 * * * *', '0 0 * * *', '0 0 13 * 5'])
      validateRefreshSchedule(expression, FROM);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
