import type { HttpTransport } from './http-transport';

/** The methods the service's interfaces use. HEAD and OPTIONS are never needed. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How the transport authenticates: the messaging interface takes a Bearer token, the management
 * interface HTTP Basic with the account e-mail and the management API key.
 */
export type TransportAuth = { kind: 'bearer'; token: string } | { kind: 'basic'; user: string; password: string };

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

export interface TransportOptions {
  /** Absolute http(s) URL; a path prefix such as `https://h/v2` is kept. No query, fragment or credentials. */
  baseUrl: string;
  auth: TransportAuth;
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
  /** Clock in Unix milliseconds, used to turn rate-limit reset times into waits. Default `Date.now`. */
  now?: () => number;
}

/** A query value; `undefined` drops the parameter so callers can pass optional filters as they are. */
export type QueryValue = string | number | boolean | undefined;

/**
 * One request. `path` is either
 * - an array of RAW segments, each percent-encoded by the transport (`['v2', 'topics', name]`: a
 *   name holding `/`, `?` or `#` stays one segment), or
 * - a string taken as an already-encoded path whose `/` separate segments (`'v2/dlq'`), for fixed
 *   prefixes written in code.
 * Either form is appended to the base URL's own path; leading and trailing slashes do not matter.
 */
export interface RequestSpec {
  method: HttpMethod;
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
}

/** A 2xx answer. `text` is the whole body ('' when empty); `url` is the URL that was requested. */
export interface TransportResponse {
  status: number;
  readonly headers: Headers;
  text: string;
  url: string;
}

/**
 * Turns a decoded JSON value into the caller's type, throwing `ResponseValidationError` when it does not
 * fit. `value` is `undefined` when the body was empty.
 */
export type ParseResponse<T> = (value: unknown, url: string) => T;

export interface Transport {
  /** Sends the request (with retries when safe) and resolves with a 2xx answer, or throws a typed error. */
  request(spec: RequestSpec): Promise<TransportResponse>;
  /** `request`, then `JSON.parse` of the body (empty body: `undefined`) handed to `parse`. */
  requestJson<T>(spec: RequestSpec, parse: ParseResponse<T>): Promise<T>;
}
