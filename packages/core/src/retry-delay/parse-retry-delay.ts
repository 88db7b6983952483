import { ValidationError } from '../errors/validation-error';
import type { RetryDelayNode } from './ast';
import { compile } from './compile';
import { describeValue } from './describe-value';
import { parse } from './parse';
import { assertRetried } from './validate-retried';

/** A retry-delay expression parsed once, cheap to evaluate for every retry. */
export interface RetryDelayExpression {
  /** The expression exactly as given, e.g. to send as the `Retry-Delay` header. */
  readonly source: string;
  /** The syntax tree, for tools that want to inspect or print the expression. */
  readonly ast: RetryDelayNode;
  /** The delay in milliseconds before retry `retried + 1` (`retried` is 0 for the first retry). */
  evaluate(retried: number): number;
}

/**
 * Parses and checks a retry-delay expression, so a mistake is found before the enqueue (where the
 * service would answer 400) and the result can be evaluated many times.
 *
 * @throws RetryDelaySyntaxError with the position of the fault; ValidationError when not a string.
 * @example
 * const delay = parseRetryDelay('max(1000, pow(2, retried) * 100)');
 * delay.evaluate(0); // 1000
 * delay.evaluate(5); // 3200
 */
export function parseRetryDelay(expression: string): RetryDelayExpression {
  // Not a RetryDelaySyntaxError: there is no source text for a position to point into.
  if (typeof expression !== 'string') {
    throw new ValidationError('retryDelay', `must be an expression string such as "1000" but got ${describeValue(expression)}`);
  }
  const ast = parse(expression);
  const run = compile(ast, expression);
  return Object.freeze({
    source: expression,
    ast,
    evaluate(retried: number): number {
      assertRetried(retried);
      return run(retried);
    },
  });
}
