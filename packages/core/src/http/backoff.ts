/** The resolved retry settings. */
export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * "Full jitter" exponential backoff: a uniform wait in [0, min(max, base * 2^retry)). Jitter spreads
 * the retries of many clients hit by the same outage instead of having them return in lock-step.
 * `retry` is 0 for the first retry.
 *
 * @example backoffDelay(2, { retries: 3, baseDelayMs: 500, maxDelayMs: 10_000 }, () => 0.5) // 1000
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  // Clamp so a custom random outside [0, 1) cannot produce a negative or oversized wait.
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.floor(ceiling * fraction);
}
