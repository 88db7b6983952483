import { MailroomError } from './mailroom-error';
import { ValidationError } from './validation-error';

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
