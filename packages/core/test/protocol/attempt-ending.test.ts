import { describe, expect, it } from 'vitest';
import { attemptEnding } from '../../src/internal-protocol';

// The one rule for "no attempt follows this one", which the dev server retries by and receivers
// report as a callback's `isFinalAttempt`.

const nonRetryable = { 'Service-NonRetryable-Error': [' TRUE '] };

describe('attemptEnding', () => {
  it.each([
    ['a 2xx, even with retries left', { status: 204, headers: {}, retried: 0, maxRetries: 3 }, 'delivered'],
    ['a 2xx on the last retry', { status: 200, headers: {}, retried: 3, maxRetries: 3 }, 'delivered'],
    ['489 marked non-retryable', { status: 489, headers: nonRetryable, retried: 0, maxRetries: 3 }, 'non-retryable'],
    ['489 without the mark', { status: 489, headers: {}, retried: 0, maxRetries: 3 }, undefined],
    ['the mark on another status', { status: 500, headers: nonRetryable, retried: 0, maxRetries: 3 }, undefined],
    ['a failure on the last retry', { status: 500, headers: {}, retried: 3, maxRetries: 3 }, 'retries-exhausted'],
    ['no answer on the last retry', { status: undefined, headers: undefined, retried: 3, maxRetries: 3 }, 'retries-exhausted'],
    ['no answer with retries left', { status: undefined, headers: undefined, retried: 1, maxRetries: 3 }, undefined],
    ['no retry count known', { status: 500, headers: {}, retried: undefined, maxRetries: 3 }, undefined],
  ] as const)('%s', (_name, attempt, ending) => {
    expect(attemptEnding(attempt, 'Service')).toBe(ending);
  });
});
