import { headerNames } from '@mailroom/core/protocol';
import type { AttemptOutcome } from '../state/records';
import type { RequestResult } from './send-request';

/** How an attempt ended and, for a final failure, why. */
export interface ClassifiedAttempt {
  outcome: AttemptOutcome;
  reason?: 'retries-exhausted' | 'non-retryable';
}

/**
 * 2xx delivers. Anything else (another status, a network error, a timeout) is a failure, retried
 * while `retried < maxRetries` (so 1 + retries attempts in all), except a 489 carrying
 * `<P>-NonRetryable-Error: true`, which stops at once.
 */
export function classifyAttempt(result: RequestResult, retried: number, maxRetries: number, headerPrefix: string): ClassifiedAttempt {
  if (result.ok && result.status >= 200 && result.status < 300) return { outcome: 'delivered' };
  if (result.ok && result.status === 489 && isNonRetryable(result.headers, headerPrefix))
    return { outcome: 'failed', reason: 'non-retryable' };
  if (retried >= maxRetries) return { outcome: 'failed', reason: 'retries-exhausted' };
  return { outcome: 'retry' };
}

function isNonRetryable(headers: Record<string, string[]>, headerPrefix: string): boolean {
  const wanted = headerNames(headerPrefix).nonRetryableError.toLowerCase();
  for (const [name, values] of Object.entries(headers)) {
    if (name.toLowerCase() === wanted) return values.some((value) => value.trim().toLowerCase() === 'true');
  }
  return false;
}
