import { ValidationError } from '../errors/validation-error';
import type { QueryValue } from './transport-types';

/**
 * Builds `?a=1&b=x%20y` from an object, skipping `undefined` so optional filters can be passed through
 * untouched. Spaces become `%20`, not `+`, so no server has to guess which form-encoding was meant.
 * Returns '' when nothing is left.
 *
 * @example buildQueryString({ cursor: 'a b', count: 10, topicName: undefined }) // '?cursor=a%20b&count=10'
 */
export function buildQueryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  if (query === null || typeof query !== 'object' || Array.isArray(query)) {
    throw new ValidationError('query', 'expected an object of name -> string | number | boolean');
  }
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    pairs.push(`${encode(name, name)}=${encode(name, formatValue(name, value))}`);
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function formatValue(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    // 'NaN' or 'Infinity' on the wire is always a bug upstream, never what the service expects.
    if (!Number.isFinite(value)) throw new ValidationError(`query.${name}`, `must be a finite number, got ${value}`);
    return String(value);
  }
  throw new ValidationError(
    `query.${name}`,
    `must be a string, number, boolean or undefined, got ${value === null ? 'null' : typeof value}`,
  );
}

function encode(name: string, text: string): string {
  try {
    return encodeURIComponent(text);
  } catch (cause) {
    throw new ValidationError(`query.${name}`, 'is not valid Unicode (lone surrogate)', { cause });
  }
}
