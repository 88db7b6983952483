import { ValidationError } from '../errors/validation-error';
import { defaultBackoffMs } from './default-backoff';
import { describeValue } from './describe-value';
import { toRetryDelayExpression } from './evaluate-retry-delay';
import type { RetryDelayExpression } from './parse-retry-delay';
import { MAX_SCHEDULED_RETRIES } from './limits';

/** What decides the delays: the retry count and, optionally, the `Retry-Delay` expression. */
export interface RetryScheduleOptions {
  /** Number of retries, as in the `Retries` header: 0 to 1000 here (plans allow far fewer). */
  readonly retries: number;
  /** The `Retry-Delay` expression; when absent the spec's default backoff applies. */
  readonly retryDelay?: string | RetryDelayExpression | undefined;
}

/**
 * The delays in milliseconds a message would wait before each retry: element `i` is the delay
 * before retry `i + 1`, computed with `retried = i`. Ignores `Retry-After` from the destination and
 * the time each attempt takes, so it is a preview, not a promise.
 *
 * @throws ValidationError for a bad `retries`; RetryDelaySyntaxError for a bad expression or one
 * that gives no delay for some retry.
 * @example
 * retrySchedule({ retries: 3, retryDelay: 'pow(2, retried) * 1000' }); // [1000, 2000, 4000]
 * retrySchedule({ retries: 2 }); // [1000, ~7389] (default backoff)
 */
export function retrySchedule(options: RetryScheduleOptions): number[] {
  const { retries, retryDelay } = readOptions(options);
  const delayFor = retryDelay === undefined ? defaultBackoffMs : compiledDelay(retryDelay);
  return Array.from({ length: retries }, (_, retried) => delayFor(retried));
}

function compiledDelay(retryDelay: string | RetryDelayExpression): (retried: number) => number {
  const expression = toRetryDelayExpression(retryDelay);
  return (retried) => expression.evaluate(retried);
}

function readOptions(options: RetryScheduleOptions): RetryScheduleOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ValidationError('', `retrySchedule expects an options object such as { retries: 3 } but got ${describeValue(options)}`);
  }
  const { retries } = options;
  if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0 || retries > MAX_SCHEDULED_RETRIES) {
    throw new ValidationError('retries', `must be an integer from 0 to ${MAX_SCHEDULED_RETRIES} but got ${describeValue(retries)}`);
  }
  return options;
}
