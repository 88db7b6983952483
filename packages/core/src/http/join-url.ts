import { ValidationError } from '../errors/validation-error';

/**
 * Appends a request path to a base URL without ever doubling a slash or dropping the base's own path
 * prefix (which `new URL(path, base)` would do for `/abs` paths or a base without a trailing slash).
 *
 * `path` as an array holds raw segments, each percent-encoded here; as a string it is an already
 * encoded path whose `/` separate segments. See `RequestSpec.path`.
 *
 * @example
 * joinUrl('http://h/v2', ['topics', 'a b'])   // 'http://h/v2/topics/a%20b'
 * joinUrl('http://h/v2/', '/messaging/users') // 'http://h/v2/messaging/users'
 */
export function joinUrl(baseUrl: string, path: string | readonly string[]): string {
  const base = baseUrl.replace(/\/+$/, '');
  const encoded = encodePath(path);
  return encoded === '' ? base : `${base}/${encoded}`;
}

/**
 * The encoded path without leading or trailing slash.
 *
 * @example encodePath(['v2', 'topics', 'a/b']) // 'v2/topics/a%2Fb'
 */
export function encodePath(path: string | readonly string[]): string {
  if (typeof path === 'string') return normalisePrebuiltPath(path);
  if (!Array.isArray(path)) {
    throw new ValidationError('path', `expected an array of segments or a string, got ${typeof path}`);
  }
  return path.map((segment, index) => encodeSegment(segment, index)).join('/');
}

function normalisePrebuiltPath(path: string): string {
  // The query has its own option; a '?' or '#' here would silently cut the path short.
  if (/[?#]/.test(path)) {
    throw new ValidationError('path', `a path must not contain "?" or "#" (pass the query as "query"): ${JSON.stringify(path)}`);
  }
  const trimmed = path.replace(/^\/+|\/+$/g, '').replace(/\/{2,}/g, '/');
  for (const segment of trimmed.split('/')) assertNotDotSegment(segment, path);
  return trimmed;
}

function encodeSegment(segment: unknown, index: number): string {
  if (typeof segment !== 'string') {
    throw new ValidationError(`path[${index}]`, `a path segment must be a string, got ${typeof segment}`);
  }
  // An empty segment would produce '//' and reach a different route (e.g. a list instead of one item).
  if (segment === '') {
    throw new ValidationError(`path[${index}]`, 'a path segment must not be empty (is a name or id missing?)');
  }
  assertNotDotSegment(segment, segment, `path[${index}]`);
  try {
    return encodeURIComponent(segment);
  } catch (cause) {
    // Only a lone UTF-16 surrogate makes encodeURIComponent throw.
    throw new ValidationError(`path[${index}]`, `segment ${JSON.stringify(segment)} is not valid Unicode`, { cause });
  }
}

// URL parsers resolve '.' and '..' (also '%2e' forms) even when escaped, so a name like '..' would
// climb out of its resource. Refuse rather than encode.
function assertNotDotSegment(segment: string, shown: string, where = 'path'): void {
  if (/^(?:\.|%2e){1,2}$/i.test(segment)) {
    throw new ValidationError(where, `"." and ".." are not allowed as path segments: ${JSON.stringify(shown)}`);
  }
}
