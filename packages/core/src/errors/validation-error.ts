import { MailroomError } from './mailroom-error';

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
