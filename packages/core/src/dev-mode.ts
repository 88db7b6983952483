// Dev mode (`MAILROOM_DEV=1` or `dev: true`): the clients talk to `mailroom dev` on its default port
// with its documented credentials, starting one in this process when none runs, and the receivers
// verify with its keys, so an app's `npm run dev` needs no `.env`. Refused in production.

import { ENV_VARIABLES, type Environment } from './config';
import { ConfigError } from './errors';
import type { HttpTransport } from './http/transport';

const DEV_USER_ID = '00000000-0000-4000-8000-000000000001';

/**
 * A token in the service's shape, base64 of `{"UserID","Password"}`: the Workflow SDK reads the user
 * id from it to build webhook URLs (`context.createWebhook`).
 */
export function serviceToken(userId: string, password: string): string {
  return btoa(JSON.stringify({ UserID: userId, Password: password }));
}

/**
 * The credentials of a dev server without a data directory: fixed and documented, not secrets (they
 * open a local emulator only). The dev server and dev mode both take them from here.
 */
export const DEV_CREDENTIALS = Object.freeze({
  userId: DEV_USER_ID,
  token: serviceToken(DEV_USER_ID, 'mailroom_dev_token'),
  readOnlyToken: serviceToken(DEV_USER_ID, 'mailroom_dev_read_only_token'),
  managementUser: 'dev@mailroom.local',
  managementPassword: 'mailroom_dev_management_key',
  currentSigningKey: 'sig_mailroom_dev_current',
  nextSigningKey: 'sig_mailroom_dev_next',
});

/** Where dev mode looks for `mailroom dev` (and starts one): its default port on loopback. */
export const DEV_SERVER_URL = 'http://127.0.0.1:8288';

/** The `dev` option: `true`, or where the dev server is when not on its default port. */
export type DevOption = boolean | { url?: string };

/**
 * The dev server's URL when dev mode is on (the option wins, then `MAILROOM_DEV` set to `1` or
 * `true`), checked to be allowed here; `undefined` when it is off.
 */
export function devServerUrl(option: DevOption | undefined, env: Environment): string | undefined {
  let on: boolean;
  let url = DEV_SERVER_URL;
  if (option === undefined) {
    // `1` or `true` for the default port; a URL for a dev server elsewhere (another port, a container).
    const value = env[ENV_VARIABLES.dev]?.trim() ?? '';
    on = value === '1' || value.toLowerCase() === 'true' || value.startsWith('http');
    if (value.startsWith('http')) url = checkDevUrl(value);
  } else if (typeof option === 'boolean') {
    on = option;
  } else if (typeof option === 'object' && option !== null) {
    on = true;
    if (option.url !== undefined) url = checkDevUrl(option.url);
  } else {
    throw new ConfigError('dev', ENV_VARIABLES.dev, `Option "dev" must be true, false or { url }, got ${typeof option}.`);
  }
  if (!on) return undefined;
  assertDevModeAllowed(env);
  return url;
}

function checkDevUrl(url: unknown): string {
  if (typeof url !== 'string' || !/^http:\/\/[^/?#]+$/.test(url.replace(/\/+$/, ''))) {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      `Option "dev.url" must be the dev server's http:// origin, e.g. http://127.0.0.1:8288; got ${JSON.stringify(url)}.`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * Refuses dev mode where it must never run: in production (`NODE_ENV=production`) and while Next.js
 * builds (`NEXT_PHASE=phase-production-build`), where a dev server must not start.
 */
function assertDevModeAllowed(env: Environment): void {
  if (env.NEXT_PHASE === 'phase-production-build') {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      'Mailroom dev mode is on during `next build`. Unset MAILROOM_DEV for builds; set the MAILROOM_* settings of the real service instead.',
    );
  }
  if (env.NODE_ENV === 'production') {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      'Mailroom dev mode is on with NODE_ENV=production. Dev mode talks to a local emulator with public credentials: unset MAILROOM_DEV (or dev: true) in production and set the MAILROOM_* settings of the real service.',
    );
  }
}

/** How dev mode finds a server: injectable, so tests run without port 8288. */
export interface DevServerLocator {
  url: string;
  /** Starts a dev server on `url`'s port in this process; absent on edge runtimes. */
  start?: () => Promise<void>;
}

// One check (and at most one start) per process and URL, shared by every client of the app.
const ready = new Map<string, Promise<void>>();
// Where a dev server started for a configured URL listens: the same, except for port 0, a server of
// this process only, on whatever port it got (tests that run side by side use it).
const listening = new Map<string, string>();

/** The URL a dev server configured as `url` answers at: the port it got, for one started on port 0. */
export function devServerAddress(url: string): string {
  return listening.get(url) ?? url;
}

/** Whether `url` asks for a dev server of this process on any free port (`http://127.0.0.1:0`). */
const anyPort = (url: string): boolean => new URL(url).port === '0';
// Dev servers this process started, so a test (or a graceful shutdown) can close them.
const started = new Set<{ close(): Promise<void> }>();

/** Closes the dev servers dev mode started in this process. */
export async function closeStartedDevServers(): Promise<void> {
  const servers = [...started];
  started.clear();
  ready.clear();
  listening.clear();
  await Promise.all(servers.map((server) => server.close()));
}

/**
 * A transport that first makes sure a dev server answers at `locator.url` with the documented
 * credentials: it asks `GET /v2/keys`; when nothing listens it starts one (Node) or explains how to
 * (edge runtimes); a server with other credentials (started with `--data-dir`) is an error that says so.
 */
export function devModeTransport(inner: HttpTransport, locator: DevServerLocator): HttpTransport {
  return {
    async send(request) {
      let check = ready.get(locator.url);
      if (!check) {
        check = ensureDevServer(locator);
        ready.set(locator.url, check);
        check.catch(() => ready.delete(locator.url));
      }
      await check;
      const address = devServerAddress(locator.url);
      return inner.send(address === locator.url ? request : { ...request, url: address + request.url.slice(locator.url.length) });
    },
  };
}

async function ensureDevServer(locator: DevServerLocator): Promise<void> {
  // Port 0: nothing to look for, a server of this process is started.
  const status = anyPort(locator.url) ? undefined : await probe(locator.url);
  if (status === 200) return;
  if (status === 401) {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      `A dev server runs at ${locator.url} with other credentials (started with --data-dir?). Unset MAILROOM_DEV and paste the MAILROOM_* lines it printed instead.`,
    );
  }
  if (status !== undefined) {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      `Something else answers at ${locator.url} (status ${status}); free port 8288 for mailroom dev.`,
    );
  }
  if (!locator.start) {
    throw new ConfigError(
      'dev',
      ENV_VARIABLES.dev,
      `No dev server answers at ${locator.url}. Start one with \`npx mailroom dev\` and try again.`,
    );
  }
  await locator.start();
}

async function probe(url: string): Promise<number | undefined> {
  try {
    const response = await fetch(`${url}/v2/keys`, {
      headers: { authorization: `Bearer ${DEV_CREDENTIALS.token}` },
      signal: AbortSignal.timeout(2_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return undefined;
  }
}

/**
 * The Node locator: starts `@mailroom/dev-server` in this process when it is installed (a dev
 * dependency), on the default port, in memory, logging to the console.
 */
export function nodeDevServerLocator(url = DEV_SERVER_URL): DevServerLocator {
  const isNode = typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';
  if (!isNode) return { url };
  return {
    url,
    async start() {
      // A computed specifier, left alone by bundlers: the package is optional and only for development.
      const specifier = '@mailroom/dev-server';
      let module: { startDevServer?: (options: object) => Promise<{ close(): Promise<void>; consoleUrl?: string }> };
      try {
        module = await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier);
      } catch {
        throw new ConfigError(
          'dev',
          ENV_VARIABLES.dev,
          `No dev server answers at ${url}, and @mailroom/dev-server is not installed to start one. Run \`npm i -D @mailroom/dev-server\`, or start \`npx mailroom dev\` yourself.`,
        );
      }
      try {
        // Lives in this process, holding it open only while a message is pending: a script that
        // sent its messages can end, and an app's own server keeps it running.
        const server = (await module.startDevServer?.({ port: Number(new URL(url).port), log: 'text', exitWhenIdle: true })) as
          | { close(): Promise<void>; consoleUrl?: string; url?: string }
          | undefined;
        if (server) {
          started.add(server);
          const at = server.url ?? url;
          listening.set(url, at);
          console.log(
            `[mailroom] dev mode: started mailroom dev at ${at} in this process; console: ${server.consoleUrl ?? `${at}/console/`}`,
          );
        }
      } catch (error) {
        // Another client of this process (or another process) started one meanwhile: use it.
        if ((await probe(url)) === 200) return;
        throw error;
      }
    },
  };
}
