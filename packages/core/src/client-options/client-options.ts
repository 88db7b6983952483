import type { Environment } from '../config/env-variables';
import type { TransportOptions } from '../http';

/** Transport settings both clients accept; `sleep`, `random` and `now` exist so tests never wait. */
export type SharedClientOptions = Pick<TransportOptions, 'fetch' | 'timeoutMs' | 'retry' | 'userAgent' | 'sleep' | 'random' | 'now'> & {
  /** Where `MAILROOM_*` variables are read from. Default `process.env` (empty on edge runtimes). */
  env?: Environment;
};

/** Picks only the transport settings that were given, so `undefined` never overrides a default. */
export function transportSettings(options: SharedClientOptions): Partial<TransportOptions> {
  const out: Partial<TransportOptions> = {};
  if (options.fetch !== undefined) out.fetch = options.fetch;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  if (options.retry !== undefined) out.retry = options.retry;
  if (options.userAgent !== undefined) out.userAgent = options.userAgent;
  if (options.sleep !== undefined) out.sleep = options.sleep;
  if (options.random !== undefined) out.random = options.random;
  if (options.now !== undefined) out.now = options.now;
  return out;
}
