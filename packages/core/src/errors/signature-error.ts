import { MailroomError } from './mailroom-error';

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
  | 'no-key';

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
