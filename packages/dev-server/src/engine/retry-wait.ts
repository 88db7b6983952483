import type { RetryDelayExpression } from '@mailroom/core';
import { defaultBackoffMs, parseRetryAfter, parseRetryDelay } from '@mailroom/core/protocol';
import type { HeaderValues } from '../state/records';

/** The service never waits longer than a day on a destination's `Retry-After`. */
const MAX_RETRY_AFTER_MS = 86_400_000;

/** How long to wait before the next attempt, before the time scale, and what decided it. */
export interface RetryWait {
  delayMs: number;
  source: 'retry-delay' | 'default-backoff' | 'retry-after';
}

const parsed = new Map<string, RetryDelayExpression>();

/**
 * The wait before retry `retried + 1` (`retried` = retries made so far, 0 for the first): the
 * destination's `Retry-After` when it sent a valid one (capped at a day), else the message's
 * `<P>-Retry-Delay` expression (milliseconds), else the default backoff `min(86400, e^(2n))` s.
 */
export function retryWait(
  retryDelay: string | undefined,
  retried: number,
  responseHeaders: HeaderValues | undefined,
  now: number,
): RetryWait {
  const retryAfter = retryAfterMs(responseHeaders, now);
  if (retryAfter !== undefined) return { delayMs: Math.min(retryAfter, MAX_RETRY_AFTER_MS), source: 'retry-after' };
  if (retryDelay !== undefined) {
    const value = evaluate(retryDelay, retried);
    if (value !== undefined) return { delayMs: value, source: 'retry-delay' };
  }
  return { delayMs: defaultBackoffMs(retried), source: 'default-backoff' };
}

function evaluate(source: string, retried: number): number | undefined {
  try {
    let expression = parsed.get(source);
    if (!expression) {
      expression = parseRetryDelay(source);
      parsed.set(source, expression);
    }
    const value = expression.evaluate(retried);
    // Validated at enqueue, but `1000 / (retried - 2)` can still divide by zero at retry 2: fall
    // back to the default rather than stall the message.
    return Number.isFinite(value) ? Math.max(0, value) : undefined;
  } catch {
    return undefined;
  }
}

/** The destination's `Retry-After`, read by the same rule the client applies to the service. */
function retryAfterMs(headers: HeaderValues | undefined, now: number): number | undefined {
  return parseRetryAfter(headers?.['Retry-After']?.[0], now);
}
