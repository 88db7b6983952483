import { MailroomError } from './mailroom-error';

/** The request never got an HTTP answer: connection refused or reset, DNS failure, or our timeout. */
export class NetworkError extends MailroomError {
  override name = 'NetworkError';
  readonly method: string;
  readonly url: string;
  readonly timedOut: boolean;

  constructor(init: { method: string; url: string; timedOut: boolean; cause?: unknown }) {
    const what = init.timedOut ? 'timed out' : 'could not reach the service';
    super('NETWORK', `${init.method} ${init.url} ${what}. Check the base URL and that the service is up.`, {
      cause: init.cause,
    });
    this.method = init.method;
    this.url = init.url;
    this.timedOut = init.timedOut;
  }
}
