import type { Transport } from '../http';

/** What every messaging resource function needs: one transport and the resolved settings. */
export interface MessagingContext {
  transport: Transport;
  headerPrefix: string;
  /** Public base URL of the receiving app; `send(def, ...)` resolves `def.path` against it. */
  appUrl: string | undefined;
}
