import { ValidationError } from '../errors/validation-error';
import { defaultSleep } from './abortable-sleep';
import { authorizationHeader } from './auth-header';
import type { RetryPolicy } from './backoff';
import { createFetchTransport } from './fetch-transport';
import type { HttpTransport } from './http-transport';
import type { TransportOptions } from './transport-types';

/** `TransportOptions` after validation, with defaults filled in. */
export interface ResolvedTransportOptions {
  /** origin + path prefix, without trailing slash. */
  baseUrl: string;
  authorization: string;
  /** Sends one attempt: the `transport` option, or the fetch-based default. */
  http: HttpTransport;
  timeoutMs: number;
  retry: RetryPolicy;
  userAgent: string;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  now: () => number;
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 500, maxDelayMs: 10_000 };
export const DEFAULT_USER_AGENT = '@mailroom/core';

// setTimeout fires at once for anything above 2^31 - 1 ms (about 24.8 days), which would turn a
// generous timeout into an immediate one.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Validates transport options and fills in defaults; every problem is a `ValidationError` naming the
 * option.
 *
 * @example resolveTransportOptions({ baseUrl: 'http://127.0.0.1:8288', auth: { kind: 'bearer', token: 't' } })
 */
export function resolveTransportOptions(options: TransportOptions): ResolvedTransportOptions {
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('options', 'expected an object with at least baseUrl and auth');
  }
  return {
    baseUrl: normaliseBaseUrl(options.baseUrl),
    authorization: authorizationHeader(options.auth),
    http: resolveHttpTransport(options.fetch, options.transport),
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
