import { z } from 'zod';
import { nilSafeArray } from './nil-safe-array';
import { safeParseServiceTimestamp } from './parse-service-timestamp';

/** The `period` values `GET /messaging/stats/{id}` accepts; the service defaults to `1h`. */
export const STATS_PERIODS = ['1h', '3h', '12h', '1d', '3d', '7d', '30d'] as const;
/** A statistics period. */
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** Metric identifiers the spec names in `daily_messaging_messages` / `daily_workflow_messages`; others exist. */
export const KNOWN_STATS_METRICS = ['delivered', 'canceled'] as const;

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
