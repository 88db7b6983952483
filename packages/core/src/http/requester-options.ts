import type { Environment } from '../config';
import { expectObject, ValidationError } from '../errors';
import { defaultSleep, type RetryPolicy } from './failures';
import { devModeTransport, type DevServerLocator } from '../dev-mode';
import { createFetchTransport, type HttpTransport, type ServiceMethod } from './transport';

/**
 * How the requester authenticates: the messaging interface takes a Bearer token, the management
 * interface HTTP Basic with the account e-mail and the management API key.
 */
export type RequesterAuth = { kind: 'bearer'; token: string } | { kind: 'basic'; user: string; password: string };

/** Retry budget and backoff shape. `retries` counts retries, so a request is tried `1 + retries` times. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** Backoff cap of the first retry, doubled for each further retry. Default 500 ms. */
  baseDelayMs?: number;
  /**
   * The longest single wait. A server that asks for longer (`Retry-After`, a rate-limit reset) is not
   * retried at all: its error is thrown at once, since waiting less than it asked would only fail again.
   * Default 10 000 ms.
   */
  maxDelayMs?: number;
}

export interface RequesterOptions {
  /** Absolute http(s) URL; a path prefix such as `https://h/v2` is kept. No query, fragment or credentials. */
  baseUrl: string;
  auth: RequesterAuth;
  /** Defaults to `globalThis.fetch`, looked up on every attempt so test tools that replace it still work. */
  fetch?: typeof fetch;
  /**
   * Sends the requests instead of `fetch`, e.g. `createUndiciTransport()` from `@mailroom/core/undici`
   * on Node. Exclusive with `fetch`.
   */
  transport?: HttpTransport;
  /** Per attempt, including reading the body. Default 30 000 ms. */
  timeoutMs?: number;
  /** `false` disables retries. Retries only ever happen for requests marked `retrySafe`. */
  retry?: false | RetryOptions;
  /** Sent as `User-Agent` (browsers ignore it). Default `@mailroom/core`. */
  userAgent?: string;
  /** Waits between retries. Injected by tests so they never sleep; the default honours `signal`. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Dev mode: make sure this dev server answers (or start it) before the first request goes out. */
  devServer?: DevServerLocator;
  /** Clock in Unix milliseconds, used to turn rate-limit reset times into waits. Default `Date.now`. */
  now?: () => number;
}

/** A query value; `undefined` drops the parameter so callers can pass optional filters as they are. */
export type QueryValue = string | number | boolean | undefined | readonly (string | number)[];

/**
 * One request. `path` is either
 * - an array of RAW segments, each percent-encoded by the transport (`['v2', 'topics', name]`: a
 *   name holding `/`, `?` or `#` stays one segment), or
 * - a string taken as an already-encoded path whose `/` separate segments (`'v2/dlq'`), for fixed
 *   prefixes written in code.
 * Either form is appended to the base URL's own path; leading and trailing slashes do not matter.
 */
export interface RequestSpec {
  method: ServiceMethod;
  path: string | readonly string[];
  /**
   * Appended after `path` exactly as given, query included. The service expects a URL destination
   * verbatim in the path (`/v2/enqueue/q/https://app.test/hook?a=1`), so it must not be encoded as a
   * segment. Must already be a valid URL (`new URL(x).href`); exclusive with `query`.
   */
  rawTail?: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** Added after the defaults (`Accept`, `User-Agent`, JSON `Content-Type`); `Authorization` always wins. */
  headers?: Readonly<Record<string, string>> | Headers;
  /** Sent as is. Exclusive with `json`. */
  body?: string | Uint8Array;
  /** Serialised with `JSON.stringify`, with `Content-Type: application/json` unless the caller set one. */
  json?: unknown;
  /**
   * May this request be sent again after a failure whose outcome is unknown (network error, 429, 5xx)?
   * Default: `true` for GET only. Set it for writes that are idempotent, e.g. an enqueue carrying a
   * deduplication id.
   */
  retrySafe?: boolean;
  /** Aborts the request and any pending retry; the signal's reason is thrown, never retried. */
  signal?: AbortSignal;
  /** Added to the client's timeout for this request, e.g. for a large batch, which takes longer than one message. */
  extraTimeoutMs?: number;
}

/** A 2xx answer. `text` is the whole body ('' when empty); `url` is the URL that was requested. */
export interface RequesterResponse {
  status: number;
  readonly headers: Headers;
  text: string;
  url: string;
}

/**
 * Turns a decoded JSON value into the caller's type, throwing (or rejecting with)
 * `ResponseValidationError` when it does not fit; a promise when the schemas must load first.
 * `value` is `undefined` when the body was empty.
 */
export type ParseResponse<T> = (value: unknown, url: string) => T | PromiseLike<T>;

export interface Requester {
  /** Sends the request (with retries when safe) and resolves with a 2xx answer, or throws a typed error. */
  request(spec: RequestSpec): Promise<RequesterResponse>;
  /** `request`, then `JSON.parse` of the body (empty body: `undefined`) handed to `parse`. */
  requestJson<T>(spec: RequestSpec, parse: ParseResponse<T>): Promise<T>;
}

/** Requester settings both clients accept; `sleep`, `random` and `now` exist so tests never wait. */
export type SharedClientOptions = Pick<RequesterOptions, 'fetch' | 'timeoutMs' | 'retry' | 'userAgent' | 'sleep' | 'random' | 'now'> & {
  /** Where `MAILROOM_*` variables are read from. Default `process.env` (empty on edge runtimes). */
  env?: Environment;
};

/** Picks only the requester settings that were given, so `undefined` never overrides a default. */
export function requesterSettings(options: SharedClientOptions): Partial<RequesterOptions> {
  const out: Partial<RequesterOptions> = {};
  if (options.fetch !== undefined) out.fetch = options.fetch;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  if (options.retry !== undefined) out.retry = options.retry;
  if (options.userAgent !== undefined) out.userAgent = options.userAgent;
  if (options.sleep !== undefined) out.sleep = options.sleep;
  if (options.random !== undefined) out.random = options.random;
  if (options.now !== undefined) out.now = options.now;
  return out;
}

/** `RequesterOptions` after validation, with defaults filled in. */
export interface ResolvedRequesterOptions {
  /** origin + path prefix, without trailing slash. */
  baseUrl: string;
  authorization: string;
  /** Which credentials `authorization` carries, so an auth error names the right ones. */
  credentials: 'messaging' | 'management';
  /** Sends one attempt: the `transport` option, or the fetch-based default. */
  http: HttpTransport;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 10_000 };
const DEFAULT_USER_AGENT = '@mailroom/core';

// setTimeout fires at once for anything above 2^31 - 1 ms (about 24.8 days), which would turn a
// generous timeout into an immediate one.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Validates requester options and fills in defaults; every problem is a `ValidationError` naming the
 * option.
 *
 * @example resolveRequesterOptions({ baseUrl: 'http://127.0.0.1:8288', auth: { kind: 'bearer', token: 't' } })
 */
export function resolveRequesterOptions(options: RequesterOptions): ResolvedRequesterOptions {
  expectObject(options, 'options', 'an object with at least baseUrl and auth');
  return {
    baseUrl: normaliseBaseUrl(options.baseUrl),
    authorization: authorizationHeader(options.auth),
    credentials: options.auth.kind === 'basic' ? 'management' : 'messaging',
    http: options.devServer
      ? devModeTransport(resolveHttpTransport(options.fetch, options.transport), options.devServer)
      : resolveHttpTransport(options.fetch, options.transport),
    timeoutMs: options.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : positiveMs('timeoutMs', options.timeoutMs, 1),
    retry: resolveRetry(options.retry),
    userAgent: resolveUserAgent(options.userAgent),
    sleep: optionalFunction('sleep', options.sleep) ?? defaultSleep,
    random: optionalFunction('random', options.random) ?? Math.random,
    now: optionalFunction('now', options.now) ?? Date.now,
  };
}

function normaliseBaseUrl(value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError('baseUrl', 'is required: an absolute URL such as http://127.0.0.1:8288');
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(
      'baseUrl',
      `is not an absolute URL: ${JSON.stringify(value)}; use e.g. https://host or http://127.0.0.1:8288`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('baseUrl', `must start with http:// or https://, got ${JSON.stringify(value)}`);
  }
  if (url.search || url.hash || value.includes('?') || value.includes('#')) {
    throw new ValidationError('baseUrl', `must not carry a query or fragment: ${JSON.stringify(value)}`);
  }
  // fetch refuses URLs with credentials, and they would end up in error messages; auth has its own option.
  if (url.username || url.password) {
    throw new ValidationError('baseUrl', 'must not contain credentials; pass them as auth');
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function resolveHttpTransport(fetchOption: unknown, transport: unknown): HttpTransport {
  if (transport === undefined) return createFetchTransport(resolveFetch(fetchOption));
  if (fetchOption !== undefined) {
    throw new ValidationError('transport', 'give either fetch or transport, not both: a transport sends the requests itself');
  }
  if (transport === null || typeof transport !== 'object' || typeof (transport as { send?: unknown }).send !== 'function') {
    throw new ValidationError('transport', 'expected an HttpTransport such as createUndiciTransport() from @mailroom/core/undici');
  }
  return transport as HttpTransport;
}

function resolveFetch(value: unknown): () => typeof fetch {
  if (value === undefined) {
    // Looked up per call: msw, nock or a test may replace globalThis.fetch after the client exists.
    return () => {
      if (typeof globalThis.fetch !== 'function') {
        throw new ValidationError('fetch', 'no global fetch in this runtime; pass a fetch implementation');
      }
      return globalThis.fetch;
    };
  }
  if (typeof value !== 'function') throw new ValidationError('fetch', `must be a function, got ${typeof value}`);
  const given = value as typeof fetch;
  return () => given;
}

function resolveRetry(value: unknown): RetryPolicy {
  if (value === undefined) return { ...DEFAULT_RETRY };
  if (value === false) return { ...DEFAULT_RETRY, retries: 0 };
  if (value === null || typeof value !== 'object') {
    throw new ValidationError('retry', 'must be false or { retries?, baseDelayMs?, maxDelayMs? }');
  }
  const given = value as { retries?: unknown; baseDelayMs?: unknown; maxDelayMs?: unknown };
  const retries = given.retries ?? DEFAULT_RETRY.retries;
  if (typeof retries !== 'number' || !Number.isSafeInteger(retries) || retries < 0) {
    throw new ValidationError('retry.retries', `must be a whole number >= 0, got ${String(retries)}`);
  }
  const baseDelayMs = given.baseDelayMs === undefined ? DEFAULT_RETRY.baseDelayMs : positiveMs('retry.baseDelayMs', given.baseDelayMs, 0);
  const maxDelayMs =
    given.maxDelayMs === undefined ? Math.max(DEFAULT_RETRY.maxDelayMs, baseDelayMs) : positiveMs('retry.maxDelayMs', given.maxDelayMs, 0);
  if (maxDelayMs < baseDelayMs) {
    throw new ValidationError('retry.maxDelayMs', `must be >= retry.baseDelayMs (${baseDelayMs}), got ${maxDelayMs}`);
  }
  return { retries, baseDelayMs, maxDelayMs };
}

function positiveMs(path: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > MAX_TIMER_MS) {
    throw new ValidationError(path, `must be a number of milliseconds from ${min} to ${MAX_TIMER_MS}, got ${String(value)}`);
  }
  return value;
}

function resolveUserAgent(value: unknown): string {
  if (value === undefined) return DEFAULT_USER_AGENT;
  // Header values are Latin-1 without control characters; fetch would throw a bare TypeError otherwise.
  if (typeof value !== 'string' || value.trim() === '' || !/^[\t\x20-\x7e\x80-\xff]+$/.test(value)) {
    throw new ValidationError('userAgent', 'must be a non-empty Latin-1 string without control characters');
  }
  return value;
}

function optionalFunction<F>(path: string, value: F | undefined): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    throw new ValidationError(path, `must be a function, got ${typeof value}`);
  }
  return value;
}

/**
 * The `Authorization` header value for the requester's credentials, validating them first so a bad
 * setting fails at construction with a message naming it, not later as a vague 401.
 *
 * @example
 * authorizationHeader({ kind: 'bearer', token: 'tok' })                  // 'Bearer tok'
 * authorizationHeader({ kind: 'basic', user: 'me@x.io', password: 'k' }) // 'Basic bWVAeC5pbzpr'
 */
export function authorizationHeader(auth: RequesterAuth): string {
  if (auth === null || typeof auth !== 'object') {
    throw new ValidationError('auth', "expected { kind: 'bearer', token } or { kind: 'basic', user, password }");
  }
  if (auth.kind === 'bearer') {
    assertCredential('auth.token', auth.token, 'the messaging token (MAILROOM_TOKEN)');
    // Unlike Basic credentials the token goes on the wire verbatim, so it must be a valid header value.
    if (!/^[\x21-\x7e]+$/.test(auth.token)) {
      throw new ValidationError(
        'auth.token',
        'must be printable ASCII without spaces; check that the whole token was copied and nothing else',
      );
    }
    return `Bearer ${auth.token}`;
  }
  if (auth.kind === 'basic') {
    assertCredential('auth.user', auth.user, 'the account e-mail (MAILROOM_MANAGEMENT_USER)');
    assertCredential('auth.password', auth.password, 'the management API key (MAILROOM_MANAGEMENT_PASSWORD)');
    // RFC 7617: the first ':' ends the user-id, so a user containing one cannot be expressed.
    if (auth.user.includes(':')) throw new ValidationError('auth.user', 'must not contain ":" (HTTP Basic cannot carry it)');
    return `Basic ${base64Utf8(`${auth.user}:${auth.password}`)}`;
  }
  throw new ValidationError('auth.kind', `must be 'bearer' or 'basic', got ${JSON.stringify((auth as { kind: unknown }).kind)}`);
}

function assertCredential(path: string, value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || value === '') {
    throw new ValidationError(path, `is required: set ${what}`);
  }
  // A trailing newline from a copied secret or an env file is the usual culprit; fetch would reject
  // it anyway, with a message that names neither the option nor the cause.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  if (value !== value.trim() || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ValidationError(path, 'contains leading/trailing whitespace or a control character; check how the secret was copied');
  }
}

/**
 * Base64 of the UTF-8 bytes of `text`, with `btoa` so it works where `node:buffer` does not
 * (`btoa` alone only takes Latin-1 and would throw on, say, an e-mail with a non-ASCII character).
 *
 * @example base64Utf8('é') // 'w6k='
 */
export function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
