import type { Requester } from '../http/requester-options';

// The one thing every messaging resource module takes, in a module of its own so that they need not
// import the client that imports them all.

/** What every messaging resource function needs: one transport and the resolved settings. */
export interface MessagingContext {
  transport: Requester;
  headerPrefix: string;
  /** Public base URL of the receiving app; `send(def, ...)` resolves `def.path` against it. */
  appUrl: string | undefined;
}
