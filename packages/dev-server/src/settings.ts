import type { Environment } from '@mailroom/core';
import { ENV_VARIABLES, MAX_ISSUER_LENGTH, PLAN_LIMITS, resolveHeaderPrefix } from '@mailroom/core/internal-protocol';
import type { FaultInput } from './state/records';
import type { DevServerEventListener, LogOption } from './events';

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
   * Faults on demand in force from the start (`--fault`): duplicate deliveries, lost answers, 429/503
   * to senders, a skewed signing clock. One already in force from `dataDir` is not set twice.
   */
  faults?: FaultInput[];
  /**
   * Let the process exit while no message is pending: the server, its connections and its timers
   * then keep the process alive only until every accepted message is delivered or dead-lettered.
   * Dev mode's in-process server uses it, so a script that sent its messages can end. Default `false`.
   */
  exitWhenIdle?: boolean;
  /**
   * Export a span for each attempt of a traced message over OTLP/HTTP to this collector, as
   * `OTEL_EXPORTER_OTLP_ENDPOINT` names one (`http://localhost:4318`; `/v1/traces` is added).
   * Default: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (the whole URL), else `OTEL_EXPORTER_OTLP_ENDPOINT`, else none.
   */
  otlpEndpoint?: string;
}

/** The options with their defaults applied and checked; the three without a default stay `undefined`. */
export type ResolvedOptions = Required<Omit<DevServerOptions, 'dataDir' | 'region' | 'onEvent' | 'otlpEndpoint'>> & {
  [K in 'dataDir' | 'region' | 'onEvent']: DevServerOptions[K];
} & {
  /** Where attempt spans go: the whole `/v1/traces` URL, or `undefined` to export none. */
  otlpTracesUrl: string | undefined;
};

/** Default port, the same as the service's own local server uses, so examples need no change. */
export const DEFAULT_PORT = 8288;

/** Where a running server answers MCP (docs/mcp.md). */
export const MCP_PATH = '/mcp';

/** Where the printed `MAILROOM_APP_URL` points unless `--app-url`, the variable or the project says otherwise. */
export const DEFAULT_APP_URL = 'http://localhost:3000';

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
    faults: checkFaultList(options.faults),
    otlpTracesUrl: otlpTracesUrl(options.otlpEndpoint, env),
  };
}

/** The OTLP/HTTP traces URL: the option or `OTEL_EXPORTER_OTLP_ENDPOINT` plus `/v1/traces`, or the traces variable whole. */
function otlpTracesUrl(endpoint: unknown, env: Environment): string | undefined {
  const base = endpoint ?? (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? undefined : env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const url = base === undefined ? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT : `${String(base).replace(/\/+$/, '')}/v1/traces`;
  if (url === undefined || url === '') return undefined;
  if (typeof base !== 'string' && base !== undefined) throw new TypeError(`otlpEndpoint must be a URL, got ${JSON.stringify(base)}`);
  if (!/^https?:\/\/[^/\s]+/.test(url)) {
    throw new TypeError(
      `otlpEndpoint must be an http(s) URL of an OTLP/HTTP collector such as http://localhost:4318, got ${JSON.stringify(base ?? url)}`,
    );
  }
  return url;
}

/** Each fault is checked by the service's own rules when it is set; here, only that it is a list. */
function checkFaultList(faults: unknown): FaultInput[] {
  if (faults === undefined) return [];
  if (!Array.isArray(faults)) throw new TypeError(`faults must be an array of { kind, to?, times?, ... }, got ${JSON.stringify(faults)}`);
  return faults as FaultInput[];
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
  /** The plan's `max_message_size`: a run's history up to this size rides in the delivery even with `LazyFetch`. */
  maxMessageSize: number;
  /** The region deliveries name in `<P>-Region` (`eu-central-1`); none by default. */
  region: string | undefined;
  now: () => number;
  /** Timers do not keep the process alive (dev mode's in-process server: see `exitWhenIdle`). */
  unrefTimers: boolean;
}

/** The two plan categories a messaging user can have (spec: `type`). */
export type PlanName = 'free' | 'paid';

/** Every limit the spec lists on a messaging user, plus the plan's default retry count. */
export interface PlanLimits {
  readonly type: PlanName;
  /** Retries when an enqueue gives no `<P>-Retries` (spec: free 3, paid 5). */
  readonly defaultRetries: number;
  readonly max_message_size: number;
  readonly max_requests_per_day: number;
  readonly max_requests_per_day_hard: number;
  readonly max_endpoints_per_topic: number;
  readonly max_requests_per_second: number;
  readonly max_dlq_size: number;
  readonly max_retries: number;
  readonly max_topics: number;
  readonly max_schedules: number;
  readonly max_events_size: number;
  readonly max_dlq_retention_time_milis: number;
  readonly max_delay: number;
  readonly max_parallelism: number;
  readonly max_global_parallelism: number;
  readonly max_queues: number;
  readonly max_bandwidth_per_second: number;
  /** Seconds: the longest a destination may take to answer one attempt. */
  readonly timeout: number;
  readonly budget: number;
  readonly prod_pack_enabled: boolean;
}

/** The limits of each plan; `GET /messaging/users` answers them and the enqueue enforces them (core's one table). */
export const PLANS: Readonly<Record<PlanName, PlanLimits>> = PLAN_LIMITS;
