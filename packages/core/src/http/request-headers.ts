import { ValidationError } from '../errors/validation-error';

// RFC 9110 token characters: what fetch's Headers accepts as a name.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Leading and trailing HTTP whitespace is dropped, as Headers does, before the value is checked.
const OUTER_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
// What is left must be Latin-1 without CR, LF or NUL: the characters of header injection.
const FIELD_VALUE = /^[^\0\r\n\u0100-\uffff]*$/;

/**
 * Adds the caller's headers to `target` under lower-case names, checked by the rules of fetch's
 * `Headers` (a plain object instead of a `Headers` per request: the transports want one anyway, and
 * building a `Headers` costs more than the rest of the request preparation). Names that differ only
 * in case are combined with ', ', as `Headers` does; a later `target` key overrides them.
 *
 * @example
 * const headers = { accept: 'application/json' };
 * mergeRequestHeaders(headers, { 'Service-Retries': '3' }); // headers['service-retries'] === '3'
 */
export function mergeRequestHeaders(target: Record<string, string>, given: Readonly<Record<string, string>> | Headers | undefined): void {
  if (given === undefined) return;
  if (given instanceof Headers) {
    // Already checked and normalised when it was built.
    given.forEach((value, name) => {
      setHeader(target, name, value);
    });
    return;
  }
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw new ValidationError('headers', 'invalid header: expected an object of name -> value or a Headers');
  }
  const merged: Record<string, string> = {};
  for (const name of Object.keys(given)) {
    const key = checkedName(name);
    const value = checkedValue(name, given[name]);
    setHeader(merged, key, Object.hasOwn(merged, key) ? `${merged[key]}, ${value}` : value);
  }
  for (const key of Object.keys(merged)) setHeader(target, key, merged[key]!);
}

/**
 * `target[name] = value`, except that a header named `__proto__` becomes an own property like any
 * other instead of hitting the prototype setter (which would drop it without a word).
 */
export function setHeader(target: Record<string, string>, name: string, value: string): void {
  if (name === '__proto__') Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
  else target[name] = value;
}

function checkedName(name: string): string {
  if (!TOKEN.test(name)) throw new ValidationError('headers', `invalid header: ${JSON.stringify(name)} is not a valid header name`);
  return name.toLowerCase();
}

function checkedValue(name: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new ValidationError('headers', `invalid header: the value of ${name} must be a string, got ${typeof value}`);
  // Most values have nothing to trim; skip the regex replace for them.
  const trimmed =
    isHttpWhitespace(value.charCodeAt(0)) || isHttpWhitespace(value.charCodeAt(value.length - 1))
      ? value.replace(OUTER_WHITESPACE, '')
      : value;
  if (!FIELD_VALUE.test(trimmed)) {
    throw new ValidationError('headers', `invalid header: the value of ${name} contains a line break, NUL or a character outside Latin-1`);
  }
  return trimmed;
}

function isHttpWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}
