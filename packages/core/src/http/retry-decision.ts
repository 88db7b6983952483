import { ApiError, RateLimitError } from '../errors/api-error';
import { NetworkError } from '../errors/network-error';
import { backoffDelay, type RetryPolicy } from './backoff';

/** Statuses that say "try again later" rather than "this request is wrong". */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * Whether a failure is worth another attempt: a network error, a 429 or a 500/502/503/504. Other 4xx
 * would fail the same way again.
 *
 * @example isRetryableError(new NetworkError({ method: 'GET', url: 'http://h', timedOut: true })) // true
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && RETRYABLE_STATUSES.has(error.status);
}

/**
 * How long to wait before retry number `retry` (0 for the first). A server hint wins over backoff:
 * `Retry-After` (in ms, already read from the answer), else a 429's rate-limit reset. Returns
 * `undefined` when the server asks for more than `maxDelayMs`: retrying sooner would only be refused
 * again, so the error is better thrown now (its `reset` tells the caller when to come back).
 *
 * @example retryDelay(new NetworkError({ method: 'GET', url: 'http://h', timedOut: false }), undefined, 0, policy, () => 0.5, Date.now())
 */
export function retryDelay(
  error: unknown,
  retryAfter: number | undefined,
  retry: number,
  policy: RetryPolicy,
  random: () => number,
  now: number,
): number | undefined {
  const hint = serverHint(error, retryAfter, now);
  if (hint === undefined || hint <= 0) return backoffDelay(retry, policy, random);
  return hint > policy.maxDelayMs ? undefined : hint;
}

function serverHint(error: unknown, retryAfter: number | undefined, now: number): number | undefined {
  if (retryAfter !== undefined) return retryAfter;
  if (error instanceof RateLimitError && error.reset) return error.reset.getTime() - now;
  return undefined;
}
