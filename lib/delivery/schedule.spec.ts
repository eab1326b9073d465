import type { TimeUnit } from '../common/enums';
import { addDuration, durationMs, nextTimedDigest, scheduledDelayMs, ScheduleError, type TimedConfig } from './schedule';

const at = (iso: string) => new Date(iso);
const iso = (date: Date) => date.toISOString();

/** Wednesday 15 May 2024, 10:30 UTC: the reference "now" of most timed-digest cases. */
const NOW = at('2024-05-15T10:30:00.000Z');

function next(timed: TimedConfig | undefined, unit: TimeUnit | undefined, amount: number | undefined, now = NOW, tz?: string): string {
  return iso(nextTimedDigest(timed, unit, amount, now, tz));
}

function scheduleError(run: () => unknown): ScheduleError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    return error as ScheduleError;
  }
  throw new Error('expected a ScheduleError');
}

describe('schedule', () => {
  describe('addDuration', () => {
    it('adds exact seconds, minutes, hours, days and weeks', () => {
      expect(iso(addDuration(NOW, 90, 'seconds'))).toBe('2024-05-15T10:31:30.000Z');
      expect(iso(addDuration(NOW, 45, 'minutes'))).toBe('2024-05-15T11:15:00.000Z');
      expect(iso(addDuration(NOW, 1.5, 'hours'))).toBe('2024-05-15T12:00:00.000Z');
      expect(iso(addDuration(NOW, 20, 'days'))).toBe('2024-06-04T10:30:00.000Z');
      expect(iso(addDuration(NOW, 2, 'weeks'))).toBe('2024-05-29T10:30:00.000Z');
      expect(iso(addDuration(NOW, 0, 'days'))).toBe(iso(NOW));
    });

    it('adds calendar months in UTC, clamped to the end of the month', () => {
      expect(iso(addDuration(at('2024-01-31T08:00:00Z'), 1, 'months'))).toBe('2024-02-29T08:00:00.000Z');
      expect(iso(addDuration(at('2023-01-31T08:00:00Z'), 1, 'months'))).toBe('2023-02-28T08:00:00.000Z');
      expect(iso(addDuration(at('2024-01-31T08:00:00Z'), 13, 'months'))).toBe('2025-02-28T08:00:00.000Z');
      expect(iso(addDuration(at('2024-02-29T23:59:59.999Z'), 12, 'months'))).toBe('2025-02-28T23:59:59.999Z');
      expect(iso(addDuration(at('2000-02-29T00:00:00Z'), 48, 'months'))).toBe('2004-02-29T00:00:00.000Z');
      expect(iso(addDuration(at('2100-01-31T00:00:00Z'), 1, 'months'))).toBe('2100-02-28T00:00:00.000Z');
      expect(iso(addDuration(at('2024-05-31T10:00:00Z'), 1, 'months'))).toBe('2024-06-30T10:00:00.000Z');
      expect(iso(addDuration(at('2024-11-30T10:00:00Z'), 3, 'months'))).toBe('2025-02-28T10:00:00.000Z');
      expect(iso(addDuration(at('2024-12-15T10:00:00Z'), 1, 'months'))).toBe('2025-01-15T10:00:00.000Z');
    });

    it('goes back in time for negative amounts', () => {
      expect(iso(addDuration(NOW, -5, 'minutes'))).toBe('2024-05-15T10:25:00.000Z');
      expect(iso(addDuration(at('2024-03-31T10:00:00Z'), -1, 'months'))).toBe('2024-02-29T10:00:00.000Z');
      expect(iso(addDuration(at('2024-01-15T10:00:00Z'), -1, 'months'))).toBe('2023-12-15T10:00:00.000Z');
    });

    it('rejects invalid amounts, units and dates', () => {
      expect(scheduleError(() => addDuration(NOW, Number.NaN, 'days')).message).toBe('Invalid duration amount NaN: expected a finite number');
      expect(scheduleError(() => addDuration(NOW, Infinity, 'days')).message).toMatch(/^Invalid duration amount Infinity/);
      expect(scheduleError(() => addDuration(NOW, 1.5, 'months')).message).toBe('Invalid duration amount 1.5: months must be a whole number');
      expect(scheduleError(() => addDuration(NOW, 1, 'years' as TimeUnit)).message).toBe(
        'Invalid duration unit "years": expected one of seconds, minutes, hours, days, weeks, months',
      );
      expect(scheduleError(() => addDuration(at('nope'), 1, 'days')).message).toBe('Invalid from date');
      expect(scheduleError(() => addDuration(NOW, 1e12, 'weeks')).message).toMatch(/out of range$/);
    });
  });

  describe('durationMs', () => {
    it('is the distance to addDuration', () => {
      expect(durationMs(NOW, 2, 'minutes')).toBe(120_000);
      expect(durationMs(NOW, 1, 'weeks')).toBe(604_800_000);
      expect(durationMs(at('2024-02-01T00:00:00Z'), 1, 'months')).toBe(29 * 86_400_000);
      expect(durationMs(at('2023-01-31T00:00:00Z'), 1, 'months')).toBe(28 * 86_400_000);
      expect(durationMs(NOW, -1, 'hours')).toBe(-3_600_000);
    });
  });

  describe('scheduledDelayMs', () => {
    it('waits until the ISO date at the path', () => {
      expect(scheduledDelayMs({ sendAt: '2024-05-15T11:30:00Z' }, 'sendAt', NOW)).toBe(3_600_000);
      expect(scheduledDelayMs({ meeting: { startsAt: '2024-05-15T12:30:00+02:00' } }, 'meeting.startsAt', NOW)).toBe(0);
      expect(scheduledDelayMs({ slots: [{ at: '2024-05-16' }] }, 'slots[0].at', NOW)).toBe(13.5 * 3_600_000);
      expect(scheduledDelayMs({ sendAt: '2024-05-15T10:30:00.250' }, 'sendAt', NOW)).toBe(250);
    });

    it('rejects a missing path, a missing or invalid date and a past date', () => {
      expect(scheduleError(() => scheduledDelayMs({}, undefined, NOW)).message).toBe('Delay path is required for scheduled delay');
      expect(scheduleError(() => scheduledDelayMs({}, ' ', NOW)).message).toBe('Delay path is required for scheduled delay');
      expect(scheduleError(() => scheduledDelayMs({}, 'sendAt', NOW)).message).toBe('Delay date at path sendAt is missing');
      expect(scheduleError(() => scheduledDelayMs({ sendAt: null }, 'sendAt', NOW)).message).toBe('Delay date at path sendAt is missing');
      expect(scheduleError(() => scheduledDelayMs({ sendAt: 'tomorrow' }, 'sendAt', NOW)).message).toBe(
        'Delay date at path sendAt is not a valid ISO date',
      );
      expect(scheduleError(() => scheduledDelayMs({ sendAt: 1715770000000 }, 'sendAt', NOW)).message).toBe(
        'Delay date at path sendAt is not a valid ISO date',
      );
      expect(scheduleError(() => scheduledDelayMs({ a: { b: '2024-02-30' } }, 'a.b', NOW)).message).toBe(
        'Delay date at path a.b is not a valid ISO date',
      );
      expect(scheduleError(() => scheduledDelayMs({ sendAt: '2024-05-15T10:29:59.999Z' }, 'sendAt', NOW)).message).toBe(
        'Delay date at path sendAt must be a future date',
      );
    });
  });

  describe('nextTimedDigest', () => {
    describe('minutes and hours', () => {
      it('minutes: the start of the current minute plus amount', () => {
        expect(next({}, 'minutes', 5)).toBe('2024-05-15T10:35:00.000Z');
        expect(next(undefined, 'minutes', undefined)).toBe('2024-05-15T10:31:00.000Z');
        expect(next({ atTime: '09:00' }, 'minutes', 15, at('2024-05-15T10:30:20.500Z'))).toBe('2024-05-15T10:45:00.000Z');
        expect(next({}, 'minutes', 1440)).toBe('2024-05-16T10:30:00.000Z');
      });

      it('hours: at the minute of atTime, every amount hours from the current hour', () => {
        expect(next({ atTime: '09:45' }, 'hours', 1)).toBe('2024-05-15T10:45:00.000Z');
        expect(next({ atTime: '09:15' }, 'hours', 1)).toBe('2024-05-15T11:15:00.000Z');
        expect(next({ atTime: '00:15' }, 'hours', 3)).toBe('2024-05-15T13:15:00.000Z');
        expect(next({ atTime: '00:30' }, 'hours', 3)).toBe('2024-05-15T13:30:00.000Z');
        expect(next({}, 'hours', 1)).toBe('2024-05-15T11:00:00.000Z');
        expect(next({ atTime: '07:30:30' }, 'hours', 2)).toBe('2024-05-15T10:30:30.000Z');
      });

      it('hours: follows local hours in half-hour zones and across daylight saving', () => {
        // 16:00 in Kolkata (UTC+05:30).
        expect(next({}, 'hours', 1, NOW, 'Asia/Kolkata')).toBe('2024-05-15T11:30:00.000Z');
        expect(next({ atTime: '00:30' }, 'hours', 1, NOW, 'Asia/Kolkata')).toBe('2024-05-15T11:00:00.000Z');
        // 01:30 EST on the night clocks jump from 02:00 to 03:00 EDT.
        expect(next({}, 'hours', 1, at('2024-03-10T06:30:00Z'), 'America/New_York')).toBe('2024-03-10T07:00:00.000Z');
      });
    });

    describe('days', () => {
      it('fires at atTime today when still ahead, else the next day', () => {
        expect(next({ atTime: '12:00' }, 'days', 1)).toBe('2024-05-15T12:00:00.000Z');
        expect(next({ atTime: '09:00' }, 'days', 1)).toBe('2024-05-16T09:00:00.000Z');
        expect(next({ atTime: '10:30' }, 'days', 1)).toBe('2024-05-16T10:30:00.000Z');
        expect(next({}, 'days', 1)).toBe('2024-05-16T00:00:00.000Z');
        expect(next({ atTime: '9:05:07' }, 'days', 1)).toBe('2024-05-16T09:05:07.000Z');
      });

      it('counts amount days from today', () => {
        expect(next({ atTime: '12:00' }, 'days', 2)).toBe('2024-05-15T12:00:00.000Z');
        expect(next({ atTime: '09:00' }, 'days', 2)).toBe('2024-05-17T09:00:00.000Z');
        expect(next({ atTime: '09:00' }, 'days', 3)).toBe('2024-05-18T09:00:00.000Z');
        expect(next({ atTime: '09:00' }, 'days', 2, at('2024-12-31T10:30:00Z'))).toBe('2025-01-02T09:00:00.000Z');
        expect(next({ atTime: '09:00' }, 'days', 365)).toBe('2025-05-15T09:00:00.000Z');
      });

      it('keeps only weekDays when given', () => {
        expect(next({ atTime: '09:00', weekDays: ['monday', 'friday'] }, 'days', 1)).toBe('2024-05-17T09:00:00.000Z');
        expect(next({ atTime: '12:00', weekDays: ['wednesday'] }, 'days', 1)).toBe('2024-05-15T12:00:00.000Z');
      });

      it('jumps over skipped periods without missing an eligible one', () => {
        // Day +1000 is a Tuesday, day +2000 the first eligible Monday.
        const started = Date.now();
        expect(next({ atTime: '09:00', weekDays: ['monday'] }, 'days', 1000)).toBe('2029-11-05T09:00:00.000Z');
        expect(Date.now() - started).toBeLessThan(1000);
      });

      it('reads atTime in the time zone, across daylight saving', () => {
        // 06:30 EDT.
        expect(next({ atTime: '09:00' }, 'days', 1, NOW, 'America/New_York')).toBe('2024-05-15T13:00:00.000Z');
        // Saturday 10:00 EST; Sunday 09:00 is EDT.
        expect(next({ atTime: '09:00' }, 'days', 1, at('2024-03-09T15:00:00Z'), 'America/New_York')).toBe('2024-03-10T13:00:00.000Z');
        // 14:30 UTC is 23:30 on May 15 in Tokyo: the days are counted from the Tokyo date.
        expect(next({ atTime: '09:00' }, 'days', 2, at('2024-05-15T14:30:00Z'), 'Asia/Tokyo')).toBe('2024-05-17T00:00:00.000Z');
      });
    });

    describe('weeks', () => {
      it('fires on weekDays at atTime', () => {
        expect(next({ atTime: '09:00', weekDays: ['friday'] }, 'weeks', 1)).toBe('2024-05-17T09:00:00.000Z');
        expect(next({ atTime: '09:00', weekDays: ['monday'] }, 'weeks', 1)).toBe('2024-05-20T09:00:00.000Z');
        expect(next({ atTime: '12:00', weekDays: ['wednesday', 'monday'] }, 'weeks', 1)).toBe('2024-05-15T12:00:00.000Z');
      });

      it('defaults to the weekday of now', () => {
        expect(next({ atTime: '09:00' }, 'weeks', 1)).toBe('2024-05-22T09:00:00.000Z');
        expect(next({ atTime: '12:00' }, 'weeks', 1)).toBe('2024-05-15T12:00:00.000Z');
      });

      it('counts amount weeks from the current Monday-started week', () => {
        expect(next({ atTime: '09:00', weekDays: ['monday'] }, 'weeks', 2)).toBe('2024-05-27T09:00:00.000Z');
        expect(next({ atTime: '09:00', weekDays: ['monday', 'thursday'] }, 'weeks', 2)).toBe('2024-05-16T09:00:00.000Z');
        // Sunday belongs to the current week.
        expect(next({ atTime: '09:00', weekDays: ['Sunday'] }, 'weeks', 2)).toBe('2024-05-19T09:00:00.000Z');
        expect(next({ atTime: '09:00', weekDays: ['wednesday'] }, 'weeks', 4)).toBe('2024-06-12T09:00:00.000Z');
        expect(next({ atTime: '09:00', weekDays: ['tuesday'] }, 'weeks', 52)).toBe('2025-05-13T09:00:00.000Z');
      });

      it('keeps the wall-clock time across daylight saving', () => {
        expect(next({ atTime: '09:00', weekDays: ['monday'] }, 'weeks', 1, at('2024-10-30T12:00:00Z'), 'America/New_York')).toBe(
          '2024-11-04T14:00:00.000Z',
        );
      });
    });

    describe('months, each', () => {
      it('fires on monthDays at atTime', () => {
        expect(next({ atTime: '09:00', monthDays: [1, 15] }, 'months', 1)).toBe('2024-06-01T09:00:00.000Z');
        expect(next({ atTime: '09:00', monthDays: [20] }, 'months', 1)).toBe('2024-05-20T09:00:00.000Z');
        expect(next({ atTime: '12:00', monthDays: [15], monthlyType: 'each' }, 'months', 1)).toBe('2024-05-15T12:00:00.000Z');
        expect(next({}, 'months', 1)).toBe('2024-06-15T00:00:00.000Z');
      });

      it('skips months without the day, including February in leap and common years', () => {
        expect(next({ atTime: '09:00', monthDays: [31] }, 'months', 1, at('2024-04-15T00:00:00Z'))).toBe('2024-05-31T09:00:00.000Z');
        expect(next({ atTime: '09:00', monthDays: [29] }, 'months', 1, at('2024-02-10T00:00:00Z'))).toBe('2024-02-29T09:00:00.000Z');
        expect(next({ atTime: '09:00', monthDays: [29] }, 'months', 1, at('2023-02-10T00:00:00Z'))).toBe('2023-03-29T09:00:00.000Z');
      });

      it('counts amount months from the current month, looking past months without the day', () => {
        expect(next({ atTime: '09:00', monthDays: [10] }, 'months', 2)).toBe('2024-07-10T09:00:00.000Z');
        expect(next({ atTime: '09:00', monthDays: [15] }, 'months', 12)).toBe('2025-05-15T09:00:00.000Z');
        // Jan, Apr (no 31st), Jul.
        expect(next({ atTime: '09:00', monthDays: [31] }, 'months', 3, at('2024-01-31T10:30:00Z'))).toBe('2024-07-31T09:00:00.000Z');
      });
    });

    describe('months, on', () => {
      const on = (ordinal: string, ordinalValue: string, now = NOW, amount = 1, tz?: string) =>
        next({ atTime: '09:00', monthlyType: 'on', ordinal, ordinalValue }, 'months', amount, now, tz);

      it('a named weekday', () => {
        expect(on('1', 'monday')).toBe('2024-06-03T09:00:00.000Z');
        expect(on('3', 'friday')).toBe('2024-05-17T09:00:00.000Z');
        expect(on('last', 'friday')).toBe('2024-05-31T09:00:00.000Z');
        expect(on('1', 'sunday')).toBe('2024-06-02T09:00:00.000Z');
        expect(on('last', 'sunday')).toBe('2024-05-26T09:00:00.000Z');
        // May and June 2024 have four Mondays; July has five.
        expect(on('5', 'monday')).toBe('2024-07-29T09:00:00.000Z');
        expect(on('2', 'tuesday', NOW, 2)).toBe('2024-07-09T09:00:00.000Z');
      });

      it('the nth or last day', () => {
        expect(on('2', 'day')).toBe('2024-06-02T09:00:00.000Z');
        expect(on('last', 'day')).toBe('2024-05-31T09:00:00.000Z');
        expect(on('last', 'day', at('2024-02-10T00:00:00Z'))).toBe('2024-02-29T09:00:00.000Z');
        expect(on('last', 'day', at('2023-02-10T00:00:00Z'))).toBe('2023-02-28T09:00:00.000Z');
        expect(on('last', 'day', at('2024-04-30T09:00:00Z'))).toBe('2024-05-31T09:00:00.000Z');
      });

      it('the nth or last weekday (Monday-Friday)', () => {
        // June 2024 starts on a Saturday.
        expect(on('1', 'weekday')).toBe('2024-06-03T09:00:00.000Z');
        expect(on('last', 'weekday')).toBe('2024-05-31T09:00:00.000Z');
        expect(on('5', 'weekday')).toBe('2024-06-07T09:00:00.000Z');
        // May 3 is past; two months on, July 2024 starts on a Monday.
        expect(on('3', 'weekday', NOW, 2)).toBe('2024-07-03T09:00:00.000Z');
        // June 30 2024 is a Sunday.
        expect(on('last', 'weekday', at('2024-06-29T00:00:00Z'))).toBe('2024-07-31T09:00:00.000Z');
        expect(on('last', 'weekday', at('2024-06-27T00:00:00Z'))).toBe('2024-06-28T09:00:00.000Z');
      });

      it('the nth or last weekend day (Saturday, Sunday)', () => {
        expect(on('1', 'weekend')).toBe('2024-06-01T09:00:00.000Z');
        expect(on('2', 'weekend')).toBe('2024-06-02T09:00:00.000Z');
        expect(on('5', 'weekend')).toBe('2024-05-18T09:00:00.000Z');
        expect(on('last', 'weekend')).toBe('2024-05-26T09:00:00.000Z');
        expect(on('last', 'weekend', at('2024-05-27T00:00:00Z'))).toBe('2024-06-30T09:00:00.000Z');
      });

      it('reads the month in the time zone', () => {
        // 10:00 on Friday May 31 in Tokyo: May's last weekday at 09:00 JST is past; June's is Friday the 28th.
        expect(on('last', 'weekday', at('2024-05-31T01:00:00Z'), 1, 'Asia/Tokyo')).toBe('2024-06-28T00:00:00.000Z');
        expect(on('last', 'friday', at('2024-05-31T01:00:00Z'), 1, 'Asia/Tokyo')).toBe('2024-06-28T00:00:00.000Z');
        expect(on('1', 'weekday', at('2024-05-31T23:00:00Z'), 1, 'Asia/Tokyo')).toBe('2024-06-03T00:00:00.000Z');
      });

      it('is assumed when ordinal and ordinalValue are set without monthDays', () => {
        expect(next({ atTime: '09:00', ordinal: 'last', ordinalValue: 'friday' }, 'months', 1)).toBe('2024-05-31T09:00:00.000Z');
        expect(next({ atTime: '09:00', ordinal: 'last', ordinalValue: 'friday', monthDays: [20] }, 'months', 1)).toBe(
          '2024-05-20T09:00:00.000Z',
        );
      });
    });

    describe('cron expressions', () => {
      it('decide alone, in the time zone', () => {
        expect(next({ cronExpression: '0 9 * * 1' }, 'days', 3)).toBe('2024-05-20T09:00:00.000Z');
        expect(next({ cronExpression: '0 9 * * 1' }, undefined, undefined, NOW, 'Europe/Berlin')).toBe('2024-05-20T07:00:00.000Z');
        expect(next({ cronExpression: '30 0 12 * * *' }, 'seconds', 1)).toBe('2024-05-15T12:00:30.000Z');
        expect(next({ cronExpression: '@daily' }, undefined, undefined)).toBe('2024-05-16T00:00:00.000Z');
        expect(next({ cronExpression: '0 9 L * *', atTime: '23:00' }, 'days', 1)).toBe('2024-05-31T09:00:00.000Z');
        expect(next({ cronExpression: '0 9 * * 5#3' }, undefined, undefined)).toBe('2024-05-17T09:00:00.000Z');
        expect(next({ cronExpression: ' */15 * * * * ' }, undefined, undefined)).toBe('2024-05-15T10:45:00.000Z');
      });

      it('are fired strictly after now', () => {
        expect(next({ cronExpression: '30 10 * * *' }, undefined, undefined)).toBe('2024-05-16T10:30:00.000Z');
      });

      it('reject invalid and impossible expressions', () => {
        expect(scheduleError(() => next({ cronExpression: 'not a cron' }, 'days', 1)).message).toMatch(/^Invalid cron expression "not a cron": /);
        expect(scheduleError(() => next({ cronExpression: '61 * * * *' }, 'days', 1)).message).toMatch(/^Invalid cron expression "61 \* \* \* \*": /);
        expect(scheduleError(() => next({ cronExpression: '0 0 30 2 *' }, 'days', 1)).message).toMatch(/^Invalid cron expression/);
      });
    });

    describe('invalid configurations', () => {
      it.each<[string, () => unknown, RegExp]>([
        ['seconds without cron', () => next({}, 'seconds', 1), /^Invalid timed digest unit "seconds"/],
        ['no unit', () => next({}, undefined, 1), /^Invalid timed digest unit "undefined"/],
        ['amount 0', () => next({}, 'days', 0), /^Invalid timed digest amount 0: expected a whole number ≥ 1$/],
        ['negative amount', () => next({}, 'days', -2), /^Invalid timed digest amount -2/],
        ['fractional amount', () => next({}, 'days', 1.5), /^Invalid timed digest amount 1.5/],
        ['hour 25', () => next({ atTime: '25:00' }, 'days', 1), /^Invalid atTime "25:00": expected HH:mm/],
        ['minute 60', () => next({ atTime: '10:60' }, 'days', 1), /^Invalid atTime "10:60"/],
        ['9am', () => next({ atTime: '9am' }, 'days', 1), /^Invalid atTime "9am"/],
        ['unknown weekday', () => next({ weekDays: ['funday'] }, 'weeks', 1), /^Invalid weekDays entry "funday": expected one of monday, /],
        ['month day 0', () => next({ monthDays: [0] }, 'months', 1), /^Invalid monthDays entry 0: expected a whole number from 1 to 31$/],
        ['month day 32', () => next({ monthDays: [32] }, 'months', 1), /^Invalid monthDays entry 32/],
        ['month day 1.5', () => next({ monthDays: [1.5] }, 'months', 1), /^Invalid monthDays entry 1.5/],
        ['monthly type', () => next({ monthlyType: 'sometimes' as 'on' }, 'months', 1), /^Invalid monthlyType "sometimes"/],
        ['no ordinal', () => next({ monthlyType: 'on', ordinalValue: 'day' }, 'months', 1), /^Invalid ordinal "undefined": expected one of 1, 2, 3, 4, 5, last$/],
        ['ordinal 6', () => next({ monthlyType: 'on', ordinal: '6', ordinalValue: 'day' }, 'months', 1), /^Invalid ordinal "6"/],
        ['ordinal value', () => next({ monthlyType: 'on', ordinal: '1', ordinalValue: 'holiday' }, 'months', 1), /^Invalid ordinalValue "holiday"/],
        ['time zone', () => next({}, 'days', 1, NOW, 'Mars/Olympus'), /^Unknown time zone "Mars\/Olympus"/],
        ['now', () => nextTimedDigest({}, 'days', 1, at('nope')), /^Invalid now date$/],
      ])('%s', (_, run, message) => {
        expect(scheduleError(run).message).toMatch(message);
      });

      it('treats an empty time zone as UTC', () => {
        expect(next({ atTime: '09:00' }, 'days', 1, NOW, '')).toBe('2024-05-16T09:00:00.000Z');
      });
    });
  });
});
