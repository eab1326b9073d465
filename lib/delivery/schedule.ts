/**
 * Time arithmetic for delays, digests and throttles: how long a step waits and when a timed digest
 * fires. Pure functions of their arguments (`now` is always passed in), so the worker and the specs
 * get the same answers.
 *
 * @packageDocumentation
 */
import { CronExpressionParser } from 'cron-parser';
import { ORDINALS, ORDINAL_VALUES, TIME_UNITS, WEEK_DAYS, type TimeUnit } from '../common/enums';
import type { StepMetadata } from '../workflows/workflow-definition';
import { parseIsoDate, readPath } from './step-conditions';

/** A delay, digest or timed-digest configuration that cannot be turned into a time. */
export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';
}

/** The `timed` settings of a digest step. */
export type TimedConfig = NonNullable<StepMetadata['timed']>;

const MS_PER_UNIT: Record<Exclude<TimeUnit, 'months'>, number> = {
  seconds: 1_000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 7 * 86_400_000,
};

/**
 * Adds `amount` units to a date. Seconds, minutes, hours and days are exact elapsed time (a day is
 * 24 hours); a week is 7 days. Months are calendar months in UTC, clamped to the end of the target
 * month: Jan 31 + 1 month = Feb 29 in a leap year, Feb 28 otherwise; the time of day is kept.
 * (Novu's delay reads weeks and months as seconds; this does not.)
 * A negative amount goes back in time (a throttle's window start): Mar 31 − 1 month = Feb 28/29.
 * @param from Start date.
 * @param amount A finite number; whole for months (a fraction of a calendar month has no meaning).
 * @param unit One of {@link TIME_UNITS}.
 * @throws ScheduleError on an invalid date, amount or unit.
 */
export function addDuration(from: Date, amount: number, unit: TimeUnit): Date {
  assertDate(from, 'from');
  if (typeof amount !== 'number' || !Number.isFinite(amount)) {
    throw new ScheduleError(`Invalid duration amount ${String(amount)}: expected a finite number`);
  }
  if (!(TIME_UNITS as readonly string[]).includes(unit)) {
    throw new ScheduleError(`Invalid duration unit "${String(unit)}": expected one of ${TIME_UNITS.join(', ')}`);
  }
  let result: Date;
  if (unit === 'months') {
    if (!Number.isInteger(amount)) {
      throw new ScheduleError(`Invalid duration amount ${amount}: months must be a whole number`);
    }
    result = addMonthsUtc(from, amount);
  } else {
    result = new Date(from.getTime() + amount * MS_PER_UNIT[unit]);
  }
  if (Number.isNaN(result.getTime())) {
    throw new ScheduleError(`Duration of ${amount} ${unit} from ${from.toISOString()} is out of range`);
  }
  return result;
}

/**
 * Milliseconds from `from` to `from` + `amount` `unit` (see {@link addDuration}); for months it
 * depends on `from`. Negative for a negative amount.
 * @throws ScheduleError as {@link addDuration}.
 */
export function durationMs(from: Date, amount: number, unit: TimeUnit): number {
  return addDuration(from, amount, unit).getTime() - from.getTime();
}

/**
 * The wait of a scheduled delay: the ISO date at `delayPath` in the payload minus `now`.
 * A date without an offset is read as UTC (see {@link parseIsoDate}). A date equal to `now` waits 0 ms;
 * only an earlier one is rejected, as in Novu.
 * @param payload The event payload.
 * @param delayPath A path into the payload (`sendAt`, `meeting.startsAt`, `slots[0].at`).
 * @param now The current time.
 * @returns Milliseconds to wait, ≥ 0.
 * @throws ScheduleError `Delay path is required for scheduled delay`, `Delay date at path <p> is missing`,
 *   `Delay date at path <p> is not a valid ISO date` or `Delay date at path <p> must be a future date`.
 */
export function scheduledDelayMs(payload: Record<string, unknown>, delayPath: string | undefined, now: Date): number {
  assertDate(now, 'now');
  if (typeof delayPath !== 'string' || delayPath.trim() === '') {
    throw new ScheduleError('Delay path is required for scheduled delay');
  }
  const value = readPath(payload, delayPath);
  if (value === undefined || value === null || value === '') {
    throw new ScheduleError(`Delay date at path ${delayPath} is missing`);
  }
  const date = parseIsoDate(value);
  if (date === undefined) throw new ScheduleError(`Delay date at path ${delayPath} is not a valid ISO date`);
  const wait = date.getTime() - now.getTime();
  if (wait < 0) throw new ScheduleError(`Delay date at path ${delayPath} must be a future date`);
  return wait;
}

/**
 * The next time a timed digest fires, strictly after `now`.
 *
 * With `timed.cronExpression` (5 fields, or 6 with seconds first; `@daily`-style aliases; `L` and `#`),
 * the cron expression alone decides, read in `timezone`; `unit` and `amount` are ignored.
 *
 * Otherwise the schedule is built from `unit`, `amount` (default 1) and `timed`, with `atTime`
 * (`HH:mm` or `HH:mm:ss`, default `00:00`) read as wall-clock time in `timezone`:
 * - `minutes`: every `amount` minutes on minute boundaries: the start of the current minute + `amount`.
 * - `hours`: every `amount` hours at the minute (and second) of `atTime`; its hour is ignored.
 * - `days`: every `amount` days at `atTime`; `weekDays`, when given, keeps only those days.
 * - `weeks`: every `amount` weeks (weeks start on Monday) on `weekDays` (default: today's) at `atTime`.
 * - `months`, `monthlyType` `each` (the default): every `amount` months on `monthDays` (1-31, default:
 *   today's day of month) at `atTime`; a month without that day (31 in April) is skipped.
 * - `months`, `monthlyType` `on` (also assumed when `ordinal` and `ordinalValue` are set and `monthDays`
 *   is not): every `amount` months on the `ordinal` (`1`-`5`, `last`) `ordinalValue` of the month:
 *   `day` (the nth / last day), `weekday` (Mon-Fri), `weekend` (Sat/Sun) or a weekday name. A month
 *   without a 5th Monday is skipped.
 *
 * The `amount` periods are counted from the period containing `now`, as Novu's RRule (`dtstart = now`,
 * `interval = amount`) does: "every 2 days at 09:00" fires today at 09:00 when that is still ahead,
 * else on the day after tomorrow. Unlike Novu, a first fire time more than one period away (day 31
 * asked in February) is looked for in later periods instead of failing.
 *
 * @param timed The digest's `timed` settings.
 * @param unit The digest's unit; `seconds` is not a timed-digest unit.
 * @param amount The digest's amount: a whole number ≥ 1 (default 1).
 * @param now The current time.
 * @param timezone IANA time zone `atTime`, days and months are read in (default `UTC`).
 * @throws ScheduleError on an invalid configuration or time zone, with what is wrong.
 */
export function nextTimedDigest(
  timed: StepMetadata['timed'],
  unit: TimeUnit | undefined,
  amount: number | undefined,
  now: Date,
  timezone = 'UTC',
): Date {
  assertDate(now, 'now');
  const tz = validTimezone(timezone);
  const config: TimedConfig = timed ?? {};
  const cron = typeof config.cronExpression === 'string' ? config.cronExpression.trim() : '';
  if (cron !== '') return nextCron(cron, now, tz);

  const every = amount ?? 1;
  if (!Number.isInteger(every) || every < 1) {
    throw new ScheduleError(`Invalid timed digest amount ${String(amount)}: expected a whole number ≥ 1`);
  }
  const at = parseAtTime(config.atTime);
  switch (unit) {
    case 'minutes':
      return new Date(Math.floor(now.getTime() / 60_000) * 60_000 + every * 60_000);
    case 'hours':
      return nextHourly(now, tz, every, at);
    case 'days': {
      const days = config.weekDays?.length ? cronWeekDays(config.weekDays) : '*';
      return nextInPeriods(`${at.second} ${at.minute} ${at.hour} * * ${days}`, now, tz, 'days', every);
    }
    case 'weeks': {
      const days = config.weekDays?.length ? cronWeekDays(config.weekDays) : String(zonedParts(now, tz).weekday);
      return nextInPeriods(`${at.second} ${at.minute} ${at.hour} * * ${days}`, now, tz, 'weeks', every);
    }
    case 'months':
      return nextMonthly(config, now, tz, every, at);
    default:
      throw new ScheduleError(
        `Invalid timed digest unit "${String(unit)}": expected minutes, hours, days, weeks or months, or a cronExpression`,
      );
  }
}

interface AtTime {
  hour: number;
  minute: number;
  second: number;
}

/** Wall-clock fields of an instant in a time zone; `month` is 1-12, `weekday` 0 (Sunday)-6. */
interface ZonedParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
}

type CalendarUnit = 'days' | 'weeks' | 'months';

const WEEKDAY_NUMBERS: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
};

/** Lower bounds of a period's length, used to jump ahead when whole periods are skipped. */
const MIN_PERIOD_MS: Record<CalendarUnit, number> = {
  days: 86_400_000,
  weeks: 7 * 86_400_000,
  months: 28 * 86_400_000,
};

/** Daylight-saving shifts make local periods a little shorter; jumps stay this far on the safe side. */
const JUMP_MARGIN_MS = 3 * 3_600_000;

/** Candidate fire times looked at before giving up (skipped periods are jumped, not walked). */
const MAX_CANDIDATES = 10_000;

function nextCron(expression: string, now: Date, tz: string): Date {
  try {
    return CronExpressionParser.parse(expression, { currentDate: now, tz }).next().toDate();
  } catch (error) {
    throw new ScheduleError(`Invalid cron expression "${expression}": ${errorMessage(error)}`);
  }
}

/**
 * `hours`: slots at `:mm:ss` of every local hour. Hour boundaries are fixed by the offset at `now`, so
 * the arithmetic stays monotonic across a daylight-saving change (whole-hour shifts keep `:mm`).
 */
function nextHourly(now: Date, tz: string, every: number, at: AtTime): Date {
  const offset = zonedOffsetMs(now, tz);
  const hourStart = Math.floor((now.getTime() + offset) / 3_600_000) * 3_600_000 - offset;
  const slot = hourStart + at.minute * 60_000 + at.second * 1_000;
  return new Date(slot > now.getTime() ? slot : slot + every * 3_600_000);
}

function nextMonthly(config: TimedConfig, now: Date, tz: string, every: number, at: AtTime): Date {
  const time = `${at.second} ${at.minute} ${at.hour}`;
  const monthlyType =
    config.monthlyType ?? (config.ordinal !== undefined && config.ordinalValue !== undefined && !config.monthDays?.length ? 'on' : 'each');
  if (monthlyType === 'each') {
    const days = config.monthDays?.length ? cronMonthDays(config.monthDays) : String(zonedParts(now, tz).day);
    return nextInPeriods(`${time} ${days} * *`, now, tz, 'months', every);
  }
  if (monthlyType !== 'on') {
    throw new ScheduleError(`Invalid monthlyType "${String(monthlyType)}": expected "each" or "on"`);
  }
  const { ordinal, ordinalValue } = config;
  if (ordinal === undefined || !(ORDINALS as readonly string[]).includes(ordinal)) {
    throw new ScheduleError(`Invalid ordinal "${String(ordinal)}": expected one of ${ORDINALS.join(', ')}`);
  }
  if (ordinalValue === undefined || !(ORDINAL_VALUES as readonly string[]).includes(ordinalValue)) {
    throw new ScheduleError(`Invalid ordinalValue "${String(ordinalValue)}": expected one of ${ORDINAL_VALUES.join(', ')}`);
  }
  const isLast = ordinal === 'last';
  if (ordinalValue === 'day') {
    return nextInPeriods(`${time} ${isLast ? 'L' : ordinal} * *`, now, tz, 'months', every);
  }
  if (ordinalValue === 'weekday' || ordinalValue === 'weekend') {
    return nextOrdinalDayKind(ordinalValue, isLast ? -1 : Number(ordinal), now, tz, every, at);
  }
  const weekday = WEEKDAY_NUMBERS[ordinalValue];
  return nextInPeriods(`${time} * * ${weekday}${isLast ? 'L' : `#${ordinal}`}`, now, tz, 'months', every);
}

/**
 * Walks the occurrences of a cron pattern after `now` and returns the first one whose period (local day,
 * Monday-started week or month) is a multiple of `every` periods after the period of `now`. Local
 * calendar periods never go backwards across daylight-saving changes, so the period arithmetic holds.
 */
function nextInPeriods(expression: string, now: Date, tz: string, unit: CalendarUnit, every: number): Date {
  const origin = periodIndex(zonedParts(now, tz), unit);
  let iterator = parseCron(expression, now, tz);
  for (let candidates = 0; candidates < MAX_CANDIDATES; candidates++) {
    const occurrence = nextOccurrence(iterator, expression);
    const remainder = (periodIndex(zonedParts(occurrence, tz), unit) - origin) % every;
    if (remainder === 0) return occurrence;
    // Jump to just before the next eligible period instead of walking every occurrence in between.
    const jump = (every - remainder - 1) * MIN_PERIOD_MS[unit] - JUMP_MARGIN_MS;
    if (jump > 0) iterator = parseCron(expression, new Date(occurrence.getTime() + jump), tz);
  }
  throw new ScheduleError(`Timed digest schedule "${expression}" every ${every} ${unit} has no next fire time`);
}

/**
 * `on` with `weekday` / `weekend`: cron cannot say "the 3rd weekday of the month", so the day is found
 * on the calendar and cron-parser only turns that local date and time into an instant in the zone.
 */
function nextOrdinalDayKind(
  kind: 'weekday' | 'weekend',
  nth: number,
  now: Date,
  tz: string,
  every: number,
  at: AtTime,
): Date {
  const today = zonedParts(now, tz);
  // Every month has at least 20 weekdays and 8 weekend days, so a 5th always exists and the month
  // `every` months on is never more than two tries away.
  for (let offset = 0; offset <= every; offset += every) {
    const monthIndex = today.year * 12 + (today.month - 1) + offset;
    const year = Math.floor(monthIndex / 12);
    const month = (monthIndex % 12) + 1;
    const matching: number[] = [];
    for (let day = 1; day <= daysInMonth(year, month); day++) {
      const weekday = new Date(Date.UTC(year, month - 1, day)).getUTCDay();
      const isWeekend = weekday === 0 || weekday === 6;
      if (isWeekend === (kind === 'weekend')) matching.push(day);
    }
    const day = nth === -1 ? matching[matching.length - 1] : matching[nth - 1];
    const fire = zonedDateTime(year, month, day, at, tz);
    if (fire.getTime() > now.getTime()) return fire;
  }
  throw new ScheduleError(`Timed digest on the ${nth} ${kind} every ${every} months has no next fire time`);
}

/** The instant of a local date and time in a zone (a time skipped by daylight saving moves forward, as cron does). */
function zonedDateTime(year: number, month: number, day: number, at: AtTime, tz: string): Date {
  // Start two days early: UTC offsets are within ±14 hours, so the first match is that very date.
  const start = new Date(Date.UTC(year, month - 1, day) - 2 * 86_400_000);
  return nextOccurrence(parseCron(`${at.second} ${at.minute} ${at.hour} ${day} ${month} *`, start, tz), 'date');
}

function parseCron(expression: string, from: Date, tz: string): ReturnType<typeof CronExpressionParser.parse> {
  try {
    return CronExpressionParser.parse(expression, { currentDate: from, tz });
  } catch (error) {
    throw new ScheduleError(`Invalid timed digest schedule "${expression}": ${errorMessage(error)}`);
  }
}

function nextOccurrence(iterator: ReturnType<typeof CronExpressionParser.parse>, expression: string): Date {
  try {
    return iterator.next().toDate();
  } catch (error) {
    throw new ScheduleError(`Timed digest schedule "${expression}" has no next fire time: ${errorMessage(error)}`);
  }
}

function periodIndex(parts: ZonedParts, unit: CalendarUnit): number {
  if (unit === 'months') return parts.year * 12 + (parts.month - 1);
  const dayIndex = Math.floor(Date.UTC(parts.year, parts.month - 1, parts.day) / 86_400_000);
  // Day 0 (1970-01-01) was a Thursday; shifting by 3 makes weeks start on Monday, as RRule's default.
  return unit === 'days' ? dayIndex : Math.floor((dayIndex + 3) / 7);
}

function parseAtTime(atTime: string | undefined): AtTime {
  if (atTime === undefined || atTime === '') return { hour: 0, minute: 0, second: 0 };
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(String(atTime).trim());
  const [hour, minute, second] = match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : [NaN, NaN, NaN];
  if (!match || hour > 23 || minute > 59 || second > 59) {
    throw new ScheduleError(`Invalid atTime "${String(atTime)}": expected HH:mm (00:00-23:59)`);
  }
  return { hour, minute, second };
}

function cronWeekDays(weekDays: string[]): string {
  const numbers = weekDays.map((name) => {
    const number = typeof name === 'string' ? WEEKDAY_NUMBERS[name.trim().toLowerCase()] : undefined;
    if (number === undefined) {
      throw new ScheduleError(`Invalid weekDays entry "${String(name)}": expected one of ${WEEK_DAYS.join(', ')}`);
    }
    return number;
  });
  return [...new Set(numbers)].sort((a, b) => a - b).join(',');
}

function cronMonthDays(monthDays: number[]): string {
  for (const day of monthDays) {
    if (!Number.isInteger(day) || day < 1 || day > 31) {
      throw new ScheduleError(`Invalid monthDays entry ${String(day)}: expected a whole number from 1 to 31`);
    }
  }
  return [...new Set(monthDays)].sort((a, b) => a - b).join(',');
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let format = formatters.get(tz);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(tz, format);
  }
  return format;
}

const SHORT_WEEKDAYS: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };

function zonedParts(date: Date, tz: string): ZonedParts {
  const parts: Record<string, string> = {};
  for (const part of formatter(tz).formatToParts(date)) parts[part.type] = part.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: SHORT_WEEKDAYS[parts.weekday] ?? 0,
  };
}

/** Local time minus UTC at an instant, in ms (+2h in Europe/Berlin in summer). */
function zonedOffsetMs(date: Date, tz: string): number {
  const p = zonedParts(date, tz);
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return local - Math.floor(date.getTime() / 1_000) * 1_000;
}

function validTimezone(timezone: string | undefined | null): string {
  const tz = typeof timezone === 'string' && timezone.trim() !== '' ? timezone.trim() : 'UTC';
  try {
    formatter(tz);
  } catch {
    throw new ScheduleError(`Unknown time zone "${tz}": expected an IANA name such as Europe/Berlin`);
  }
  return tz;
}

function addMonthsUtc(from: Date, months: number): Date {
  const monthIndex = from.getUTCFullYear() * 12 + from.getUTCMonth() + months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  const result = new Date(from.getTime());
  // Set the day first to 1 so that changing the month never rolls over (Jan 31 → "Feb 31" → Mar 3).
  result.setUTCFullYear(year, month - 1, 1);
  result.setUTCDate(Math.min(from.getUTCDate(), daysInMonth(year, month)));
  return result;
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

function assertDate(value: Date, name: string): void {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new ScheduleError(`Invalid ${name} date`);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
