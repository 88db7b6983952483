import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { defaultBackoffMs } from '../../src/retry-delay';
import { catchError } from './catch-error';

describe('defaultBackoffMs', () => {
  it('waits one second before the first retry', () => {
    expect(defaultBackoffMs(0)).toBe(1000);
  });

  it('grows as e^(2n) seconds', () => {
    expect(defaultBackoffMs(1)).toBeCloseTo(7389.056, 2);
    expect(defaultBackoffMs(2)).toBeCloseTo(54_598.15, 1);
    expect(defaultBackoffMs(5)).toBeCloseTo(Math.exp(10) * 1000, 3);
  });

  it('is capped at one day', () => {
    // e^(2*5) s is about 6 hours, e^(2*6) s about 45 hours: the cap starts at n = 6.
    expect(defaultBackoffMs(5)).toBeLessThan(86_400_000);
    expect(defaultBackoffMs(6)).toBe(86_400_000);
    expect(defaultBackoffMs(1000)).toBe(86_400_000);
    expect(defaultBackoffMs(Number.MAX_SAFE_INTEGER)).toBe(86_400_000);
  });

  it.each([-1, 0.5, Number.NaN, '2'])('refuses %j', (retried) => {
    const error = catchError(() => defaultBackoffMs(retried as number));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('retried');
  });
});
