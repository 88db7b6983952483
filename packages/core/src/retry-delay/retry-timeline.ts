import { retrySchedule } from './retry-schedule';
import type { RetryScheduleOptions } from './retry-schedule';

/**
 * When each retry would start, in milliseconds after the first attempt failed: the running sum of
 * `retrySchedule`. Like it, this assumes attempts take no time and no `Retry-After` is sent, which
 * is what makes "the last retry is about a day later" easy to read off.
 *
 * @example
 * retryTimeline({ retries: 3, retryDelay: '1000 * (1 + retried)' }); // [1000, 3000, 6000]
 */
export function retryTimeline(options: RetryScheduleOptions): number[] {
  let elapsed = 0;
  return retrySchedule(options).map((delay) => (elapsed += delay));
}
