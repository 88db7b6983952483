import { describe, expect, it } from 'vitest';
import { ApiError, NetworkError, RateLimitError, ValidationError } from '../../src/errors';
import { backoffDelay, isRetryableError } from '../../src/http';
import { retryDelay } from '../../src/http/failures';

const policy = { retries: 5, baseDelayMs: 500, maxDelayMs: 10_000 };
const init = (status: number) => ({ status, serviceMessage: 'x', method: 'GET', url: 'http://h' });

describe('backoffDelay', () => {
  it('doubles the ceiling per retry up to maxDelayMs, scaled by the jitter', () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 5, 10].map((n) => backoffDelay(n, policy, top))).toEqual([499, 999, 1999, 3999, 7999, 9999, 9999]);
    expect(backoffDelay(3, policy, () => 0.5)).toBe(2000);
    expect(backoffDelay(3, policy, () => 0)).toBe(0);
  });

  it('clamps a random outside [0, 1)', () => {
    expect(backoffDelay(0, policy, () => 7)).toBe(500);
    expect(backoffDelay(0, policy, () => -1)).toBe(0);
  });
});

describe('isRetryableError', () => {
  it('retries network errors, 429 and 500/502/503/504 only', () => {
    expect(isRetryableError(new NetworkError({ method: 'GET', url: 'http://h', timedOut: false }))).toBe(true);
    expect(isRetryableError(new RateLimitError(init(429), { kind: 'unknown' }))).toBe(true);
    for (const status of [500, 502, 503, 504]) expect(isRetryableError(new ApiError(init(status)))).toBe(true);
    for (const status of [400, 401, 403, 404, 409, 412, 489, 501, 505]) expect(isRetryableError(new ApiError(init(status)))).toBe(false);
    expect(isRetryableError(new ValidationError('x', 'y'))).toBe(false);
    expect(isRetryableError(new Error('boom'))).toBe(false);
  });
});

describe('retryDelay', () => {
  const now = 1_000_000;
  const network = new NetworkError({ method: 'GET', url: 'http://h', timedOut: false });

  it('uses backoff without a server hint', () => {
    expect(retryDelay(network, undefined, 1, policy, () => 0.5, now)).toBe(500);
  });

  it('honours Retry-After, then a 429 reset, over backoff', () => {
    const limited = new RateLimitError(init(429), { kind: 'burst', reset: new Date(now + 1500) });
    expect(retryDelay(limited, 2000, 0, policy, () => 0.5, now)).toBe(2000);
    expect(retryDelay(limited, undefined, 0, policy, () => 0.5, now)).toBe(1500);
    expect(retryDelay(new ApiError(init(503)), 3000, 0, policy, () => 0.5, now)).toBe(3000);
  });

  it('falls back to backoff when the hint is already past', () => {
    const past = new RateLimitError(init(429), { kind: 'burst', reset: new Date(now - 1) });
    expect(retryDelay(past, undefined, 0, policy, () => 0.5, now)).toBe(250);
    expect(retryDelay(past, 0, 0, policy, () => 0.5, now)).toBe(250);
  });

  it('gives up (undefined) when the server asks for more than maxDelayMs', () => {
    const daily = new RateLimitError(init(429), { kind: 'daily', reset: new Date(now + 3_600_000) });
    expect(retryDelay(daily, undefined, 0, policy, () => 0.5, now)).toBeUndefined();
    expect(retryDelay(network, 10_001, 0, policy, () => 0.5, now)).toBeUndefined();
    expect(retryDelay(network, 10_000, 0, policy, () => 0.5, now)).toBe(10_000);
  });
});
