import { MailroomError } from './mailroom-error';

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
