import { ValidationError } from '../errors';
import { knownString, nilSafeArray } from './primitives';
import { z } from 'zod';

/** Account states the spec names; the service "may return other values". */
export const MESSAGING_USER_STATES = ['active', 'passive'] as const;
/** Billing plan categories the spec names. */
const MESSAGING_USER_TYPES = ['free', 'paid'] as const;
/** Deployment regions the spec names for messaging users. */
const MESSAGING_USER_REGIONS = ['eu-central-1', 'us-east-1'] as const;
/** Fixed-tier labels the spec names; enterprise accounts use `enterprise:<id>` instead. */
const MESSAGING_RESERVED_TYPES = ['messaging_fixed_1m', 'messaging_fixed_10m', 'messaging_fixed_100m', 'messaging_fixed'] as const;

/** `reserved_type`: a fixed-tier label, `enterprise:<id>`, an empty string for other plans, or something newer. */
export type MessagingReservedType = (typeof MESSAGING_RESERVED_TYPES)[number] | `enterprise:${string}` | '' | (string & {});

// A live service's answer: its own documented example leaves out fields the spec lists
// (`read_only_token`, `max_bandwidth_per_second`, `deletion_time`) and adds others
// (`max_completion_tokens_per_day`, ...). So only what identifies the account is required; every
// limit and setting is optional in the type (check before use), enumerated values are lenient
// (see known-string.ts), and unknown keys pass through.
/** One messaging user account with its plan details and limits (management `GET /messaging/users`). */
export const messagingUserSchema = z.looseObject({
  /** An e-mail or a team id. */
  customer_id: z.string(),
  id: z.string(),
  token: z.string(),
  read_only_token: z.string().optional(),
  active: z.boolean().optional(),
  state: knownString(MESSAGING_USER_STATES).optional(),
  /** Present only while an asynchronous change (e.g. `suspended`) is being applied. */
  modifying_state: knownString(['suspended']).optional(),
  /** Unix seconds. */
  last_plan_upgrade_time: z.number().optional(),
  /** Bytes. */
  max_message_size: z.number().optional(),
  max_requests_per_day: z.number().optional(),
  max_requests_per_day_hard: z.number().optional(),
  max_endpoints_per_topic: z.number().optional(),
  max_requests_per_second: z.number().optional(),
  max_dlq_size: z.number().optional(),
  max_retries: z.number().optional(),
  max_topics: z.number().optional(),
  max_schedules: z.number().optional(),
  max_events_size: z.number().optional(),
  /** Milliseconds; the spelling `milis` is the service's. */
  max_dlq_retention_time_milis: z.number().optional(),
  /** Seconds. */
  max_delay: z.number().optional(),
  max_parallelism: z.number().optional(),
  max_global_parallelism: z.number().optional(),
  max_queues: z.number().optional(),
  /** Bytes per second. */
  max_bandwidth_per_second: z.number().optional(),
  prod_pack_enabled: z.boolean().optional(),
  /** The STRING `'true'` or `'false'`, not a boolean: the service's own choice, kept as sent. */
  prometheus_enabled: knownString(['true', 'false']).optional(),
  /** Seconds. */
  timeout: z.number().optional(),
  type: knownString(MESSAGING_USER_TYPES).optional(),
  region: knownString(MESSAGING_USER_REGIONS).optional(),
  /** Empty or absent for plans that are not fixed-tier or enterprise. */
  reserved_type: (z.string() as unknown as z.ZodType<MessagingReservedType, string>).optional(),
  /** May be 0. */
  reserved_price: z.number().optional(),
  created_by: z.string().optional(),
  /** Unix seconds. */
  creation_time: z.number().optional(),
  /** Unix seconds; 0 when not deleted. */
  deletion_time: z.number().optional(),
  /** Monthly budget in dollars; 0 means no limit. */
  budget: z.number().optional(),
  /** Present for enterprise accounts only. */
  enterprise: z.looseObject({ enabled: z.boolean() }).optional(),
});

/** One messaging user account (management interface). Unknown fields are kept. */
export type MessagingUser = z.infer<typeof messagingUserSchema>;

/** The answer of `GET /messaging/users` (`null` from an empty Go slice reads as `[]`). */
export const messagingUsersSchema = nilSafeArray(messagingUserSchema);

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

/** The `period` values `GET /messaging/stats/{id}` accepts; the service defaults to `1h`. */
export const STATS_PERIODS = ['1h', '3h', '12h', '1d', '3d', '7d', '30d'] as const;
/** A statistics period. */
export type StatsPeriod = (typeof STATS_PERIODS)[number];

// The timestamp is parsed once, in the object's transform, and an invalid one is reported on `x`
// (path `daily_used.3.x`) instead of turning into an Invalid Date that would surface much later.
// `x` itself is kept verbatim: it carries nanoseconds a Date cannot.
function withDate<Point extends { x: string }>(point: Point, ctx: z.core.$RefinementCtx<Point>): Point & { date: Date } {
  const result = safeParseServiceTimestamp(point.x);
  if (!result.ok) {
    ctx.issues.push({ code: 'custom', path: ['x'], input: point.x, message: result.reason });
    return z.NEVER;
  }
  return { ...point, date: result.parts.date };
}

/**
 * A data point: `x` is the service's timestamp string (`2025-10-01 11:33:05.585757103 +0000 UTC`),
 * kept as sent, `y` the value, and `date` the parsed `x` (millisecond precision).
 */
export const pointSchema = z.looseObject({ x: z.string(), y: z.number() }).transform(withDate);
/** A statistics data point with its timestamp parsed to `date`. */
export type Point = z.infer<typeof pointSchema>;

/** A daily request point: a Point with the workflow breakdown. */
export const requestPointSchema = z
  .looseObject({ x: z.string(), y: z.number(), workflow_message: z.number(), workflow_run: z.number() })
  .transform(withDate);
/** A daily request point with its timestamp parsed to `date`. */
export type RequestPoint = z.infer<typeof requestPointSchema>;

/** One metric over time, e.g. `{ id: 'delivered', data_points: [...] }`. */
export const seriesSchema = z.looseObject({
  /** A metric identifier such as `delivered` or `canceled`; the list is open. */
  id: z.string(),
  data_points: nilSafeArray(pointSchema),
});
/** One metric over time. */
export type Series = z.infer<typeof seriesSchema>;

// The arrays come from Go slices: an empty one may be `null` or missing, and is read as `[]` (see
// nil-safe-array.ts). The two scalars are required: without them the answer is not statistics.
/** Usage statistics of one messaging user (management `GET /messaging/stats/{id}`). */
export const messagingStatsSchema = z.looseObject({
  /** Day names of the period, typically the whole current month including future days. */
  days: nilSafeArray(z.string()),
  daily_requests: nilSafeArray(requestPointSchema),
  daily_billings: nilSafeArray(pointSchema),
  daily_bandwidths: nilSafeArray(pointSchema),
  /** Requests over the requested period: 60 points (240 for `30d`). */
  daily_used: nilSafeArray(pointSchema),
  daily_used_workflow: nilSafeArray(pointSchema),
  daily_messaging_messages: nilSafeArray(seriesSchema),
  daily_workflow_messages: nilSafeArray(seriesSchema),
  dlq_message_count: z.number(),
  daily_bandwidth_used: nilSafeArray(pointSchema),
  total_monthly_billing: z.number(),
});
/** Usage statistics of one messaging user. Every point carries its parsed `date`. */
export type MessagingStats = z.infer<typeof messagingStatsSchema>;

/** Regions a search index can be created in. */
export const SEARCH_INDEX_REGIONS = ['eu-west-1', 'us-central1'] as const;
/** Payment plans of a search index. */
export const SEARCH_INDEX_TYPES = ['free', 'payg', 'fixed'] as const;
/** A region a search index can be created in. */
export type SearchIndexRegion = (typeof SEARCH_INDEX_REGIONS)[number];
/** A search index payment plan. */
export type SearchIndexType = (typeof SEARCH_INDEX_TYPES)[number];

/** The limit value that means "no limit" on the daily and monthly search index limits. */
export const SEARCH_INDEX_UNLIMITED = -1;

// Lenient on `type` and `region` (a new region must not break reading an index) but every
// documented field is required. `-1` is kept as a number rather than mapped to Infinity or null:
// it survives JSON round trips and matches what the service and its dashboard show.
/** A search index (management `POST /search`, `GET /search/{id}`). Unknown fields are kept. */
export const searchIndexSchema = z.looseObject({
  customer_id: z.string(),
  id: z.string(),
  name: z.string(),
  /** A host label such as `glowing-baboon-15797-us1`, not a URL. */
  endpoint: z.string(),
  type: knownString(SEARCH_INDEX_TYPES),
  region: knownString(SEARCH_INDEX_REGIONS),
  /** Empty string when there is no third-party integration. */
  integration_email: z.string(),
  token: z.string(),
  read_only_token: z.string(),
  max_vector_count: z.number(),
  /** `-1` means unlimited. */
  max_monthly_reranks: z.number(),
  /** `-1` means unlimited. */
  max_daily_updates: z.number(),
  /** `-1` means unlimited. */
  max_daily_queries: z.number(),
  /** Bytes; `-1` means unlimited. */
  max_monthly_bandwidth: z.number(),
  max_writes_per_second: z.number(),
  max_query_per_second: z.number(),
  max_reads_per_request: z.number(),
  max_writes_per_request: z.number(),
  /** Unix seconds. */
  creation_time: z.number(),
  input_enrichment_enabled: z.boolean(),
  /** Same point shape and timestamp layout as statistics; each point gets its parsed `date`. */
  throughput_vector: nilSafeArray(pointSchema),
});
/** A search index. */
export type SearchIndex = z.infer<typeof searchIndexSchema>;

// Strict, unlike the response schemas: this checks what the user is about to send, so a typo in a
// region or an extra key is caught before the request rather than answered with a 400.
/** The body of `POST /search`. */
export const createSearchIndexInputSchema = z.strictObject({
  name: z.string().regex(/\S/, 'must not be empty'),
  region: z.enum(SEARCH_INDEX_REGIONS),
  type: z.enum(SEARCH_INDEX_TYPES),
});
/** What `searchIndexes.create` takes. */
export type CreateSearchIndexInput = z.infer<typeof createSearchIndexInputSchema>;
