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
