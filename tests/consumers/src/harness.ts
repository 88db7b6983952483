import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, readdir, readFile, rm, statfs, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cutLockfile, repositoryLockfile } from './app-lockfile';

/*
 * What a user does with the packages, outside the monorepo: install the tarballs `npm publish` would
 * upload into a fresh folder outside the repository (so nothing resolves from the repo's
 * node_modules), compile with the app's own tsconfig, start the app and the dev server as processes.
 */

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const APPS = fileURLToPath(new URL('../apps/', import.meta.url));
const PUBLISHED = ['core', 'adapters', 'nestjs', 'dev-server', 'testing'] as const;

/** `npm pack` of every published package into `dir`. */
export async function packPublished(dir: string): Promise<void> {
  for (const name of PUBLISHED) {
    await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: join(REPO, 'packages', name) });
  }
}

/** The tarball of `@mailroom/<name>` in the packed folder. */
async function tarball(dir: string, name: (typeof PUBLISHED)[number]): Promise<string> {
  const file = (await readdir(dir)).find((entry) => entry.startsWith(`mailroom-${name}-`) && entry.endsWith('.tgz'));
  if (!file) throw new Error(`no tarball for @mailroom/${name} in ${dir}`);
  return join(dir, file);
}

export interface App {
  dir: string;
  remove(): Promise<void>;
}

/** What an app installs. */
export interface AppDependencies {
  /** The folder of packed tarballs (`inject('tarballs')`). */
  packed: string;
  /** The Mailroom packages, installed from their tarballs. */
  mailroom: Array<(typeof PUBLISHED)[number]>;
  /** Packages at the version the repository's lockfile installed: the name, or `[name, lockfile key]` when that is not the hoisted copy. */
  locked: Array<string | [name: string, lockKey: string]>;
  /** Specs npm resolves itself, as a user adding them would get them. */
  resolved?: string[];
}

/**
 * A fresh app from `apps/<template>`, installed by `npm install` as a project with a lockfile is:
 * the lockfile is cut from the repository's (./app-lockfile.ts), so every package comes from the
 * cache the root `npm ci` filled. `resolved` specs are left to npm.
 */
export async function createApp(template: string, dependencies: AppDependencies): Promise<App> {
  const dir = await mkdtemp(join(await appsFolder(), `mailroom-consumer-${template}-`));
  await cp(join(APPS, template), dir, { recursive: true });
  const name = `consumer-${template}`;
  const locked = dependencies.locked.map((entry): [string, string] =>
    typeof entry === 'string' ? [entry, `node_modules/${entry}`] : entry,
  );
  const packed = await Promise.all(
    dependencies.mailroom.map(async (entry) => ({
      name: `@mailroom/${entry}`,
      workspace: `packages/${entry}`,
      tarball: await tarball(dependencies.packed, entry),
    })),
  );
  const lockfile = await cutLockfile(await repositoryLockfile(REPO), dir, name, { locked, packed });
  await writeFile(join(dir, 'package-lock.json'), JSON.stringify(lockfile, null, 2));
  await writeFile(
    join(dir, 'package.json'),
    JSON.stringify(
      { name, private: true, ...(await templateManifest(template)), dependencies: lockfile.packages['']!.dependencies },
      null,
      2,
    ),
  );
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefer-offline', ...(dependencies.resolved ?? [])], {
    cwd: dir,
    timeoutMs: 300_000,
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Where fresh apps go: /dev/shm when the machine has one with room, else the system temp folder.
 * Each app writes 200-300 MB in its install and build, and on tmpfs that costs a fifth less CPU.
 */
async function appsFolder(): Promise<string> {
  try {
    const shm = await statfs('/dev/shm');
    if (shm.bavail * shm.bsize >= 2 * 1024 ** 3) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows).
  }
  return tmpdir();
}

async function templateManifest(template: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(join(APPS, template, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** An environment with nothing of the developer's `MAILROOM_*` settings, plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('MAILROOM_') && !key.startsWith('VITEST') && key !== 'NODE_OPTIONS' && key !== 'NODE_ENV') env[key] = value;
  }
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; rejects (with its output) on a non-zero exit unless `allowFailure`. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const result = { code, stdout, stderr };
      if (code !== 0 && !options.allowFailure) {
        reject(new Error(`${command} ${args.join(' ')} exited ${code} in ${options.cwd}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`));
      } else resolve(result);
    });
  });
}

export interface Running {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a long-running command and resolves once its output matches `ready`. */
export function start(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; ready: RegExp; timeoutMs?: number },
): Promise<Running> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const running: Running = {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const closed = new Promise((resolve) => child.once('close', resolve));
      // The whole group: `next start` and npm bins run their server in a child process.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        child.kill('SIGTERM');
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 5000);
      await closed;
      clearTimeout(timer);
    },
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void running.stop();
      reject(
        new Error(
          `${command} ${args.join(' ')} did not print ${options.ready} within ${options.timeoutMs ?? 60_000} ms:\n${output.slice(-3000)}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (options.ready.test(output)) {
        clearTimeout(timer);
        resolve(running);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited ${code} before it was ready:\n${output.slice(-3000)}`));
    });
  });
}

export interface DevServerProcess extends Running {
  /** The `MAILROOM_*` lines it printed for the app's `.env`, as variables. */
  env: Record<string, string>;
}

/** `npx mailroom dev` from the app's own install, and what it printed to paste into `.env`. */
export async function startDevServer(app: App, appUrl: string, extraArgs: string[] = []): Promise<DevServerProcess> {
  const running = await start(
    join(app.dir, 'node_modules', '.bin', 'mailroom'),
    ['dev', '--port', '0', '--app-url', appUrl, ...extraArgs],
    {
      cwd: app.dir,
      ready: /Press Ctrl\+C to stop/,
    },
  );
  const env = Object.fromEntries(
    running
      .output()
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^MAILROOM_[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { ...running, env };
}

/**
 * The app's public address, known before the app starts: a forwarding proxy on port 0. The dev
 * server is told this URL (`MAILROOM_APP_URL`), the app binds port 0 and says which port it got, and
 * the proxy forwards there, as a load balancer would. No port is ever picked and released.
 */
export interface AppAddress {
  url: string;
  /** Where requests go from now on: the app's own origin, once it reported its port. */
  forwardTo(origin: string): void;
  stop(): Promise<void>;
}

export async function publicAddress(): Promise<AppAddress> {
  let target: URL | undefined;
  const server = createServer((req, res) => {
    if (!target) {
      res.writeHead(503).end('the app has not reported its port yet');
      return;
    }
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end('the app is not reachable')));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwardTo: (origin) => void (target = new URL(origin)),
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Runs an app to its end like {@link run}, pointing `address` at it as soon as it prints where it
 * listens (`listening on http://127.0.0.1:<port>`, or Next's `Local: http://...`).
 */
export async function runBehind(
  address: AppAddress,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pointed = false;
    const look = () => {
      const origin = LISTENING.exec(stdout + stderr)?.[1];
      if (origin && !pointed) {
        pointed = true;
        address.forwardTo(origin);
      }
    };
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      look();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      look();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** How an app says where it listens. */
export const LISTENING = /(?:listening on|Local:)\s+(http:\/\/127\.0\.0\.1:\d+)/i;
