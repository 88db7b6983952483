import { MailroomError } from './mailroom-error';

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
