import { ValidationError } from '../errors/validation-error';
import { describeValue } from './describe-value';
import { parseRetryDelay } from './parse-retry-delay';
import type { RetryDelayExpression } from './parse-retry-delay';

/**
 * The delay in milliseconds before retry `retried + 1`. Pass a parsed expression when evaluating
 * the same one repeatedly; a string is parsed on every call.
 *
 * @throws RetryDelaySyntaxError for an invalid expression or a NaN, infinite or division-by-zero
 * result; ValidationError when `retried` is not a non-negative integer.
 * @example
 * evaluateRetryDelay('1000 * (1 + retried)', 2); // 3000
 */
export function evaluateRetryDelay(expression: string | RetryDelayExpression, retried: number): number {
  return toRetryDelayExpression(expression).evaluate(retried);
}

/**
 * Accepts either form of an expression, so every function taking one behaves the same.
 *
 * @example
 * toRetryDelayExpression('1000').evaluate(0); // 1000
 */
export function toRetryDelayExpression(expression: string | RetryDelayExpression, path = 'retryDelay'): RetryDelayExpression {
  if (typeof expression === 'string') return parseRetryDelay(expression);
  if (typeof expression === 'object' && expression !== null && typeof expression.evaluate === 'function') return expression;
  throw new ValidationError(path, `must be an expression string or the result of parseRetryDelay() but got ${describeValue(expression)}`);
}
