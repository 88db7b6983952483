import { describe, expect, it } from 'vitest';
import { RetryDelaySyntaxError } from '../../src/errors';
import { ValidationError } from '../../src/errors';
import { MAX_SCHEDULED_RETRIES, defaultBackoffMs, parseRetryDelay, retrySchedule, retryTimeline } from '../../src/retry-delay';
import { catchError } from './catch-error';

describe('retrySchedule', () => {
  it('uses the expression with retried = 0 before the first retry', () => {
    expect(retrySchedule({ retries: 4, retryDelay: 'pow(2, retried) * 1000' })).toEqual([1000, 2000, 4000, 8000]);
  });

  it('accepts a parsed expression', () => {
    expect(retrySchedule({ retries: 3, retryDelay: parseRetryDelay('1000 * (1 + retried)') })).toEqual([1000, 2000, 3000]);
  });

  it('uses the default backoff without an expression', () => {
    const expected = [0, 1, 2, 3, 4, 5, 6, 7].map(defaultBackoffMs);
    expect(retrySchedule({ retries: 8 })).toEqual(expected);
    expect(retrySchedule({ retries: 8, retryDelay: undefined })).toEqual(expected);
    expect(expected[0]).toBe(1000);
    expect(expected[7]).toBe(86_400_000);
  });

  it('is empty with no retries', () => {
    expect(retrySchedule({ retries: 0 })).toEqual([]);
    expect(retrySchedule({ retries: 0, retryDelay: '1000' })).toEqual([]);
  });

  it(`previews up to ${MAX_SCHEDULED_RETRIES} retries`, () => {
    expect(retrySchedule({ retries: MAX_SCHEDULED_RETRIES, retryDelay: '1000' })).toHaveLength(MAX_SCHEDULED_RETRIES);
  });

  it.each([-1, 1.5, MAX_SCHEDULED_RETRIES + 1, Number.NaN, '3', undefined])('refuses retries = %j', (retries) => {
    const error = catchError(() => retrySchedule({ retries: retries as number }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('retries');
    expect((error as Error).message).toContain(`an integer from 0 to ${MAX_SCHEDULED_RETRIES}`);
  });

  it.each([null, undefined, 3])('refuses the options %j', (options) => {
    expect(catchError(() => retrySchedule(options as never))).toBeInstanceOf(ValidationError);
  });

  it('refuses an invalid expression even with no retries, so the mistake is not hidden', () => {
    expect(catchError(() => retrySchedule({ retries: 0, retryDelay: 'retry' }))).toBeInstanceOf(RetryDelaySyntaxError);
  });

  it('refuses an empty expression rather than falling back to the default', () => {
    expect(catchError(() => retrySchedule({ retries: 1, retryDelay: '' }))).toBeInstanceOf(RetryDelaySyntaxError);
  });

  it('reports the retry whose delay cannot be computed', () => {
    const error = catchError(() => retrySchedule({ retries: 5, retryDelay: '1000 / (3 - retried)' }));
    expect(error).toBeInstanceOf(RetryDelaySyntaxError);
    expect((error as Error).message).toContain('retried=3');
  });
});

describe('retryTimeline', () => {
  it('adds the delays up', () => {
    expect(retryTimeline({ retries: 3, retryDelay: '1000 * (1 + retried)' })).toEqual([1000, 3000, 6000]);
  });

  it('follows the default backoff', () => {
    const timeline = retryTimeline({ retries: 3 });
    expect(timeline[0]).toBe(1000);
    expect(timeline[2]).toBeCloseTo(1000 + defaultBackoffMs(1) + defaultBackoffMs(2), 6);
  });

  it('validates like retrySchedule', () => {
    expect(catchError(() => retryTimeline({ retries: -1 }))).toBeInstanceOf(ValidationError);
  });
});
