import type { Requester } from '../http/requester-options';
import type { MessageTracing } from '../tracing/hooks';

// The one thing every messaging resource module takes, in a module of its own so that they need not
// import the client that imports them all.

/** What every messaging resource function needs: the requester that talks to the service, and the resolved settings. */
export interface ServiceConnection {
  requester: Requester;
  headerPrefix: string;
  /** Public base URL of the receiving app; `send(def, ...)` resolves `def.path` against it. */
  appUrl: string | undefined;
  /** Producer spans around sends, when the client was given `tracing`. */
  tracing: MessageTracing | undefined;
}
