import { MailroomError } from './mailroom-error';

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
