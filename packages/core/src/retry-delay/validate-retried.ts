import { ValidationError } from '../errors/validation-error';
import { describeValue } from './describe-value';

/**
 * Throws unless `retried` is a retry count: a non-negative integer, 0 for the first retry. Checked
 * at every public entry because a fractional or negative count would yield a delay the service
 * can never produce, and a string would be silently coerced by the arithmetic.
 *
 * @example
 * assertRetried(2); // ok
 * assertRetried(-1); // throws ValidationError
 */
export function assertRetried(retried: unknown, path = 'retried'): asserts retried is number {
  if (typeof retried !== 'number' || !Number.isInteger(retried) || retried < 0) {
    throw new ValidationError(path, `must be a non-negative integer (0 for the first retry) but got ${describeValue(retried)}`);
  }
}
