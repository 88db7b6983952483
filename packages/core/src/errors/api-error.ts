import { MailroomError } from './mailroom-error';

/** The service answered with an error status. `message` is the service's own `{ "error": ... }` text. */
export class ApiError extends MailroomError {
  override name = 'ApiError';
  readonly status: number;
  /** The service's error text, without our prefix. */
  readonly serviceMessage: string;
  readonly method: string;
  readonly url: string;

  constructor(init: { status: number; serviceMessage: string; method: string; url: string }, code = 'API') {
    super(code, `${init.method} ${redactUrl(init.url)} failed with ${init.status}: ${init.serviceMessage}`);
    this.status = init.status;
    this.serviceMessage = init.serviceMessage;
    this.method = init.method;
    this.url = redactUrl(init.url);
  }
}

/** 401 or 403: the token or management credentials are wrong, or a read-only token tried to write. */
export class AuthError extends ApiError {
  override name = 'AuthError';
  constructor(init: { status: number; serviceMessage: string; method: string; url: string }) {
    super(init, 'AUTH');
    const hint =
      init.status === 403
        ? ' The credentials are valid but may not do this (a read-only token may only GET).'
        : ' Check MAILROOM_TOKEN (messaging) or MAILROOM_MANAGEMENT_USER / MAILROOM_MANAGEMENT_PASSWORD (management).';
    this.message += hint;
  }
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
