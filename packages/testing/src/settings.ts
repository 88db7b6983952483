import { ValidationError } from '@mailroom/core';
import type { PlanName } from '@mailroom/dev-server/internal-embedded';
import type { TestApp } from './app';

// A test service's options as a test writes them, and as the service uses them: checked once, with
// the defaults a test should not have to think about.

const DEFAULT_APP_URL = 'http://app.test';

/** How a test service runs. */
export interface TestServiceOptions {
  /** Where deliveries go: the app under test, or the base URL of one already listening. */
  app?: TestApp;
  /**
   * Instead of `app`: builds the app with the service's settings (`env`: its signing keys, token and
   * URLs), for apps that read them when they are created.
   */
  createApp?: (env: Readonly<Record<string, string>>) => TestApp | Promise<TestApp>;
  /**
   * The base URL the code under test sends to (`appUrl` of its client, `publicUrl` of its receiver):
   * deliveries to it reach `app` in-process. Default: `app` when it is a URL, else `http://app.test`.
   */
  appUrl?: string;
  /** `'virtual'` (default): time moves only with `advance` and `runUntilIdle`. `'real'`: Node's timers. */
  clock?: 'virtual' | 'real';
  /** Where virtual time starts. Default: now. */
  startAt?: Date | number;
  /**
   * Signing keys to sign with instead of the service's own fresh pair: for an app that reads its keys
   * when its modules load (a Next route module), give the ones it reads.
   */
  signingKeys?: { current: string; next: string };
  /** Default `'Service'`, as Mailroom's own default; `'Upstash'` for the vendor's SDKs. */
  headerPrefix?: string;
  /** The signing tokens' issuer. Default: the header prefix. */
  issuer?: string;
  /** Default `'paid'`: its limits stay out of a test's way. */
  plan?: PlanName;
  /**
   * Also serve on 127.0.0.1, port 0, for code that can only reach the service by URL (the vendor's
   * Workflow SDK); `env` then says where. Default: true.
   */
  listen?: boolean;
  /**
   * How Node's global fetch reaches the service's URL while it listens: `'in-process'` (default)
   * answers its calls to the interface without a socket, as the port would; `'network'` leaves fetch
   * alone.
   */
  globalFetch?: 'in-process' | 'network';
  /** Real time to wait for a delivery still being handled before failing the step. Default: 10 s. */
  settleTimeoutMs?: number;
}

/** The options, checked and defaulted. */
export interface Settings {
  appUrl: string;
  virtual: boolean;
  startAt: number;
  headerPrefix: string;
  issuer: string;
  plan: PlanName;
  listen: boolean;
  fetchInProcess: boolean;
  settleTimeoutMs: number;
  signingKeys: { current: string; next: string } | undefined;
}

export function resolveSettings(options: TestServiceOptions): Settings {
  if ((options.app === undefined) === (options.createApp === undefined)) {
    throw new ValidationError('app', 'give either app (the app under test, or its base URL) or createApp (env => app), not both');
  }
  if (options.createApp !== undefined && typeof options.createApp !== 'function')
    throw new ValidationError('createApp', 'expected a function (env) => app');
  const appUrl = options.appUrl ?? (typeof options.app === 'string' ? options.app : DEFAULT_APP_URL);
  if (typeof appUrl !== 'string' || !/^https?:\/\//.test(appUrl) || !URL.canParse(appUrl)) {
    throw new ValidationError('appUrl', `expected an http(s) base URL such as "http://app.test", got ${JSON.stringify(appUrl)}`);
  }
  const clock = options.clock ?? 'virtual';
  if (clock !== 'virtual' && clock !== 'real')
    throw new ValidationError('clock', `expected "virtual" or "real", got ${JSON.stringify(clock)}`);
  const startAt = options.startAt === undefined ? Date.now() : new Date(options.startAt).getTime();
  if (!Number.isFinite(startAt))
    throw new ValidationError('startAt', `expected a Date or ms since the epoch, got ${String(options.startAt)}`);
  const headerPrefix = options.headerPrefix ?? 'Service';
  if (typeof headerPrefix !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(headerPrefix)) {
    throw new ValidationError(
      'headerPrefix',
      `expected letters and digits such as "Service" or "Upstash", got ${JSON.stringify(headerPrefix)}`,
    );
  }
  const issuer = options.issuer ?? headerPrefix;
  if (typeof issuer !== 'string' || issuer === '') throw new ValidationError('issuer', 'expected a non-empty string');
  const plan = options.plan ?? 'paid';
  if (plan !== 'free' && plan !== 'paid') throw new ValidationError('plan', `expected "free" or "paid", got ${JSON.stringify(plan)}`);
  const globalFetch = options.globalFetch ?? 'in-process';
  if (globalFetch !== 'in-process' && globalFetch !== 'network')
    throw new ValidationError('globalFetch', `expected "in-process" or "network", got ${JSON.stringify(globalFetch)}`);
  const settleTimeoutMs = options.settleTimeoutMs ?? 10_000;
  if (!Number.isFinite(settleTimeoutMs) || settleTimeoutMs <= 0)
    throw new ValidationError('settleTimeoutMs', 'expected a number of milliseconds > 0');
  const keys = options.signingKeys;
  if (
    keys !== undefined &&
    (typeof keys?.current !== 'string' || typeof keys.next !== 'string' || keys.current === '' || keys.next === '')
  ) {
    throw new ValidationError('signingKeys', 'expected { current, next }, two non-empty keys');
  }
  return {
    appUrl: appUrl.replace(/\/+$/, ''),
    virtual: clock === 'virtual',
    startAt,
    headerPrefix,
    issuer,
    plan,
    listen: options.listen !== false,
    fetchInProcess: globalFetch === 'in-process',
    settleTimeoutMs,
    signingKeys: keys,
  };
}
