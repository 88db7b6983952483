import { ValidationError } from '../errors/validation-error';

/**
 * A duration as the service writes it: `<n>s`, `<n>m`, `<n>h`, `<n>d`, combinable largest first
 * (`1d10h30m`), or a number of seconds.
 */
export type Duration = number | `${number}${'s' | 'm' | 'h' | 'd'}` | (string & {});

export type DurationUnit = 's' | 'm' | 'h' | 'd';

const UNIT_SECONDS: Record<DurationUnit, number> = { d: 86_400, h: 3_600, m: 60, s: 1 };
const ORDER: readonly DurationUnit[] = ['d', 'h', 'm', 's'];
const PART = /(\d+)([dhms])/y;

/**
 * Parses a duration to whole seconds, refusing units the header does not take (the spec allows only
 * s, m and h in `Timeout`).
 *
 * @example parseDuration('delay', '1d10h30m') // 124200
 */
export function parseDuration(path: string, value: Duration, units: readonly DurationUnit[] = ORDER): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new ValidationError(path, `a duration in seconds must be a non-negative whole number, got ${value}`);
    }
    return value;
  }
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError(path, `expected a duration like "30s", "5m", "1h" or "1d10h30m", got ${JSON.stringify(value)}`);
  }
  let seconds = 0;
  let lastRank = -1;
  PART.lastIndex = 0;
  while (PART.lastIndex < value.length) {
    const start = PART.lastIndex;
    const match = PART.exec(value);
    if (!match) {
      throw new ValidationError(
        path,
        `malformed duration ${JSON.stringify(value)} at position ${start}: expected <number><unit> with unit ${units.join(', ')}`,
      );
    }
    const unit = match[2] as DurationUnit;
    const rank = ORDER.indexOf(unit);
    if (!units.includes(unit)) {
      throw new ValidationError(path, `unit "${unit}" is not allowed here; use ${units.join(', ')}`);
    }
    if (rank <= lastRank) {
      throw new ValidationError(path, `malformed duration ${JSON.stringify(value)}: give each unit once, largest first (e.g. "1d10h30m")`);
    }
    lastRank = rank;
    seconds += Number(match[1]) * UNIT_SECONDS[unit];
  }
  if (!Number.isSafeInteger(seconds)) throw new ValidationError(path, `duration ${JSON.stringify(value)} is too large`);
  return seconds;
}

/**
 * The header form of a duration. Strings pass through as written (after validation) so the
 * service sees exactly what the user wrote; numbers become seconds.
 */
export function formatDuration(path: string, value: Duration, units?: readonly DurationUnit[]): string {
  parseDuration(path, value, units);
  return typeof value === 'number' ? `${value}s` : value;
}
