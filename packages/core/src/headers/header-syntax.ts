import { ValidationError } from '../errors/validation-error';

// RFC 9110 token characters. Anything else in a name is either rejected by fetch at send time or,
// worse, smuggles a second header; we refuse it before a request exists.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text and horizontal whitespace. CR, LF and NUL are how header
// injection happens, so they are the ones that must never pass.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Throws unless `name` is a valid HTTP header name. */
export function assertHeaderName(path: string, name: unknown): asserts name is string {
  if (typeof name !== 'string' || !TOKEN.test(name)) {
    throw new ValidationError(path, `invalid header name ${JSON.stringify(name)}: use letters, digits and - only`);
  }
}

/** Throws unless `value` is a string that is safe as an HTTP header value (no CR, LF or NUL). */
export function assertHeaderValue(path: string, value: unknown): asserts value is string {
  if (typeof value !== 'string') {
    throw new ValidationError(path, `header value must be a string, got ${describe(value)}`);
  }
  if (!FIELD_VALUE.test(value)) {
    throw new ValidationError(
      path,
      'header value contains a line break, NUL or a character outside Latin-1; remove it or encode the value',
    );
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? JSON.stringify(value) : typeof value;
}
