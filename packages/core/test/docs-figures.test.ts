import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF_EXPRESSION, defaultBackoffMs, evaluateRetryDelay } from '../src/retry-delay/evaluate';

// Figures the docs take from the code are checked against it: a change of the backoff, or a figure
// written one retry off, fails here rather than misleading a reader.

const idempotencyDoc = readFileSync(new URL('../../../docs/idempotency.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

/** The time `retries` retries take at the default backoff, in seconds. */
const span = (retries: number) =>
  Array.from({ length: retries }, (_, retried) => defaultBackoffMs(retried)).reduce((a, b) => a + b, 0) / 1000;

describe('docs/idempotency.md', () => {
  it('gives the retry spans of the default backoff as the code computes them', () => {
    const figure = (pattern: RegExp) => {
      const found = pattern.exec(idempotencyDoc);
      if (!found) throw new Error(`docs/idempotency.md no longer says ${pattern}`);
      return Number(found[1]);
    };
    expect(figure(/3 retries \(the free plan's default\) span about (\d+) seconds/)).toBe(Math.round(span(3)));
    expect(figure(/5 retries about (\d+) minutes/)).toBe(Math.round(span(5) / 60));
    expect(figure(/20 retries \(the paid plan's most\) about ([\d.]+) days/)).toBe(Math.round((span(20) / 86_400) * 10) / 10);
    // The first retry that waits the one-day cap is the seventh.
    expect(Array.from({ length: 20 }, (_, retried) => defaultBackoffMs(retried)).indexOf(86_400_000) + 1).toBe(7);
    expect(idempotencyDoc).toContain('each retry from the seventh waits a day');
  });
});

describe('the default backoff as an expression', () => {
  it('evaluates to the default backoff at every retry (it is what a workflow step lists as its retryDelay)', () => {
    for (let retried = 0; retried <= 25; retried++) {
      expect([retried, evaluateRetryDelay(DEFAULT_BACKOFF_EXPRESSION, retried)]).toEqual([
        retried,
        expect.closeTo(defaultBackoffMs(retried), 6),
      ]);
    }
  });
});
