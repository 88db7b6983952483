import { assertRetried } from './validate-retried';

/** The default backoff never waits longer than one day (the spec's cap of 86400 seconds). */
const CAP_SECONDS = 86_400;

/**
 * The delay in milliseconds the service uses before retry `retried + 1` when no retry-delay
 * expression is set: the spec's `min(86400, e^(2n))` seconds with n = retries so far. (Some of the
 * service's own pages show `e^(2.5n)`; the spec is the contract we follow.)
 *
 * @example
 * defaultBackoffMs(0); // 1000
 * defaultBackoffMs(1); // ~7389
 * defaultBackoffMs(10); // 86_400_000, the one-day cap
 */
export function defaultBackoffMs(retried: number): number {
  assertRetried(retried);
  return Math.min(CAP_SECONDS, Math.exp(2 * retried)) * 1000;
}
