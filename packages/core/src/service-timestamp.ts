// The statistics timestamp as the service prints it (Go's `time.Time.String()`), read and written
// without zod: the dev server stamps its statistics with it and starts without the response schemas.
import { ValidationError } from './errors';

/**
 * A statistics timestamp split into what a `Date` can hold and what it cannot. Go prints up to
 * nanoseconds; a `Date` keeps milliseconds, so the exact fraction is kept beside it.
 */
export interface ServiceTimestampParts {
  /** The instant, truncated (not rounded) to the millisecond so it never lands after the real one. */
  date: Date;
  /** The fraction of the second in nanoseconds, 0 to 999 999 999. */
  nanoseconds: number;
  /** The printed UTC offset in minutes (`+0200` is 120). The real service always prints 0. */
  offsetMinutes: number;
}

/** What the schemas need: a reason instead of an exception, so it can become an issue on the field. */
export type ServiceTimestampResult = { ok: true; parts: ServiceTimestampParts } | { ok: false; reason: string };

/** The layout, written the way Go's reference time would print it, for error messages. */
const SERVICE_TIMESTAMP_LAYOUT = 'YYYY-MM-DD HH:MM:SS[.fffffffff] +0000 UTC';

// Go's `time.Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`. The zone is an abbreviation
// (`UTC`, `CEST`) or, for zones without one, the offset again (`+03`, `+0530`). A time that still
// carries a monotonic clock reading gets ` m=+0.000000001` appended: it means nothing outside the
// process that printed it, so it is accepted and ignored rather than failing a whole statistics page.
const LAYOUT =
  /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))? ([+-])(\d{2})(\d{2}) ([A-Za-z]{1,10}|[+-]\d{2}(?:\d{2})?)(?: m=[+-]\d+\.\d{9})?$/;

/**
 * Parses without throwing; the schemas use this to report the field instead of an exception.
 *
 * @example safeParseServiceTimestamp('2025-10-01 11:33:05 +0000 UTC') // { ok: true, parts: { ... } }
 */
export function safeParseServiceTimestamp(value: string): ServiceTimestampResult {
  if (typeof value !== 'string') return { ok: false, reason: `expected a string, got ${typeof value}` };
  const match = LAYOUT.exec(value);
  if (!match) {
    return { ok: false, reason: `${JSON.stringify(truncate(value))} is not a timestamp of the form ${SERVICE_TIMESTAMP_LAYOUT}` };
  }
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fraction = '', sign, offsetHourText, offsetMinuteText] = match;
  const year = Number(yearText);
  const month = Number(monthText);
  const day = Number(dayText);
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText);
  const offsetHours = Number(offsetHourText);
  const offsetMins = Number(offsetMinuteText);

  if (month < 1 || month > 12) return { ok: false, reason: `month ${monthText} out of range in ${JSON.stringify(value)}` };
  if (day < 1 || day > daysInMonth(year, month)) return { ok: false, reason: `day ${dayText} out of range in ${JSON.stringify(value)}` };
  // Go never prints a leap second (its clock smears them), so 60 is an error, not a rounding case.
  if (hour > 23 || minute > 59 || second > 59) {
    return { ok: false, reason: `time ${hourText}:${minuteText}:${secondText} out of range in ${JSON.stringify(value)}` };
  }
  if (offsetHours > 23 || offsetMins > 59)
    return { ok: false, reason: `offset ${sign}${offsetHourText}${offsetMinuteText} out of range in ${JSON.stringify(value)}` };

  // Go trims trailing zeros, so "5" means 500 ms: pad on the right, never on the left.
  const nanoseconds = fraction === '' ? 0 : Number(fraction.padEnd(9, '0'));
  const offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  const wallClock = utcMillis(year, month, day, hour, minute, second, Math.floor(nanoseconds / 1_000_000));
  return { ok: true, parts: { date: new Date(wallClock - offsetMinutes * 60_000), nanoseconds, offsetMinutes } };
}

/**
 * Parses a statistics timestamp as the service prints it (Go's `time.Time.String()` layout) and
 * keeps the exact nanoseconds, which a `Date` cannot hold.
 *
 * Accepts a fraction of 0 to 9 digits (none for a whole second) and any numeric offset (`+0200 CEST`);
 * throws {@link ValidationError} for anything else, never returns an Invalid Date.
 *
 * @example
 * parseServiceTimestampParts('2025-10-01 11:33:05.585757103 +0000 UTC')
 * // { date: 2025-10-01T11:33:05.585Z, nanoseconds: 585757103, offsetMinutes: 0 }
 */
export function parseServiceTimestampParts(value: string): ServiceTimestampParts {
  const result = safeParseServiceTimestamp(value);
  if (!result.ok) throw new ValidationError('timestamp', result.reason);
  return result.parts;
}

/**
 * Parses a statistics timestamp (`2025-10-01 11:33:05.585757103 +0000 UTC`) to a `Date`, truncated
 * to the millisecond. Use {@link parseServiceTimestampParts} when the nanoseconds matter.
 *
 * @example parseServiceTimestamp('2025-10-01 11:33:05 +0000 UTC').toISOString() // '2025-10-01T11:33:05.000Z'
 * @throws {ValidationError} when the string is not in the service's layout.
 */
export function parseServiceTimestamp(value: string): Date {
  return parseServiceTimestampParts(value).date;
}

/**
 * Prints a `Date` the way the service does, always in UTC: `YYYY-MM-DD HH:MM:SS[.f] +0000 UTC`, with
 * the fraction's trailing zeros trimmed and no dot at all for a whole second (as Go prints it).
 *
 * `nanoseconds`, when given, is the whole fraction of the second (0 to 999 999 999) and replaces the
 * date's own milliseconds, since a `Date` cannot carry more precision; so
 * `parseServiceTimestampParts(formatServiceTimestamp(d, ns))` gives back `ns` exactly.
 *
 * @example
 * formatServiceTimestamp(new Date('2025-10-01T11:33:05.500Z'))      // '2025-10-01 11:33:05.5 +0000 UTC'
 * formatServiceTimestamp(new Date('2025-10-01T11:33:05Z'), 585757103) // '2025-10-01 11:33:05.585757103 +0000 UTC'
 * @throws {ValidationError} for an Invalid Date, a year outside 0 to 9999, or nanoseconds out of range.
 */
export function formatServiceTimestamp(date: Date, nanoseconds?: number): string {
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new ValidationError('date', 'expected a valid Date');
  }
  const year = date.getUTCFullYear();
  // The layout has exactly four year digits; Go itself prints other years differently.
  if (year < 0 || year > 9999) throw new ValidationError('date', `year ${year} cannot be written in the service's layout (0 to 9999)`);
  if (nanoseconds !== undefined && (!Number.isInteger(nanoseconds) || nanoseconds < 0 || nanoseconds > 999_999_999)) {
    throw new ValidationError('nanoseconds', `expected a whole number from 0 to 999999999, got ${String(nanoseconds)}`);
  }
  const fractionNs = nanoseconds ?? date.getUTCMilliseconds() * 1_000_000;
  const fraction = fractionNs === 0 ? '' : `.${String(fractionNs).padStart(9, '0').replace(/0+$/, '')}`;
  return (
    `${pad(year, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${fraction} +0000 UTC`
  );
}

function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  // Date.UTC maps years 0 to 99 onto 1900 to 1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 57)}...` : value;
}
