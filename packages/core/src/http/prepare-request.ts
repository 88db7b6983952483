import { ValidationError } from '../errors/validation-error';
import { encodePath } from './join-url';
import { buildQueryString } from './query-string';
import type { HttpTransportRequest } from './http-transport';
import { mergeRequestHeaders } from './request-headers';
import type { ResolvedTransportOptions } from './resolve-transport-options';
import type { HttpMethod, RequestSpec } from './transport-types';

/** Everything one attempt needs; built once so every retry sends the same bytes. */
export interface PreparedRequest extends HttpTransportRequest {
  retrySafe: boolean;
}

const METHODS: ReadonlySet<string> = new Set<HttpMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Validates a `RequestSpec` and turns it into URL, headers and body. Header precedence, lowest first:
 * our defaults (`Accept`, `User-Agent`, JSON `Content-Type`), the caller's headers, `Authorization`
 * (so a stray caller header can never send other credentials than the configured ones).
 *
 * @example prepareRequest({ method: 'GET', path: ['v2', 'topics'] }, resolved).url // 'http://h/v2/topics'
 */
export function prepareRequest(spec: RequestSpec, options: ResolvedTransportOptions): PreparedRequest {
  if (spec === null || typeof spec !== 'object') throw new ValidationError('request', 'expected a request object');
  if (!METHODS.has(spec.method)) {
    throw new ValidationError('method', `must be one of ${[...METHODS].join(', ')}, got ${JSON.stringify(spec.method)}`);
  }
  // The base is normalised once (no trailing slash), so joining is a concatenation.
  const path = encodePath(spec.path);
  const url = (path === '' ? options.baseUrl : `${options.baseUrl}/${path}`) + rawTail(spec) + buildQueryString(spec.query);
  const { body, contentType } = encodeBody(spec);
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': options.userAgent };
  if (contentType) headers['content-type'] = contentType;
  mergeRequestHeaders(headers, spec.headers);
  headers.authorization = options.authorization;
  if (spec.signal !== undefined && !(spec.signal instanceof AbortSignal)) {
    throw new ValidationError('signal', 'must be an AbortSignal');
  }
  return {
    method: spec.method,
    url,
    headers,
    body,
    signal: spec.signal,
    timeoutMs: options.timeoutMs,
    retrySafe: spec.retrySafe ?? spec.method === 'GET',
  };
}

function rawTail(spec: RequestSpec): string {
  if (spec.rawTail === undefined) return '';
  if (typeof spec.rawTail !== 'string' || spec.rawTail === '' || /[\s#]/.test(spec.rawTail)) {
    throw new ValidationError(
      'rawTail',
      `must be a non-empty, already encoded URL tail without spaces or "#", got ${JSON.stringify(spec.rawTail)}`,
    );
  }
  if (spec.query !== undefined) throw new ValidationError('rawTail', 'give either rawTail or query, not both');
  return `/${spec.rawTail}`;
}

function encodeBody(spec: RequestSpec): { body: string | Uint8Array | undefined; contentType?: string } {
  const hasJson = spec.json !== undefined;
  const hasBody = spec.body !== undefined;
  if (hasJson && hasBody) throw new ValidationError('body', 'give either body or json, not both');
  if ((hasJson || hasBody) && spec.method === 'GET') {
    throw new ValidationError('body', 'a GET request cannot carry a body');
  }
  if (hasBody) {
    if (typeof spec.body !== 'string' && !(spec.body instanceof Uint8Array)) {
      // Streams and FormData cannot be re-sent on a retry; the caller serialises first.
      throw new ValidationError('body', 'must be a string or a Uint8Array');
    }
    return { body: spec.body };
  }
  if (!hasJson) return { body: undefined };
  let text: string | undefined;
  try {
    text = JSON.stringify(spec.json);
  } catch (cause) {
    throw new ValidationError('json', `cannot be serialised to JSON: ${(cause as Error).message}`, { cause });
  }
  // JSON.stringify returns undefined for a function or symbol: sending nothing would hide the bug.
  if (text === undefined) throw new ValidationError('json', `cannot be serialised to JSON (got ${typeof spec.json})`);
  return { body: text, contentType: 'application/json' };
}
