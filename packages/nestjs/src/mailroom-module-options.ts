import type { ManagementClientOptions, MessagingClientOptions, ReceiverOptions } from '@mailroom/core';

/** Requester settings of the messaging client; its identity settings sit at the top level. */
export type MessagingTransportOptions = Omit<MessagingClientOptions, 'baseUrl' | 'token' | 'appUrl' | 'headerPrefix' | 'env'>;

/**
 * Settings of `MailroomModule`: the receiver's (signing keys, header prefix, issuer, `publicUrl`,
 * body limit...), the messaging client's, and optionally the management client's. Every setting
 * falls back to its `MAILROOM_*` variable, read from `env` (default `process.env`).
 */
export interface MailroomModuleOptions extends ReceiverOptions {
  /** Messaging base URL. Env: `MAILROOM_URL`. */
  baseUrl?: string;
  /** Messaging token. Env: `MAILROOM_TOKEN`. */
  token?: string;
  /** Public base URL of this app, for `client.send(definition, ...)`. Env: `MAILROOM_APP_URL`. */
  appUrl?: string;
  /** Requester settings of the messaging client (fetch, retry, timeoutMs, userAgent). */
  messaging?: MessagingTransportOptions;
  /**
   * Management client settings. Given (even `{}`, to read `MAILROOM_MANAGEMENT_*`), the client is
   * created at start-up and a missing setting fails the start. Left out, the client is created only
   * when its variables are set.
   */
  management?: ManagementClientOptions;
}

/** Options known before the async factory runs. */
export interface MailroomModuleExtras {
  /** Register the module globally, so feature modules need not import it. Default `false`. */
  isGlobal?: boolean;
}
