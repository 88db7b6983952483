import { ApiError, AuthError, NetworkError, NotFoundError, PlanLimitError, RateLimitError, type RateLimitKind } from '../errors';

/**
 * The default `sleep`: a timer that is cleared when `signal` aborts, so an aborted request does not
 * keep the process alive until the backoff would have ended.
 *
 * @example await defaultSleep(250)
 */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Runs `sleep` but settles as soon as `signal` aborts, rejecting with its reason. An injected sleep may
 * ignore the signal; the race makes sure the caller's abort is still prompt.
 */
export async function sleepUnlessAborted(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
    signal.throwIfAborted();
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/** The resolved retry settings. */
export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * "Full jitter" exponential backoff: a uniform wait in [0, min(max, base * 2^retry)). Jitter spreads
 * the retries of many clients hit by the same outage instead of having them return in lock-step.
 * `retry` is 0 for the first retry.
 *
 * @example backoffDelay(2, { retries: 3, baseDelayMs: 500, maxDelayMs: 10_000 }, () => 0.5) // 1000
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  // Clamp so a custom random outside [0, 1) cannot produce a negative or oversized wait.
  const fraction = Math.min(Math.max(random(), 0), 1);
  return Math.floor(ceiling * fraction);
}

/** What a 429's headers say about the limit that was hit. */
export interface RateLimitInfo {
  kind: RateLimitKind;
  limit?: number;
  remaining?: number;
  reset?: Date;
}

const FAMILIES = { daily: 'RateLimit', burst: 'Burst-RateLimit' } as const;

// Below this a reset cannot be a Unix timestamp in seconds (it would be before 2001-09-09), so it is
// read as "seconds from now", the form of the IETF RateLimit draft. At or above 1e12 it can only be
// milliseconds (in seconds it would be year 33658).
const SECONDS_EPOCH_FLOOR = 1e9;
const MILLISECONDS_EPOCH_FLOOR = 1e12;

/**
 * Reads `RateLimit-Limit/-Remaining/-Reset` (the daily limit) or `Burst-RateLimit-*` (the per-second
 * one). The real service sends both resets as Unix seconds; see `parseResetTime` for the other forms.
 * When both families are present, the exhausted one (remaining 0) wins, the burst one first, since
 * that is the limit the 429 is about.
 *
 * @example
 * parseRateLimit(new Headers({ 'RateLimit-Limit': '1000', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '1767225600' }))
 * // { kind: 'daily', limit: 1000, remaining: 0, reset: new Date('2026-01-01T00:00:00Z') }
 */
export function parseRateLimit(headers: Headers, now: number = Date.now()): RateLimitInfo {
  const burst = readFamily(headers, FAMILIES.burst, now);
  const daily = readFamily(headers, FAMILIES.daily, now);
  if (burst && burst.remaining === 0) return { kind: 'burst', ...burst };
  if (daily && daily.remaining === 0) return { kind: 'daily', ...daily };
  if (daily) return { kind: 'daily', ...daily };
  if (burst) return { kind: 'burst', ...burst };
  return { kind: 'unknown' };
}

function readFamily(headers: Headers, prefix: string, now: number): Omit<RateLimitInfo, 'kind'> | undefined {
  const limit = readCount(headers.get(`${prefix}-Limit`));
  const remaining = readCount(headers.get(`${prefix}-Remaining`));
  const resetValue = readCount(headers.get(`${prefix}-Reset`));
  if (limit === undefined && remaining === undefined && resetValue === undefined) return undefined;
  const info: Omit<RateLimitInfo, 'kind'> = {};
  if (limit !== undefined) info.limit = limit;
  if (remaining !== undefined) info.remaining = remaining;
  if (resetValue !== undefined) info.reset = parseResetTime(resetValue, now);
  return info;
}

/**
 * A reset header value as a date: Unix seconds (what the service sends), or, when smaller than 1e9,
 * seconds from `now`; values of 1e12 and more are taken as Unix milliseconds.
 *
 * @example parseResetTime(30, 1_000_000) // new Date(1_030_000)
 */
export function parseResetTime(value: number, now: number): Date {
  if (value >= MILLISECONDS_EPOCH_FLOOR) return new Date(value);
  if (value >= SECONDS_EPOCH_FLOOR) return new Date(value * 1000);
  return new Date(now + value * 1000);
}

function readCount(raw: string | null): number | undefined {
  if (raw === null) return undefined;
  const text = raw.trim();
  // Number('') is 0, so an empty header would otherwise read as "0 remaining".
  if (!/^\d+(?:\.\d+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** A non-2xx answer, as read by one attempt. */
export interface ErrorResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

const MAX_MESSAGE_CHARS = 500;

/**
 * The typed error for a non-2xx answer: 401/403 `AuthError`, 404 `NotFoundError`, 412 `PlanLimitError`,
 * 429 `RateLimitError` (with what its headers say about the limit), anything else `ApiError`.
 *
 * @example
 * mapErrorResponse({ status: 404, statusText: 'Not Found', headers: new Headers(), text: '{"error":"topic t not found"}' },
 *   { method: 'GET', url: 'http://h/v2/topics/t' })
 * // NotFoundError: GET http://h/v2/topics/t failed with 404: topic t not found
 */
export function mapErrorResponse(
  response: ErrorResponse,
  request: { method: string; url: string; now?: number; credentials?: 'messaging' | 'management' },
): ApiError {
  const init = {
    status: response.status,
    serviceMessage: errorMessageFromBody(response.text, response.status, response.statusText),
    method: request.method,
    url: request.url,
  };
  switch (response.status) {
    case 401:
    case 403:
      return new AuthError({ ...init, credentials: request.credentials });
    case 404:
      return new NotFoundError(init);
    case 412:
      return new PlanLimitError(init);
    case 429: {
      const now = request.now ?? Date.now();
      const rate = parseRateLimit(response.headers, now);
      // Without rate-limit headers, `Retry-After` still says when to come back.
      const after = rate.reset === undefined ? retryAfterMs(response.headers, now) : undefined;
      return new RateLimitError(init, after === undefined ? rate : { ...rate, reset: new Date(now + after) });
    }
    default:
      return new ApiError(init);
  }
}

/**
 * The service's message: `error` of a `{"error": "..."}` body; otherwise the body text (cut to 500
 * characters, since a proxy's HTML error page is no use in full); otherwise the status text.
 *
 * @example errorMessageFromBody('{"error":"invalid destination url"}', 400, 'Bad Request') // 'invalid destination url'
 */
export function errorMessageFromBody(text: string, status: number, statusText: string): string {
  const fromJson = jsonErrorField(text);
  if (fromJson !== undefined) return fromJson;
  const trimmed = text.trim();
  if (trimmed !== '') return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}...` : trimmed;
  return statusText.trim() || `HTTP ${status}`;
}

function jsonErrorField(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'string' && error !== '' ? error : undefined;
}

/**
 * Milliseconds to wait according to a `Retry-After` value, either delta-seconds or an HTTP date;
 * `undefined` when absent or unreadable. A date in the past gives 0. Shared by the client (a 429 or
 * 503 from the service) and the dev server (a destination asking to be retried later).
 *
 * @example parseRetryAfter('2', Date.now()) // 2000
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const raw = value?.trim();
  if (!raw) return undefined;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  // An HTTP date always names a month; without this, V8's lenient Date.parse reads '-1' as a year.
  if (!/[a-z]/i.test(raw)) return undefined;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** {@link parseRetryAfter} of a response's `Retry-After` header. */
export function retryAfterMs(headers: Headers, now: number): number | undefined {
  return parseRetryAfter(headers.get('Retry-After'), now);
}

/** Statuses that say "try again later" rather than "this request is wrong". */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504]);

/**
 * Whether a failure is worth another attempt: a network error, a 429 or a 500/502/503/504. Other 4xx
 * would fail the same way again.
 *
 * @example isRetryableError(new NetworkError({ method: 'GET', url: 'http://h', timedOut: true })) // true
 */
export function isRetryableError(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && RETRYABLE_STATUSES.has(error.status);
}

/**
 * How long to wait before retry number `retry` (0 for the first). A server hint wins over backoff:
 * `Retry-After` (in ms, already read from the answer), else a 429's rate-limit reset. Returns
 * `undefined` when the server asks for more than `maxDelayMs`: retrying sooner would only be refused
 * again, so the error is better thrown now (its `reset` tells the caller when to come back).
 *
 * @example retryDelay(new NetworkError({ method: 'GET', url: 'http://h', timedOut: false }), undefined, 0, policy, () => 0.5, Date.now())
 */
export function retryDelay(
  error: unknown,
  retryAfter: number | undefined,
  retry: number,
  policy: RetryPolicy,
  random: () => number,
  now: number,
): number | undefined {
  const hint = serverHint(error, retryAfter, now);
  if (hint === undefined || hint <= 0) return backoffDelay(retry, policy, random);
  return hint > policy.maxDelayMs ? undefined : hint;
}

function serverHint(error: unknown, retryAfter: number | undefined, now: number): number | undefined {
  if (retryAfter !== undefined) return retryAfter;
  if (error instanceof RateLimitError && error.reset) return error.reset.getTime() - now;
  return undefined;
}
