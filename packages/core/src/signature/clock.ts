import { ValidationError } from '../errors/validation-error';

/**
 * Reads the injected clock (Unix milliseconds, like `Date.now`) as whole Unix seconds, the unit of
 * `iat`/`nbf`/`exp`. Flooring matches jose, so both verifier implementations see the same "now".
 * A clock returning garbage is a configuration bug, hence a ValidationError and not a 401.
 */
export function readClockSeconds(now: () => number): number {
  let milliseconds: unknown;
  try {
    milliseconds = now();
  } catch (cause) {
    throw new ValidationError('now', 'the clock function threw', { cause });
  }
  if (typeof milliseconds !== 'number' || !Number.isFinite(milliseconds)) {
    throw new ValidationError('now', `the clock must return Unix milliseconds (like Date.now()), got ${String(milliseconds)}`);
  }
  return Math.floor(milliseconds / 1000);
}
