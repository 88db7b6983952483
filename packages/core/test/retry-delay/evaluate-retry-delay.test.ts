import { describe, expect, it } from 'vitest';
import { RetryDelaySyntaxError } from '../../src/errors';
import { ValidationError } from '../../src/errors';
import { evaluateRetryDelay, parseRetryDelay } from '../../src/retry-delay';
import { catchError } from './catch-error';

function evaluationFault(expression: string, retried = 0): RetryDelaySyntaxError {
  const error = catchError(() => evaluateRetryDelay(expression, retried));
  expect(error).toBeInstanceOf(RetryDelaySyntaxError);
  return error as RetryDelaySyntaxError;
}

describe('evaluateRetryDelay', () => {
  it('evaluates a string', () => {
    expect(evaluateRetryDelay('1000 * (1 + retried)', 2)).toBe(3000);
  });

  it('evaluates a parsed expression', () => {
    expect(evaluateRetryDelay(parseRetryDelay('pow(2, retried) * 1000'), 4)).toBe(16000);
  });

  it('reports a syntax fault of a string expression', () => {
    expect(evaluationFault('retry').position).toBe(0);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null, undefined])(
    'refuses retried = %j with a ValidationError on the retried path',
    (retried) => {
      const error = catchError(() => evaluateRetryDelay('1000', retried as number));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).not.toBeInstanceOf(RetryDelaySyntaxError);
      expect((error as ValidationError).path).toBe('retried');
      expect((error as Error).message).toContain('must be a non-negative integer');
    },
  );

  it('validates retried on a compiled expression too', () => {
    expect(catchError(() => parseRetryDelay('1000').evaluate(-1))).toBeInstanceOf(ValidationError);
  });

  it.each([null, 42, {}, { evaluate: 'no' }])('refuses %j as an expression', (expression) => {
    const error = catchError(() => evaluateRetryDelay(expression as unknown as string, 0));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('must be an expression string or the result of parseRetryDelay()');
  });
});

describe('evaluateRetryDelay: results that are not a delay', () => {
  it('throws on division by zero at the operator, naming retried', () => {
    const error = evaluationFault('1000 / (retried - 2)', 2);
    expect(error.position).toBe(5);
    expect(error.message).toContain('division by zero');
    expect(error.message).toContain('retried=2');
    expect(evaluateRetryDelay('1000 / (retried - 2)', 3)).toBe(1000);
  });

  it('throws on division by negative zero', () => {
    expect(evaluationFault('1 / -0').position).toBe(2);
  });

  it('throws when a function has no real result, at the call', () => {
    const error = evaluationFault('1000 + sqrt(-1)');
    expect(error.position).toBe(7);
    expect(error.message).toContain('sqrt(-1) has no numeric result');
  });

  it('throws on NaN from an operator, at the operator', () => {
    const error = evaluationFault('exp(1000) - exp(1000)');
    expect(error.position).toBe(10);
    expect(error.message).toContain('Infinity - Infinity');
  });

  it('throws when the result is infinite', () => {
    const error = evaluationFault('exp(retried)', 710);
    expect(error.message).toContain('evaluates to Infinity for retried=710');
    expect(evaluationFault('-exp(1000)').message).toContain('evaluates to -Infinity');
  });

  it('allows an infinite intermediate value that a cap removes', () => {
    expect(evaluateRetryDelay('min(86400000, exp(retried))', 1000)).toBe(86_400_000);
    expect(evaluateRetryDelay('1 / exp(1000)', 0)).toBe(0);
  });

  it('clamps a negative result to 0 (retry at once)', () => {
    const expression = parseRetryDelay('3000 - retried * 1000');
    expect([0, 1, 2, 3, 4, 5].map((n) => expression.evaluate(n))).toEqual([3000, 2000, 1000, 0, 0, 0]);
    expect(evaluateRetryDelay('-pow(2,3)', 0)).toBe(0);
    expect(evaluateRetryDelay('1 - 2 - 3', 0)).toBe(0);
  });

  it('never returns negative zero', () => {
    expect(Object.is(evaluateRetryDelay('-0', 0), 0)).toBe(true);
    expect(Object.is(evaluateRetryDelay('0 * -1', 0), 0)).toBe(true);
  });

  it('keeps fractional milliseconds as computed', () => {
    expect(evaluateRetryDelay('1000 / 3', 0)).toBeCloseTo(333.333, 3);
  });
});
