import type { StatsPeriod } from '@mailroom/core';
import { formatServiceTimestamp, STATS_PERIODS } from '@mailroom/core/internal-protocol';
import type { DevState } from '../state/dev-state';
import type { StatsBucket } from '../state/records';

const MINUTE = 60_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Points and step of each period: 60 points, except `30d` with 240 at 3-hour steps (spec endpoint 2). */
const PERIODS: Readonly<Record<StatsPeriod, { points: number; stepMinutes: number }>> = {
  '1h': { points: 60, stepMinutes: 1 },
  '3h': { points: 60, stepMinutes: 3 },
  '12h': { points: 60, stepMinutes: 12 },
  '1d': { points: 60, stepMinutes: 24 },
  '3d': { points: 60, stepMinutes: 72 },
  '7d': { points: 60, stepMinutes: 168 },
  '30d': { points: 240, stepMinutes: 180 },
};

/** Whether `value` is a period the endpoint accepts. */
export function isStatsPeriod(value: string): value is StatsPeriod {
  return (STATS_PERIODS as readonly string[]).includes(value);
}

type Counter = keyof StatsBucket;

/**
 * Statistics computed from what the server did, counted per minute as it happened: requests
 * (accepted messages, callbacks included: the service charges them as messages), delivered and
 * failed messages (`daily_messaging_messages` series `delivered`, `failed`; the same for workflow
 * messages), bandwidth (bytes sent to and received from destinations), and the DLQ size. The period
 * series end with the point holding `now`; the daily arrays cover the whole current month (UTC).
 */
export function messagingStats(state: DevState, period: StatsPeriod, now: number, dlqCount: number): Record<string, unknown> {
  const { points, stepMinutes } = PERIODS[period];
  const step = stepMinutes * MINUTE;
  const end = Math.floor(now / MINUTE) * MINUTE + MINUTE;
  const start = end - points * step;
  const series = (counter: Counter) => sumInto(state, start, step, points, counter).map((y, index) => point(start + index * step, y));
  const month = monthDays(now);
  const daily = (counter: Counter) => month.map((day) => point(day, sumRange(state, day, day + 24 * 60 * MINUTE, counter)));
  const dailyRequests = daily('requests');
  const dailyWorkflow = daily('workflowRequests');
  const dailyRuns = daily('workflowRuns');
  return {
    // Weekday names, as the service's own example writes them ("Wednesday", "Thursday", ...).
    days: month.map((day) => WEEKDAYS[new Date(day).getUTCDay()]!),
    daily_requests: dailyRequests.map((entry, index) => ({
      ...entry,
      workflow_message: dailyWorkflow[index]?.y ?? 0,
      workflow_run: dailyRuns[index]?.y ?? 0,
    })),
    daily_billings: month.map((day) => point(day, 0)),
    daily_bandwidths: daily('bandwidth'),
    daily_used: series('requests'),
    daily_used_workflow: series('workflowRequests'),
    daily_messaging_messages: [
      { id: 'delivered', data_points: series('delivered') },
      { id: 'failed', data_points: series('failed') },
    ],
    daily_workflow_messages: [
      { id: 'delivered', data_points: series('workflowDelivered') },
      { id: 'failed', data_points: series('workflowFailed') },
      { id: 'canceled', data_points: series('workflowCanceled') },
    ],
    dlq_message_count: dlqCount,
    daily_bandwidth_used: series('bandwidth'),
    total_monthly_billing: 0,
  };
}

function point(at: number, y: number): { x: string; y: number } {
  return { x: formatServiceTimestamp(new Date(at)), y };
}

/** One pass over the minute buckets, summing each into its point. */
function sumInto(state: DevState, start: number, step: number, points: number, counter: Counter): number[] {
  const sums = new Array<number>(points).fill(0);
  for (const [minute, bucket] of state.stats) {
    const index = Math.floor((minute * MINUTE - start) / step);
    if (index >= 0 && index < points) sums[index] = (sums[index] ?? 0) + (bucket[counter] ?? 0);
  }
  return sums;
}

function sumRange(state: DevState, from: number, to: number, counter: Counter): number {
  let sum = 0;
  for (const [minute, bucket] of state.stats) {
    const at = minute * MINUTE;
    if (at >= from && at < to) sum += bucket[counter] ?? 0;
  }
  return sum;
}

/** Midnight (UTC) of every day of the month holding `now`, future days included. */
function monthDays(now: number): number[] {
  const date = new Date(now);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const count = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Array.from({ length: count }, (_, index) => Date.UTC(year, month, index + 1));
}
