// One hierarchy under MailroomError. Every class names itself with a literal: a minifier renames
// classes, and apps log and compare `err.name`.

/**
 * Base class of every error Mailroom throws, so an application can catch them all with one
 * `instanceof MailroomError` while still telling the kinds apart by subclass or by `code`.
 */
export class MailroomError extends Error {
  override name = 'MailroomError';
  /** A stable, machine-readable name of the kind of failure. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** The service answered with an error status. `message` is the service's own `{ "error": ... }` text. */
export class ApiError extends MailroomError {
  override name = 'ApiError';
  readonly status: number;
  /** The service's error text, without our prefix. */
  readonly serviceMessage: string;
  readonly method: string;
  readonly url: string;

  constructor(init: { status: number; serviceMessage: string; method: string; url: string }, code = 'API') {
    super(code, `${init.method} ${redactUrl(init.url)} failed with ${init.status}: ${sentence(init.serviceMessage)}`);
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.method = init.method;
    this.url = redactUrl(init.url);
  }
}

/** The service's text as a sentence: it often ends without a full stop, and a hint follows it. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** 401 or 403: the token or management credentials are wrong, or a read-only token tried to write. */
export class AuthError extends ApiError {
  override name = 'AuthError';
  constructor(init: {
    status: number;
    serviceMessage: string;
    method: string;
    url: string;
    credentials?: 'messaging' | 'management' | undefined;
  }) {
    super(init, 'AUTH');
    this.message += ` ${authHint(init.status, init.credentials)}`;
  }
}

function authHint(status: number, credentials: 'messaging' | 'management' | undefined): string {
  if (status === 403) {
    return credentials === 'management'
      ? 'The credentials are valid but may not do this.'
      : 'The token is valid but may not do this: a read-only token may only GET, and never read the signing keys.';
  }
  if (credentials === 'messaging') return 'Check the token (MAILROOM_TOKEN).';
  if (credentials === 'management') return 'Check the management credentials (MAILROOM_MANAGEMENT_USER, MAILROOM_MANAGEMENT_PASSWORD).';
  return 'Check MAILROOM_TOKEN (messaging) or MAILROOM_MANAGEMENT_USER and MAILROOM_MANAGEMENT_PASSWORD (management).';
}

/** 404: the URL group, DLQ entry, user or index does not exist. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(init: { status: number; serviceMessage: string; method: string; url: string }) {
    super(init, 'NOT_FOUND');
  }
}

/** 412: a plan limit was exceeded (for example retries above the plan's `max_retries`). */
export class PlanLimitError extends ApiError {
  override name = 'PlanLimitError';
  constructor(init: { status: number; serviceMessage: string; method: string; url: string }) {
    super(init, 'PLAN_LIMIT');
  }
}

/** Which rate limit a 429 came from: the daily one (`RateLimit-*`) or the per-second burst one. */
export type RateLimitKind = 'daily' | 'burst' | 'unknown';

/** 429: rate limited. `reset` is when the limit resets, when the service said so. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  readonly kind: RateLimitKind;
  readonly limit: number | undefined;
  readonly remaining: number | undefined;
  readonly reset: Date | undefined;

  constructor(
    init: { status: number; serviceMessage: string; method: string; url: string },
    rate: { kind: RateLimitKind; limit?: number; remaining?: number; reset?: Date },
  ) {
    super(init, 'RATE_LIMIT');
    this.kind = rate.kind;
    this.limit = rate.limit;
    this.remaining = rate.remaining;
    this.reset = rate.reset;
    if (rate.reset) this.message += ` (resets at ${rate.reset.toISOString()})`;
  }
}

/** Query strings may carry nothing secret today, but never echo credentials embedded in a URL. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]*@/, '//***@');
}

/** The request body is larger than `maxBodyBytes`. Receivers answer 413. */
export class BodyTooLargeError extends MailroomError {
  override name = 'BodyTooLargeError';
  readonly limit: number;

  constructor(limit: number) {
    super('BODY_TOO_LARGE', `The request body exceeds the limit of ${limit} bytes. Raise maxBodyBytes if such messages are expected.`);
    this.limit = limit;
  }
}

/**
 * The raw body is gone: a body parser read the stream before Mailroom could, so the signature cannot
 * be checked over the exact bytes. Receivers answer 500 with `message`, which says how to fix the app.
 */
export class RawBodyUnavailableError extends MailroomError {
  override name = 'RawBodyUnavailableError';
  constructor(message: string) {
    super('RAW_BODY_UNAVAILABLE', message);
  }
}

/** The request stream failed or ended early (client aborted, connection reset). Receivers answer 400. */
export class BodyReadError extends MailroomError {
  override name = 'BodyReadError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('BODY_READ', message, options);
  }
}

/** A required setting is missing or unusable. The message names the option and its variable. */
export class ConfigError extends MailroomError {
  override name = 'ConfigError';
  /** The option name as passed in code, e.g. `token`. */
  readonly option: string;
  /** The environment variable that could supply it, e.g. `MAILROOM_TOKEN`. */
  readonly variable: string | undefined;

  constructor(option: string, variable: string | undefined, message: string) {
    super('CONFIG', message);
    this.option = option;
    this.variable = variable;
  }
}

/**
 * An argument was rejected before any request was made. `path` names the offending option
 * (e.g. `callback.retries`) so the fix is obvious.
 */
export class ValidationError extends MailroomError {
  override name = 'ValidationError';
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }, code = 'VALIDATION') {
    super(code, path ? `${path}: ${message}` : message, options);
    this.path = path;
  }
}

/**
 * Throw from a handler when the message can never succeed (bad data, unknown entity). The receiver
 * answers 489 with `<Prefix>-NonRetryable-Error: true`, so the service moves it to the DLQ at once
 * instead of retrying.
 */
export class NonRetryableError extends MailroomError {
  override name = 'NonRetryableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('NON_RETRYABLE', message, options);
  }
}

/**
 * Throw from a handler to ask the service to retry no earlier than `seconds` from now. The receiver
 * answers with `Retry-After` (the service caps it at one day).
 */
export class RetryAfterError extends MailroomError {
  override name = 'RetryAfterError';
  readonly seconds: number;
  readonly status: number;

  constructor(seconds: number, message = `Retry after ${seconds} seconds`, options?: { status?: number; cause?: unknown }) {
    if (!Number.isFinite(seconds) || seconds < 0) {
      throw new ValidationError('seconds', `RetryAfterError needs a non-negative number of seconds, got ${String(seconds)}`);
    }
    super('RETRY_AFTER', message, options);
    this.seconds = Math.ceil(seconds);
    this.status = options?.status ?? 503;
  }
}

/** The request never got an HTTP answer: connection refused or reset, DNS failure, or our timeout. */
export class NetworkError extends MailroomError {
  override name = 'NetworkError';
  readonly method: string;
  readonly url: string;
  readonly timedOut: boolean;
  /**
   * A write that may have reached the service: it may have been accepted, so sending it again may
   * send it twice. `false` when it never left (refused connection, unknown host) or was a read.
   */
  readonly outcomeUnknown: boolean;

  constructor(init: { method: string; url: string; timedOut: boolean; cause?: unknown; outcomeUnknown?: boolean }) {
    const what = init.timedOut ? 'timed out' : 'could not reach the service';
    const outcome = init.outcomeUnknown
      ? ' Its outcome is unknown: the service may have accepted it, so sending it again may send it twice. Give messages a deduplicationId (a resend is then harmless), or check the logs before resending; a longer timeoutMs helps for large batches.'
      : ' Check the base URL and that the service is up.';
    super('NETWORK', `${init.method} ${init.url} ${what}.${outcome}`, { cause: init.cause });
    this.method = init.method;
    this.url = init.url;
    this.timedOut = init.timedOut;
    this.outcomeUnknown = init.outcomeUnknown === true;
  }
}

/** The request used a method this endpoint does not accept. Receivers answer 405 with `Allow`. */
export class MethodNotAllowedError extends MailroomError {
  override name = 'MethodNotAllowedError';
  readonly allowed: readonly string[];

  constructor(method: string, allowed: readonly string[]) {
    super('METHOD_NOT_ALLOWED', `Method ${method} is not accepted here; use ${allowed.join(' or ')}.`);
    this.allowed = allowed;
  }
}

/**
 * The body says it is JSON but is not. It will never parse, however often it is retried, so receivers
 * answer 489 and the service moves it to the DLQ.
 */
export class InvalidBodyError extends MailroomError {
  override name = 'InvalidBodyError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_BODY', message, options);
  }
}

/**
 * The service answered 200 but the body does not have the documented shape. `field` names the first
 * offending field (e.g. `messages.0.dlqId`) so a drift in the service is easy to report.
 */
export class ResponseValidationError extends MailroomError {
  override name = 'ResponseValidationError';
  readonly field: string;
  readonly url: string;

  constructor(init: { field: string; url: string; reason: string }) {
    super('RESPONSE_SHAPE', `Unexpected response from ${init.url}: field "${init.field || '(root)'}" ${init.reason}`);
    this.field = init.field;
    this.url = init.url;
  }
}

/** A retry-delay expression could not be parsed or evaluated; `position` is the 0-based offset of the fault. */
export class RetryDelaySyntaxError extends ValidationError {
  override name = 'RetryDelaySyntaxError';
  readonly expression: string;
  readonly position: number;

  constructor(expression: string, position: number, reason: string) {
    const shown = expression.length > 120 ? `${expression.slice(0, 117)}...` : expression;
    const caret = position <= 120 ? `\n  ${shown}\n  ${' '.repeat(position)}^` : '';
    super('retryDelay', `${reason} at position ${position} of "${shown}"${caret}`);
    this.expression = expression;
    this.position = position;
  }
}

/** Which check of a signature failed. Never sent to the caller over HTTP: it is for logs and tests. */
export type SignatureFailure =
  | 'missing'
  | 'malformed'
  | 'algorithm'
  | 'bad-signature'
  | 'expired'
  | 'not-yet-valid'
  | 'issuer'
  | 'subject'
  | 'body-hash'
  | 'claims'
  | 'no-key'
  | 'replayed';

/**
 * A `<Prefix>-Signature` did not verify. `reason` says which check failed; when both the current and
 * the next key were tried, `attempts` keeps the reason from each.
 */
export class SignatureError extends MailroomError {
  override name = 'SignatureError';
  readonly reason: SignatureFailure;
  readonly attempts: ReadonlyArray<{ key: 'current' | 'next'; reason: SignatureFailure; detail: string }>;

  constructor(
    reason: SignatureFailure,
    message: string,
    attempts: ReadonlyArray<{ key: 'current' | 'next'; reason: SignatureFailure; detail: string }> = [],
  ) {
    super('SIGNATURE', message);
    this.reason = reason;
    this.attempts = attempts;
  }
}

/**
 * The idempotency store failed (`operation`: claim, renew, complete or release); `cause` is its own
 * error. A delivery it stopped is answered 503, so the service retries it, and the handler never ran.
 */
export class IdempotencyStoreError extends MailroomError {
  override name = 'IdempotencyStoreError';
  readonly operation: string;

  constructor(operation: string, cause: unknown) {
    super(
      'IDEMPOTENCY_STORE',
      `the idempotency store failed to ${operation}: ${cause instanceof Error ? cause.message : describeValue(cause)}; check that the store (Redis, Postgres) is reachable`,
      { cause },
    );
    this.operation = operation;
  }
}

/**
 * The one rendering of an offending value for an error message: strings quoted and cut short,
 * numbers, booleans, null and undefined as they are, anything else by kind only, so an error can
 * neither flood a log nor repeat an object's contents (a token, a secret) into it.
 *
 * @example describeValue('x'.repeat(100)) // '"xxxxxxxxx...xxxx..."' (40 characters)
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The one check that a public function got an options object: `what` says which (`an object of
 * receiver options`, `{ url, body, key, ... }`), and the message shows what came instead.
 */
export function expectObject(value: unknown, path: string, what: string): asserts value is object {
  if (value === null || typeof value !== 'object') throw new ValidationError(path, `expected ${what}, got ${describeValue(value)}`);
}
