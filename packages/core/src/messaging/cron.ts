import { Cron } from 'croner';
import { describeValue, ValidationError } from '../errors';
import { assertHeaderValue } from '../enqueue-headers';

// A schedule's cron as the service reads it, for the client (before it sends) and the dev server
// (when one arrives). Apart from the schedule calls: the dev server reads it without the client's schemas.

const FIELD = /^[0-9A-Za-z*?,/#LW-]+$/;
/** A cron expression read: its five fields and its time zone (`CRON_TZ=`, default UTC). */
export interface ParsedCron {
  fields: string;
  timezone: string;
}

/**
 * Reads a cron expression the way the service does: an optional `CRON_TZ=<IANA zone>` and five
 * fields, each value in its range (`61 * * * *` is refused), and at least one time that matches
 * (`0 0 30 2 *`, February 30th, never fires). The client checks schedules with it before sending,
 * and the dev server with it when one arrives, so both give the same verdict.
 *
 * @throws ValidationError on the `cron` path, saying what is wrong.
 */
export function parseCron(cron: unknown): ParsedCron {
  if (typeof cron !== 'string' || cron.trim() === '') {
    throw new ValidationError('cron', `expected a cron expression such as "0 9 * * *", got ${describeValue(cron)}`);
  }
  assertHeaderValue('cron', cron);
  let parts = cron.trim().split(/\s+/);
  let timezone = 'UTC';
  if (parts[0]?.startsWith('CRON_TZ=')) {
    timezone = parts[0].slice('CRON_TZ='.length);
    parts = parts.slice(1);
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new ValidationError('cron', `unknown time zone ${JSON.stringify(timezone)} in CRON_TZ; use an IANA name such as Europe/Paris`);
    }
  }
  // Exactly five: croner also takes seconds and years, which the service does not.
  if (parts.length !== 5 || !parts.every((field) => FIELD.test(field))) {
    throw new ValidationError(
      'cron',
      `expected five fields (minute hour day-of-month month day-of-week), optionally after CRON_TZ=<zone>, got ${JSON.stringify(cron)}`,
    );
  }
  for (const [index, field] of parts.entries()) checkFieldRange(field, CRON_FIELDS[index]!, cron);
  const fields = parts.join(' ');
  let next: Date | null | undefined;
  try {
    next = new Cron(fields, { timezone, paused: true }).nextRun();
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern:\s*/, '') : String(error);
    throw new ValidationError('cron', `${reason} in ${JSON.stringify(cron)} (minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-7)`);
  }
  if (!next) throw new ValidationError('cron', `${JSON.stringify(cron)} never fires: no date matches it (is the day in that month?)`);
  return { fields, timezone };
}

/** The five fields, their names and ranges (weekday 7 is Sunday again, as in cron). */
const CRON_FIELDS = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'day of week', min: 0, max: 7 },
] as const;

/**
 * Every number of one field within its range, named as the user wrote it: croner's own messages
 * count days and months from 0 and so name the wrong value ("day: 31" for a 32).
 */
function checkFieldRange(field: string, range: (typeof CRON_FIELDS)[number], cron: string): void {
  for (const part of field.split(',')) {
    const [values = '', step] = part.split('/');
    for (const text of values.split('-')) {
      if (!/^\d+$/.test(text)) continue;
      const value = Number(text);
      if (value < range.min || value > range.max) {
        throw new ValidationError(
          'cron',
          `${range.name} ${value} is out of range in ${JSON.stringify(cron)}: use ${range.min}-${range.max} (minute 0-59, hour 0-23, day 1-31, month 1-12, weekday 0-7)`,
        );
      }
    }
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) < 1 || Number(step) > range.max)) {
      throw new ValidationError(
        'cron',
        `step ${JSON.stringify(step)} of the ${range.name} in ${JSON.stringify(cron)} must be from 1 to ${range.max}`,
      );
    }
  }
}
