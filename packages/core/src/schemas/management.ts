import { SEARCH_INDEX_REGIONS, SEARCH_INDEX_TYPES } from '../management-vocabulary';
import { safeParseServiceTimestamp } from '../service-timestamp';
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
