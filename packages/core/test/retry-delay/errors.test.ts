import { describe, expect, it } from 'vitest';
import { RetryDelaySyntaxError } from '../../src/errors';
import { ValidationError } from '../../src/errors';
import { MAX_RETRY_DELAY_EXPRESSION_LENGTH, MAX_RETRY_DELAY_NESTING, parseRetryDelay } from '../../src/retry-delay';
import { catchError } from './catch-error';

function refusal(expression: string): RetryDelaySyntaxError {
  const error = catchError(() => parseRetryDelay(expression));
  expect(error).toBeInstanceOf(RetryDelaySyntaxError);
  return error as RetryDelaySyntaxError;
}

describe('parseRetryDelay: faults and their positions', () => {
  it.each([
    // [expression, position, part of the message]
    ['retry', 0, "unknown identifier 'retry'; did you mean 'retried'?"],
    ['1000 * retries', 7, "did you mean 'retried'?"],
    ['1000 * Retried', 7, "did you mean 'retried'?"],
    ['1000 * attempt', 7, "the only variable is 'retried'"],
    ['log(2)', 0, "unknown function 'log'; available functions: pow, sqrt, abs, exp, floor, ceil, round, min, max"],
    ['1 + Pow(2, 3)', 4, "did you mean 'pow'?"],
    ['maxx(1, 2)', 0, "did you mean 'max'?"],
    ['retried(2)', 0, "'retried' is a variable, not a function"],
    ['2 * sqrt', 4, "'sqrt' is a function; call it like sqrt(x)"],
    ['pow(2)', 5, 'pow takes exactly 2 arguments but got 1'],
    ['pow(1, 2, 3)', 10, 'pow takes exactly 2 arguments but got 3'],
    ['sqrt()', 5, 'sqrt takes exactly 1 argument but got 0'],
    ['abs(1, 2)', 7, 'abs takes exactly 1 argument but got 2'],
    ['min(1)', 5, 'min takes at least 2 arguments but got 1'],
    ['max()', 4, 'max takes at least 2 arguments but got 0'],
    ['(1 + 2', 6, "expected ')' to close the '(' at position 0"],
    ['((1 + 2)', 8, "expected ')' to close the '(' at position 0"],
    ['(1 2)', 3, "expected an operator or ')'"],
    ['1 + 2)', 5, "unmatched ')'"],
    ['pow(2, 3', 8, "expected ')' to close the '(' at position 3 in the call of pow"],
    ['pow(2 3)', 6, "expected an operator, ',' or ')' in the call of pow"],
    ['max(1,)', 6, "expected a number, 'retried', a function call or '(' but found ')'"],
    ['()', 1, 'empty parentheses'],
    ['1000 ms', 5, 'units are not allowed'],
    ['1000 1', 5, 'expected an operator or the end of the expression but found the number 1'],
    ['2retried', 1, "expected an operator or the end of the expression but found 'retried'"],
    ['1 +', 3, 'unexpected end of expression'],
    ['* 2', 0, "expected a number, 'retried', a function call or '(' but found '*'"],
    ['1 + * 2', 4, "but found '*'"],
    ['+5', 0, "unary '+' is not supported"],
    ['', 0, 'empty expression'],
    ['   ', 0, 'empty expression'],
    ['2 ^ 3', 2, 'use pow(a, b)'],
    ['2 ** 3', 2, 'use pow(a, b)'],
    ['10 % 3', 3, "'%' is not supported"],
    ['1e3', 1, 'exponent notation is not supported'],
    ['1.', 1, "expected a digit after '.'"],
    ['1.2.3', 3, 'found the number .3'],
    ['1000;', 4, "unexpected character ';'"],
    ['1000\u0000', 4, 'unexpected character U+0000'],
    ['1 × 2', 2, "unexpected character '×' (U+00D7)"],
    ['constructor', 0, 'unknown identifier'],
    ['__proto__(1)', 0, 'unknown function'],
    ['9'.repeat(400), 0, 'number is too large'],
  ])('%j fails at %d', (expression, position, reason) => {
    const error = refusal(expression);
    expect(error.position).toBe(position);
    expect(error.expression).toBe(expression);
    expect(error.message).toContain(reason);
    expect(error.message).toContain(`at position ${position}`);
  });

  it('is a ValidationError on the retryDelay path', () => {
    const error = refusal('retry');
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.path).toBe('retryDelay');
    expect(error.code).toBe('VALIDATION');
  });

  it.each([undefined, null, 1000, {}, ['1000']])('refuses the non-string %j with a ValidationError', (value) => {
    const error = catchError(() => parseRetryDelay(value as unknown as string));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).path).toBe('retryDelay');
    expect((error as Error).message).toContain('must be an expression string');
  });
});

describe('parseRetryDelay: bounds', () => {
  it(`accepts ${MAX_RETRY_DELAY_EXPRESSION_LENGTH} characters and refuses one more`, () => {
    const longest = `1${' '.repeat(MAX_RETRY_DELAY_EXPRESSION_LENGTH - 1)}`;
    expect(parseRetryDelay(longest).evaluate(0)).toBe(1);
    const error = refusal(`${longest} `);
    expect(error.position).toBe(MAX_RETRY_DELAY_EXPRESSION_LENGTH);
    expect(error.message).toContain('longer than 1000 characters');
  });

  // The bounds below are far above the milliseconds these take, so a loaded 2-core machine passes,
  // and far below what reading 2 MB or 10,000 levels character by character would cost.
  it('refuses a huge input at once', () => {
    const started = performance.now();
    expect(refusal('1+'.repeat(1_000_000)).position).toBe(MAX_RETRY_DELAY_EXPRESSION_LENGTH);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it(`accepts ${MAX_RETRY_DELAY_NESTING} levels of nesting and refuses one more`, () => {
    const depth = MAX_RETRY_DELAY_NESTING - 1; // the whole expression is the first level
    expect(parseRetryDelay(`${'('.repeat(depth)}7${')'.repeat(depth)}`).evaluate(0)).toBe(7);
    const error = refusal(`${'('.repeat(depth + 1)}7${')'.repeat(depth + 1)}`);
    expect(error.position).toBe(depth);
    expect(error.message).toContain(`nested more than ${MAX_RETRY_DELAY_NESTING} levels`);
  });

  it.each([
    ['(', '('.repeat(10_000)],
    ['( within the length bound', '('.repeat(999)],
    ['unary minus', `${'-'.repeat(999)}1`],
    ['nested calls', `${'abs('.repeat(150)}1${')'.repeat(150)}`],
  ])('refuses deep nesting of %s with a RetryDelaySyntaxError, not a RangeError', (_, expression) => {
    const started = performance.now();
    expect(catchError(() => parseRetryDelay(expression))).toBeInstanceOf(RetryDelaySyntaxError);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('parses and evaluates a long flat chain, which needs no nesting', () => {
    const chain = Array.from({ length: 500 }, () => '2').join('+');
    expect(parseRetryDelay(chain).evaluate(0)).toBe(1000);
  });
});
