import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { aptInstall } from './apt.mjs';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Real Redis and Postgres for the idempotency tests, never a mock: Debian's packages, installed
// by the set-up when the machine lacks them (CI included), each server started for the test file on a
// Unix socket in a fresh directory (no TCP port at all) and stopped after it.

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

export interface RealServer {
  /** Redis: the socket's path. Postgres: the socket's directory (pg's `host`). */
  socket: string;
  stop(): Promise<void>;
}

/** `redis-server` on a Unix socket only (`--port 0`), without persistence. */
export async function startRedis(): Promise<RealServer> {
  if (!existsSync('/usr/bin/redis-server')) aptInstall('redis-server', "the idempotency stores' tests");
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-redis-'));
  const socket = join(dir, 'redis.sock');
  const child = spawn(
    '/usr/bin/redis-server',
    ['--port', '0', '--unixsocket', socket, '--unixsocketperm', '700', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  );
  await until('redis-server to listen', () => existsSync(socket) || child.exitCode !== null);
  if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
  return {
    socket,
    async stop() {
      child.kill('SIGTERM');
      await stopped(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The newest Postgres server binaries Debian installed, installing the package when there are none. */
function postgresBin(): string {
  const find = () => {
    const root = '/usr/lib/postgresql';
    if (!existsSync(root)) return undefined;
    const versions = readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'postgres')));
    versions.sort((a, b) => Number(b) - Number(a));
    return versions[0] && join(root, versions[0], 'bin');
  };
  const found = find();
  if (found) return found;
  aptInstall('postgresql', "the idempotency stores' tests");
  const installed = find();
  if (!installed) throw new Error('apt-get installed postgresql, but no server binary was found under /usr/lib/postgresql');
  return installed;
}

/**
 * A Postgres cluster made for the test file (`initdb`, trust authentication), listening on a Unix
 * socket only. Postgres refuses to run as root: as root, it runs as Debian's `postgres` user.
 */
export async function startPostgres(): Promise<RealServer & { user: string }> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-pg-'));
  const data = join(dir, 'data');
  const as = (command: string, args: string[]) =>
    (isRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]) as [string, string[]];
  if (isRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const [initCommand, initArgs] = as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  execFileSync(initCommand, initArgs, { stdio: 'ignore', timeout: 120_000 });
  const [command, args] = as(join(bin, 'postgres'), [
    '-D',
    data,
    '-k',
    dir,
    '-c',
    'listen_addresses=',
    '-c',
    'fsync=off',
    '-c',
    'max_connections=50',
  ]);
  const child = spawn(command, args, { stdio: 'ignore' });
  await until('postgres to listen', () => existsSync(join(dir, '.s.PGSQL.5432')) || child.exitCode !== null, 60_000);
  if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}`);
  return {
    socket: dir,
    user: 'postgres',
    async stop() {
      // pg_ctl reaches the server itself (as root it is runuser's child, and runuser forwards no signal).
      const [stopCommand, stopArgs] = as(join(bin, 'pg_ctl'), ['stop', '-D', data, '-m', 'immediate']);
      execFileSync(stopCommand, stopArgs, { stdio: 'ignore', timeout: 60_000 });
      await stopped(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
