import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTcpRelay } from '@mailroom/test-machine';
import { build } from 'esbuild';
import { orderPlaced } from '../fixtures';
import type { ConformanceTarget, RunningTarget, TargetSetup } from '../target';
import { sendOverHttp } from '../targets/node-server';
import { decode, type RemoteAppKind, type RemoteConfig } from './wire';

// The suite against the Hono adapter inside Bun, Deno and workerd: the app is bundled once
// (remote-app.ts) and started per receiver profile in the runtime's own binary, installed by `npm ci`
// from npm. Its handlers call back here, where the suite's spies run; requests go over real sockets.

const PACKAGE = fileURLToPath(new URL('../../', import.meta.url));
const OUT = join(PACKAGE, 'node_modules', '.cache', 'runtimes');
/** A runtime's binary as `npm ci` installed it: the package's own `.bin`, or the workspace root's where npm hoisted it. */
const bin = (name: string): string =>
  [join(PACKAGE, 'node_modules', '.bin', name), join(PACKAGE, '..', '..', 'node_modules', '.bin', name)].find((path) => existsSync(path)) ??
  name;

type Entry = 'serve-entry' | 'worker-entry' | 'elysia-entry';
const bundled = new Map<string, Promise<string>>();

/** An entry of the remote app as one ES module with everything inlined (workerd loads no node_modules). */
function bundle(entry: Entry): Promise<string> {
  let done = bundled.get(entry);
  if (done) return done;
  done = (async () => {
    await mkdir(OUT, { recursive: true });
    const file = join(OUT, `${entry}.mjs`);
    await build({
      entryPoints: [join(PACKAGE, 'src', 'runtimes', `${entry}.ts`)],
      outfile: file,
      bundle: true,
      format: 'esm',
      // Bun resolves Node's built-in modules itself; the other runtimes get everything inlined.
      platform: entry === 'elysia-entry' ? 'node' : 'neutral',
      mainFields: ['module', 'main'],
      conditions: entry === 'elysia-entry' ? ['bun', 'import'] : ['workerd', 'worker', 'import'],
      target: 'es2022',
      logLevel: 'error',
    });
    return file;
  })();
  bundled.set(entry, done);
  return done;
}

/** The test side of the handlers: each call runs the spy the case set, and answers its value or error. */
export async function startBridge(setup: TargetSetup): Promise<{ url: string; close: () => Promise<void> }> {
  const handlers: Record<string, (message: never) => unknown> = {
    destination: setup.destination.handler,
    callback: setup.callback,
    failureCallback: setup.failureCallback,
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await text(req)) as Record<string, unknown>;
      if (req.url === '/error') {
        const error = Object.assign(new Error(String((body.error as { message?: string }).message)), decode(body.error));
        setup.options.onError?.(error, decode(body.where) as never);
        res.writeHead(204).end();
        return;
      }
      const handler = handlers[(req.url ?? '').replace('/call/', '')];
      let outcome: unknown;
      try {
        outcome = { value: await handler?.(decode(body) as never) };
      } catch (error) {
        const { name, message, seconds, status } = error as Error & { seconds?: number; status?: number };
        outcome = { error: { name, message, seconds, status } };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(outcome));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The settings a remote app can be given: the data of the options; the clock as its one instant; an
 * idempotency store as `'memory'`, for the app to make one in its own runtime (a store cannot cross).
 */
export function remoteConfig(setup: TargetSetup, bridgeUrl: string, app: RemoteAppKind): RemoteConfig {
  const { now, onError: _onError, idempotency, ...all } = setup.options;
  // A Worker's keys are bindings (`wrangler secret put`); the Cloudflare entry must find them there.
  // An `env` option would stop the lookup in the bindings, so the Worker gets none.
  const { currentSigningKey, nextSigningKey, env: _env, ...rest } = all;
  const options = app === 'workers' ? rest : all;
  const bindings: Record<string, string> = {};
  if (app === 'workers' && currentSigningKey) bindings.MAILROOM_CURRENT_SIGNING_KEY = currentSigningKey;
  if (app === 'workers' && nextSigningKey) bindings.MAILROOM_NEXT_SIGNING_KEY = nextSigningKey;
  return {
    app,
    bindings,
    options: { ...options, ...(idempotency ? { idempotency: 'memory' } : {}) } as Record<string, unknown>,
    nowMs: now ? now() : Date.now(),
    bridgeUrl,
    failureSourceIsDefinition: setup.failureCallbackOptions?.source === orderPlaced,
  };
}

/** Starts a runtime's process on the bundle and resolves with the port it printed (`ready`), or at once. */
export function launch(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready?: RegExp,
  cwd?: string,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
  let output = '';
  if (!ready) {
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk));
    return Promise.resolve({ child, port: 0 });
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not start within 30 s:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, port: Number(match[1]) });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before it listened:\n${output}`));
    });
  });
}

function runtimeTarget(
  name: string,
  app: RemoteAppKind,
  entry: Entry,
  start: (file: string, config: string) => Promise<{ child: ChildProcess; port: number }>,
  quirks?: ConformanceTarget['quirks'],
): ConformanceTarget {
  return remoteProcessTarget(name, app, () => bundle(entry), start, quirks);
}

/**
 * A target whose app runs in a process of its own, one per receiver profile: `file` is made once
 * (a bundle, a framework's build), `start` runs it with the profile's settings (`MAILROOM_CONFORMANCE`)
 * and says its port, and the app's handlers call back here over the bridge.
 */
function remoteProcessTarget(
  name: string,
  app: RemoteAppKind,
  file: () => Promise<string>,
  start: (file: string, config: string) => Promise<{ child: ChildProcess; port: number }>,
  quirks?: ConformanceTarget['quirks'],
): ConformanceTarget {
  return {
    name,
    ...(quirks ? { quirks } : {}),
    start: async (setup): Promise<RunningTarget> => {
      const [made, bridge] = await Promise.all([file(), startBridge(setup)]);
      const { child, port } = await start(made, JSON.stringify(remoteConfig(setup, bridge.url, app)));
      const origin = `http://127.0.0.1:${port}`;
      return {
        origin,
        send: (request) => sendOverHttp(origin, request),
        close: async () => {
          await kill(child);
          await bridge.close();
        },
      };
    },
  };
}

/**
 * A target whose app runs in one process for every receiver profile of a file (a dev server then
 * compiles the app once): `start` runs `file` with a folder of settings (`MAILROOM_CONFORMANCE_SETUPS`)
 * and says its port. Each profile gets a TCP relay on port 0, which passes the bytes on untouched, and
 * its settings in `<relay port>.json`; the app picks them by the port in the request's Host.
 */
export function sharedProcessTarget(
  name: string,
  app: RemoteAppKind,
  file: () => Promise<string>,
  start: (file: string, setups: string) => Promise<{ child: ChildProcess; port: number }>,
): ConformanceTarget {
  let server: Promise<{ child: ChildProcess; port: number; setups: string }> | undefined;
  const launchOnce = async () => {
    await mkdir(OUT, { recursive: true });
    const setups = await mkdtemp(join(OUT, 'setups-'));
    return { ...(await start(await file(), setups)), setups };
  };
  return {
    name,
    start: async (setup): Promise<RunningTarget> => {
      const [{ port, setups }, bridge] = await Promise.all([(server ??= launchOnce()), startBridge(setup)]);
      const relay = await startTcpRelay(port);
      const origin = relay.url;
      const settings = join(setups, `${relay.port}.json`);
      await writeFile(settings, JSON.stringify(remoteConfig(setup, bridge.url, app)));
      return {
        origin,
        send: (request) => sendOverHttp(origin, request),
        close: async () => {
          await relay.close();
          await rm(settings, { force: true });
          await bridge.close();
        },
      };
    },
    close: async () => {
      const running = await server;
      if (!running) return;
      await kill(running.child);
      await rm(running.setups, { recursive: true, force: true });
    },
  };
}

/** Kills an app's process and resolves once it is gone. */
async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const onBun = (file: string, config: string) => launch(bin('bun'), ['run', file], { MAILROOM_CONFORMANCE: config }, /LISTENING (\d+)/);
export const bunTarget = runtimeTarget('hono on bun', 'hono', 'serve-entry', onBun);
/** `Bun.serve({ fetch })` with core's Web entry, no framework. */
export const bunWebTarget = runtimeTarget("Bun.serve with core's endpoint.fetch", 'web', 'serve-entry', onBun);
/** Elysia on Bun, core's Web entry in its routes, registered before the app's own body parser. */
export const elysiaTarget = runtimeTarget("elysia 1 on bun (core's endpoint.fetch)", 'elysia', 'elysia-entry', onBun);
/** The same routes registered after the parser: the body is read before Mailroom sees it. */
export const elysiaParsedFirstTarget = runtimeTarget(
  'elysia 1 on bun, routes after an onParse hook',
  'elysia-parsed-first',
  'elysia-entry',
  onBun,
  {
    bodyConsumed: true,
    parsesEveryBody: true,
  },
);

const onDeno = (file: string, config: string) =>
  launch(
    bin('deno'),
    ['run', '--quiet', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env=MAILROOM_CONFORMANCE', file],
    { MAILROOM_CONFORMANCE: config },
    /LISTENING (\d+)/,
  );
export const denoTarget = runtimeTarget('hono on deno', 'hono', 'serve-entry', onDeno);
/** `Deno.serve(handler)` with core's Web entry, no framework. */
export const denoWebTarget = runtimeTarget("Deno.serve with core's endpoint.fetch", 'web', 'serve-entry', onDeno);

/**
 * workerd, Cloudflare's runtime, from a config naming the bundle, the settings as a text binding, and a
 * socket it binds on port 0: it reports the port it got as a control message (`--control-fd`).
 */
const onWorkerd = async (file: string, config: string) => {
  const configFile = `${file}.${process.pid}.${Date.now()}.capnp`;
  await writeFile(
    configFile,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker", esModule = embed "${file.split('/').pop()}")],
  compatibilityDate = "2025-09-01",
  bindings = [${bindingsOf(config)}],
  globalOutbound = "loopback",
);
`,
  );
  const child = spawn(bin('workerd'), ['serve', configFile, '--verbose', '--control-fd', '3'], {
    env: process.env,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  return { child, port: await reportedPort(child) };
};
export const workerdTarget = runtimeTarget('hono on workerd (cloudflare workers)', 'hono', 'worker-entry', onWorkerd);
/** `export default { fetch }` with the Cloudflare entry, the keys in the Worker's bindings. */
export const workerdPlainTarget = runtimeTarget(
  'a Worker without a framework (@mailroom/adapters/cloudflare, keys from bindings)',
  'workers',
  'worker-entry',
  onWorkerd,
);

/** The Worker's text bindings: the settings, and what the Worker reads from its bindings. */
function bindingsOf(config: string): string {
  const { bindings } = JSON.parse(config) as RemoteConfig;
  return [['MAILROOM_CONFORMANCE', config], ...Object.entries(bindings)]
    .map(([name, text]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(text)})`)
    .join(', ');
}

/** The port workerd's `http` socket got, from its control messages (`{"event":"listen","socket":"http","port":n}`). */
function reportedPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let control = '';
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => void (output += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`workerd did not report its port within 30 s:\n${output}`));
    }, 30_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      control += chunk;
      for (const line of control.split('\n')) {
        try {
          const message = JSON.parse(line) as { event?: string; socket?: string; port?: number };
          if (message.event === 'listen' && message.socket === 'http' && typeof message.port === 'number') {
            clearTimeout(timer);
            resolve(message.port);
          }
        } catch {
          // A line still arriving.
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`workerd exited (${code}) before it listened:\n${output}`));
    });
  });
}
