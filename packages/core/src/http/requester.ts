import { ConfigError, NetworkError, ResponseValidationError, ValidationError, type ApiError } from '../errors';
import { sleepUnlessAborted, mapErrorResponse, retryAfterMs, isRetryableError, retryDelay } from './failures';
import type { HttpTransportRequest, HttpTransportResponse, ServiceMethod } from './transport';
import {
  resolveRequesterOptions,
  type ResolvedRequesterOptions,
  type ParseResponse,
  type QueryValue,
  type RequestSpec,
  type Requester,
  type RequesterOptions,
  type RequesterResponse,
} from './requester-options';

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
  let encoded = '';
  for (let index = 0; index < path.length; index++) {
    const segment: unknown = path[index];
    // Names and ids are almost always unreserved characters already: nothing to encode or refuse.
    const plain = typeof segment === 'string' && PLAIN_SEGMENT.test(segment);
    encoded += (index === 0 ? '' : '/') + (plain ? segment : encodeSegment(segment, index));
  }
  return encoded;
}

// Unreserved characters (RFC 3986) not starting with '.', so no dot segment takes this shortcut.
const PLAIN_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

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

/**
 * Builds `?a=1&b=x%20y` from an object, skipping `undefined` so optional filters can be passed through
 * untouched. Spaces become `%20`, not `+`, so no server has to guess which form-encoding was meant.
 * Returns '' when nothing is left.
 *
 * @example buildQueryString({ cursor: 'a b', count: 10, topicName: undefined, id: ['x', 'y'] }) // '?cursor=a%20b&count=10&id=x&id=y'
 */
export function buildQueryString(query: Readonly<Record<string, QueryValue>> | undefined): string {
  if (query === undefined) return '';
  if (query === null || typeof query !== 'object' || Array.isArray(query)) {
    throw new ValidationError('query', 'expected an object of name -> string | number | boolean');
  }
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    // A list repeats the name (`dlqIds=a&dlqIds=b`), as the service reads multi-valued filters.
    for (const item of Array.isArray(value) ? value : [value]) {
      pairs.push(`${encode(name, name)}=${encode(name, formatValue(name, item))}`);
    }
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
function setHeader(target: Record<string, string>, name: string, value: string): void {
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

/** Everything one attempt needs; built once so every retry sends the same bytes. */
interface PreparedRequest extends HttpTransportRequest {
  retrySafe: boolean;
}

const METHODS: ReadonlySet<string> = new Set<ServiceMethod>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Validates a `RequestSpec` and turns it into URL, headers and body. Header precedence, lowest first:
 * our defaults (`Accept`, `User-Agent`, JSON `Content-Type`), the caller's headers, `Authorization`
 * (so a stray caller header can never send other credentials than the configured ones).
 *
 * @example prepareRequest({ method: 'GET', path: ['v2', 'topics'] }, resolved).url // 'http://h/v2/topics'
 */
function prepareRequest(spec: RequestSpec, options: ResolvedRequesterOptions): PreparedRequest {
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
    timeoutMs: options.timeoutMs + extraTimeout(spec.extraTimeoutMs),
    retrySafe: spec.retrySafe ?? spec.method === 'GET',
  };
}

function extraTimeout(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ValidationError('extraTimeoutMs', `must be a number of milliseconds >= 0, got ${JSON.stringify(value)}`);
  }
  return value;
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

/**
 * The requester under the messaging client (Bearer) and the management client (Basic): auth header,
 * JSON bodies, a timeout per attempt, `{"error"}` answers turned into typed errors, and retries with
 * backoff for network errors, 429 and 5xx on requests marked `retrySafe`. Each attempt goes through
 * an `HttpTransport` (fetch by default, or `@mailroom/core/undici`).
 * Options are validated here, so a bad setting throws `ValidationError` before any request.
 *
 * @example
 * const requester = createRequester({ baseUrl: 'http://127.0.0.1:8288', auth: { kind: 'bearer', token } });
 * const topics = await requester.requestJson({ method: 'GET', path: ['v2', 'topics'] }, parseTopics);
 * await requester.request({ method: 'POST', path: ['v2', 'topics', name, 'endpoints'], json: { endpoints } });
 */
export function createRequester(options: RequesterOptions): Requester {
  const resolved = resolveRequesterOptions(options);
  // Promise chains rather than nested async functions: each layer of those costs a promise and
  // microtasks on every call. A bad spec still rejects instead of throwing synchronously.
  return {
    request(spec: RequestSpec): Promise<RequesterResponse> {
      return prepareAndSend(spec, resolved, (answer, prepared) => successResponse(answer, prepared.url));
    },
    requestJson<T>(spec: RequestSpec, parse: ParseResponse<T>): Promise<T> {
      return prepareAndSend(spec, resolved, (answer, prepared) => parse(parseJsonBody(answer.text, prepared.url), prepared.url));
    },
  };
}

/**
 * {@link createRequester} over settings read by `connect`: now when `now` (every setting is there,
 * or the caller checks its wiring at start-up), else on first use. A client made at module level
 * (the README's style) must not break a build where its settings are absent (`next build`); its
 * `ConfigError` then comes with the first request, and the settings are read again on each use
 * until they are there (the variables may be set later).
 */
export function createRequesterWhenConfigured(connect: () => RequesterOptions, now: boolean): Requester {
  if (now) return createRequester(connect());
  let requester: Requester | undefined;
  const withRequester = <T>(call: (ready: Requester) => Promise<T>): Promise<T> => {
    try {
      requester ??= createRequester(connect());
    } catch (error) {
      return Promise.reject(error);
    }
    return call(requester);
  };
  return {
    request: (spec) => withRequester((ready) => ready.request(spec)),
    requestJson: (spec, parse) => withRequester((ready) => ready.requestJson(spec, parse)),
  };
}

function prepareAndSend<T>(
  spec: RequestSpec,
  options: ResolvedRequesterOptions,
  done: (answer: HttpTransportResponse, prepared: PreparedRequest) => T | PromiseLike<T>,
): Promise<T> {
  let prepared: PreparedRequest;
  try {
    prepared = prepareRequest(spec, options);
  } catch (error) {
    return Promise.reject(error);
  }
  return send(prepared, options, 0, done);
}

/**
 * One attempt and what follows from it, in a single `then`: the answer for a 2xx, else (only when
 * it failed in a retryable way) the wait and the next attempt, else the typed error.
 */
function send<T>(
  request: PreparedRequest,
  options: ResolvedRequesterOptions,
  retry: number,
  done: (answer: HttpTransportResponse, prepared: PreparedRequest) => T | PromiseLike<T>,
): Promise<T> {
  let sent: Promise<HttpTransportResponse>;
  try {
    request.signal?.throwIfAborted();
    sent = options.http.send(request);
  } catch (error) {
    sent = Promise.reject(error);
  }
  return sent.then(
    (result) =>
      result.status >= 200 && result.status < 300
        ? done(result, request)
        : retryOrThrow(request, options, retry, done, errorAnswer(request, options, result)),
    (error: unknown) => retryOrThrow(request, options, retry, done, failedAttempt(request, error)),
  );
}

/** After a failed attempt: the wait and the next one when the failure is retryable, else the error. */
function retryOrThrow<T>(
  request: PreparedRequest,
  options: ResolvedRequesterOptions,
  retry: number,
  done: (answer: HttpTransportResponse, prepared: PreparedRequest) => T | PromiseLike<T>,
  { error, retryAfter }: AttemptFailure,
): Promise<T> {
  const retries = request.retrySafe ? options.retry.retries : 0;
  if (retry >= retries || !isRetryableError(error)) throw error;
  const delay = retryDelay(error, retryAfter, retry, options.retry, options.random, options.now());
  if (delay === undefined) throw error;
  return sleepUnlessAborted(options.sleep, delay, request.signal).then(() => send(request, options, retry + 1, done));
}

type AttemptFailure = { error: ApiError | NetworkError; retryAfter: number | undefined };

function failedAttempt(request: PreparedRequest, error: unknown): AttemptFailure {
  // The caller's abort is a decision, not a failure: their reason goes back as it is, never retried.
  if (request.signal?.aborted) throw request.signal.reason;
  // A setting that cannot work (dev mode finding no dev server) is the user's to fix, not a network failure.
  if (error instanceof ConfigError) throw error;
  const timedOut = error instanceof NetworkError && error.timedOut;
  const cause = error instanceof NetworkError ? error.cause : error;
  // A write that left and got no answer may have been accepted: say so, or a resend sends it twice.
  const outcomeUnknown = !request.retrySafe && (timedOut || !neverSent(cause));
  if (error instanceof NetworkError && !outcomeUnknown) return { error, retryAfter: undefined };
  return { error: new NetworkError({ method: request.method, url: request.url, timedOut, cause, outcomeUnknown }), retryAfter: undefined };
}

/** A failure that happened before a byte of the request left: the service cannot have seen it. */
function neverSent(cause: unknown): boolean {
  const code = (cause as { code?: unknown; cause?: { code?: unknown } } | undefined)?.cause?.code ?? (cause as { code?: unknown })?.code;
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ERR_INVALID_URL';
}

function errorAnswer(request: PreparedRequest, options: ResolvedRequesterOptions, result: HttpTransportResponse): AttemptFailure {
  const now = options.now();
  return {
    error: mapErrorResponse(result, {
      method: request.method,
      url: request.url,
      now,
      credentials: options.credentials,
    }),
    retryAfter: retryAfterMs(result.headers, now),
  };
}

/** The answer with the URL it came from; `headers` stays a getter, so a lazy transport never builds them for nothing. */
function successResponse(result: HttpTransportResponse, url: string): RequesterResponse {
  return {
    status: result.status,
    text: result.text,
    url,
    get headers() {
      return result.headers;
    },
  };
}

/** An empty body is `undefined` (several endpoints answer 200 with nothing); anything else must be JSON. */
function parseJsonBody(text: string, url: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ResponseValidationError({ field: '', url, reason: 'is not JSON' });
  }
}
