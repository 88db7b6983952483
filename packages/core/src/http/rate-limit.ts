import type { RateLimitKind } from '../errors/api-error';

/** What a 429's headers say about the limit that was hit. */
export interface RateLimitInfo {
  kind: RateLimitKind;
  limit?: number;
  remaining?: number;
  reset?: Date;
}

const FAMILIES = { daily: 'RateLimit', burst: 'Burst-RateLimit' } as const;

// Below this a reset cannot be a Unix timestamp in seconds (it would be before 2001-09-09), so it is
// read as "seconds from now", the form of the IETF RateLimit draft. At or above 1e12 it can only be
// milliseconds (in seconds it would be year 33658).
const SECONDS_EPOCH_FLOOR = 1e9;
const MILLISECONDS_EPOCH_FLOOR = 1e12;

/**
 * Reads `RateLimit-Limit/-Remaining/-Reset` (the daily limit) or `Burst-RateLimit-*` (the per-second
 * one). The real service sends both resets as Unix seconds; see `parseResetTime` for the other forms.
 * When both families are present, the exhausted one (remaining 0) wins, the burst one first, since
 * that is the limit the 429 is about.
 *
 * @example
 * parseRateLimit(new Headers({ 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1767225600' }))
 * // { kind: 'daily', limit: 1000, remaining: 0, reset: new Date('2026-01-01T00:00:00Z') }
 */
export function parseRateLimit(headers: Headers, now: number = Date.now()): RateLimitInfo {
  const burst = readFamily(headers, FAMILIES.burst, now);
  const daily = readFamily(headers, FAMILIES.daily, now);
  if (burst && burst.remaining === 0) return { kind: 'burst', ...burst };
  if (daily && daily.remaining === 0) return { kind: 'daily', ...daily };
  if (daily) return { kind: 'daily', ...daily };
  if (burst) return { kind: 'burst', ...burst };
  return { kind: 'unknown' };
}

function readFamily(headers: Headers, prefix: string, now: number): Omit<RateLimitInfo, 'kind'> | undefined {
  const limit = readCount(headers.get(`${prefix}-Limit`));
  const remaining = readCount(headers.get(`${prefix}-Remaining`));
  const resetValue = readCount(headers.get(`${prefix}-Reset`));
  if (limit === undefined && remaining === undefined && resetValue === undefined) return undefined;
  const info: Omit<RateLimitInfo, 'kind'> = {};
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (resetValue !== undefined) info.reset = parseResetTime(resetValue, now);
  return info;
}

/**
 * A reset header value as a date: Unix seconds (what the service sends), or, when smaller than 1e9,
 * seconds from `now`; values of 1e12 and more are taken as Unix milliseconds.
 *
 * @example parseResetTime(30, 1_000_000) // new Date(1_030_000)
 */
export function parseResetTime(value: number, now: number): Date {
  if (value >= MILLISECONDS_EPOCH_FLOOR) return new Date(value);
  if (value >= SECONDS_EPOCH_FLOOR) return new Date(value * 1000);
  return new Date(now + value * 1000);
}

function readCount(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  // Number('') is 0, so an empty header would otherwise read as "0 remaining".
  if (!/^\d+(?:\.\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}
