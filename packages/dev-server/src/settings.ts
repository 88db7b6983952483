import type { Environment } from '@mailroom/core';
import { ENV_VARIABLES, MAX_ISSUER_LENGTH, resolveHeaderPrefix } from '@mailroom/core/protocol';
import type { DevServerEventListener } from './events';
import type { LogOption } from './log';
import type { PlanName } from './plans';

/** Settings of {@link startDevServer}; every one is optional. */
export interface DevServerOptions {
  /** Port of both interfaces. Default 8288; 0 picks a free one (tests). */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /**
   * Host names requests may use besides loopback names and IP addresses (e.g. `host.docker.internal`).
   * Anything else is refused, so a web page cannot reach the server through DNS rebinding.
   */
  allowedHosts?: string[];
  /** Keeps state (and generated credentials) here across restarts. Default: in memory, fixed credentials. */
  dataDir?: string;
  /**
   * Start even when records in the middle of `dataDir`'s journal are damaged: skip them, keep every
   * intact record, and save the skipped bytes to `mailroom.jsonl.damaged`. Default `false` (refuse to start, saying where).
   */
  repairJournal?: boolean;
  /**
   * Vendor header prefix of every header read and sent. Default: `MAILROOM_HEADER_PREFIX`, else
   * `Service` (the real service uses `Upstash`), so the server agrees with an app's `.env`.
   */
  headerPrefix?: string;
  /**
   * `iss` claim of delivery signatures. Default: `MAILROOM_ISSUER`, else `Service` (the real service
   * uses `Upstash`), so the server agrees with an app's `.env`.
   */
  issuer?: string;
  /** Plan whose limits the server enforces and reports. Default `free`. */
  plan?: PlanName;
  /**
   * Multiplies every wait: delays, not-before, retry backoff, `Retry-After`, callback delays. Default 1;
   * tests use e.g. 0.001 so a one-second backoff takes one millisecond. Timeouts are not scaled.
   */
  timeScale?: number;
  /** `text` (default) one readable line per event, `json` JSON lines, `silent`, or your own function. */
  log?: LogOption;
  /**
   * Play a region of the service: deliveries carry `<Prefix>-Region: <region>` (`eu-central-1`), so a
   * receiver picks that region's keys. Default: none.
   */
  region?: string;
  /** Clock in Unix milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Called with every event, whatever `log` is (tests wait on these instead of sleeping). */
  onEvent?: DevServerEventListener;
  /**
   * Let the process exit while no message is pending: the server, its connections and its timers
   * then keep the process alive only until every accepted message is delivered or dead-lettered.
   * Dev mode's in-process server uses it, so a script that sent its messages can end. Default `false`.
   */
  exitWhenIdle?: boolean;
}

/** The options with their defaults applied and checked; the three without a default stay `undefined`. */
export type ResolvedOptions = Required<Omit<DevServerOptions, 'dataDir' | 'region' | 'onEvent'>> & {
  [K in 'dataDir' | 'region' | 'onEvent']: DevServerOptions[K];
};

/** Default port, the same as the service's own local server uses, so examples need no change. */
export const DEFAULT_PORT = 8288;

/** Applies defaults and refuses bad values with a message naming the option. */
export function resolveOptions(options: DevServerOptions = {}, env: Environment = process.env): ResolvedOptions {
  const port = options.port ?? DEFAULT_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new TypeError(`port must be a whole number from 0 to 65535, got ${String(port)}`);
  const timeScale = options.timeScale ?? 1;
  if (typeof timeScale !== 'number' || !Number.isFinite(timeScale) || timeScale < 0) {
    throw new TypeError(`timeScale must be a number >= 0, got ${String(timeScale)}`);
  }
  const plan = options.plan ?? 'free';
  if (plan !== 'free' && plan !== 'paid') throw new TypeError(`plan must be "free" or "paid", got ${JSON.stringify(plan)}`);
  const issuer = options.issuer ?? (env[ENV_VARIABLES.issuer]?.trim() || 'Service');
  if (typeof issuer !== 'string' || issuer === '' || issuer.length > MAX_ISSUER_LENGTH)
    throw new TypeError(`issuer must be a non-empty string of at most ${MAX_ISSUER_LENGTH} characters`);
  const log = options.log ?? 'text';
  if (typeof log !== 'function' && !['text', 'json', 'silent'].includes(log))
    throw new TypeError(`log must be "text", "json", "silent" or a function, got ${JSON.stringify(log)}`);
  if (options.dataDir !== undefined && (typeof options.dataDir !== 'string' || options.dataDir === ''))
    throw new TypeError('dataDir must be a non-empty path');
  const region = options.region;
  if (region !== undefined && (typeof region !== 'string' || !/^[a-z]+(?:-[a-z]+)*-\d+$/.test(region))) {
    throw new TypeError(`region must be a region name such as eu-central-1 or us-east-1, got ${JSON.stringify(region)}`);
  }
  return {
    port,
    host: options.host ?? '127.0.0.1',
    allowedHosts: checkHosts(options.allowedHosts),
    dataDir: options.dataDir,
    repairJournal: options.repairJournal === true,
    headerPrefix: resolveHeaderPrefix(options.headerPrefix, env),
    issuer,
    plan,
    timeScale,
    log,
    region,
    now: options.now ?? Date.now,
    onEvent: options.onEvent,
    exitWhenIdle: options.exitWhenIdle === true,
  };
}

function checkHosts(hosts: unknown): string[] {
  if (hosts === undefined) return [];
  if (!Array.isArray(hosts) || !hosts.every((host) => typeof host === 'string' && /^[A-Za-z0-9.-]+$/.test(host))) {
    throw new TypeError(`allowedHosts must be an array of host names such as "host.docker.internal", got ${JSON.stringify(hosts)}`);
  }
  return hosts;
}

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
