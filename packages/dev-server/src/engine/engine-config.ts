/** The settings every part of the engine reads. */
export interface EngineConfig {
  headerPrefix: string;
  issuer: string;
  /** Every delivery is signed with it; the next key is only printed, for receivers. */
  currentSigningKey: string;
  /** Multiplies every wait (delay, not-before, backoff, Retry-After, callback delays). */
  timeScale: number;
  /** The plan's `max_global_parallelism`. */
  maxInFlight: number;
  /** The plan's timeout in seconds, for callbacks that set none. */
  planTimeoutSeconds: number;
  /** The region deliveries name in `<P>-Region` (`eu-central-1`); none by default. */
  region: string | undefined;
  now: () => number;
  /** Timers do not keep the process alive (dev mode's in-process server: see `exitWhenIdle`). */
  unrefTimers: boolean;
}

/** Sent as `User-Agent` on every delivery, so a destination can tell dev traffic apart. */
export const DELIVERY_USER_AGENT = 'mailroom-dev-server';
