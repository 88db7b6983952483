import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { JournalLockedError } from './types';

/** A lock this process holds. */
export interface HeldLock {
  path: string;
  /** Random per acquisition: tells our lock file from a later owner's. */
  token: string;
}

interface LockOwner {
  pid: number;
  hostname: string;
  token: string;
}

/**
 * Lock files held by this process: a pid check cannot tell two opens in one process apart. Kept on
 * `globalThis` so two copies of this module (an ESM and a CJS build, say) share it. Worker threads
 * each have their own: do not open one journal from two threads.
 */
const registry = globalThis as Record<symbol, unknown>;
const heldHere = (registry[Symbol.for('mailroom.journal.locks')] ??= new Set<string>()) as Set<string>;

/** A lock file that does not parse is stale once this old; younger, its creator may still be writing it. */
const UNREADABLE_LOCK_GRACE_MS = 2_000;
const ATTEMPTS = 3;

/**
 * Takes the exclusive lock file at `path` (created with `wx`, so only one creator wins), taking over a
 * stale one left by a dead process. Throws a {@link JournalLockedError} naming the owner otherwise.
 *
 * The liveness check is `process.kill(pid, 0)` on this host. Known limits, accepted for a dev tool:
 * a reused pid of a dead owner looks alive (delete the lock file by hand), and two processes taking
 * over the same stale lock within microseconds of each other could both succeed.
 */
export async function acquireLock(path: string): Promise<HeldLock> {
  if (heldHere.has(path)) throw new JournalLockedError(path, process.pid, 'this process already has it open (close it first)');
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    const token = randomBytes(12).toString('hex');
    if (await tryCreate(path, token)) {
      heldHere.add(path);
      return { path, token };
    }
    const owner = await readOwner(path);
    if (owner === 'gone') continue;
    if (owner === 'unreadable') {
      if (await isOlderThan(path, UNREADABLE_LOCK_GRACE_MS)) await removeIfUnchanged(path, undefined);
      else throw new JournalLockedError(path, undefined, 'another process is creating its lock right now');
      continue;
    }
    const liveness = ownerLiveness(owner);
    if (liveness !== 'dead') throw new JournalLockedError(path, owner.pid, liveness);
    await removeIfUnchanged(path, owner.token);
  }
  throw new JournalLockedError(path, undefined, 'other processes keep taking it; retry when they stopped');
}

/** Releases a lock taken by {@link acquireLock}, unless another process has since taken it over. */
export async function releaseLock(lock: HeldLock): Promise<void> {
  heldHere.delete(lock.path);
  await removeIfUnchanged(lock.path, lock.token);
}

async function tryCreate(path: string, token: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    const owner: LockOwner = { pid: process.pid, hostname: hostname(), token };
    await handle.writeFile(`${JSON.stringify(owner)}\n`);
  } finally {
    await handle.close();
  }
  return true;
}

async function readOwner(path: string): Promise<LockOwner | 'gone' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'gone';
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (Number.isInteger(owner.pid) && typeof owner.hostname === 'string' && typeof owner.token === 'string') {
      return owner as LockOwner;
    }
  } catch {
    // Falls through: a crash between creating and writing the lock leaves it empty.
  }
  return 'unreadable';
}

/** `'dead'`, or why the owner must be assumed alive. */
function ownerLiveness(owner: LockOwner): string {
  if (owner.hostname !== hostname()) {
    return (
      `host ${owner.hostname} (pid ${owner.pid}) has it open; this host cannot check whether that ` +
      'process still runs (delete the lock file if it does not)'
    );
  }
  // Our own pid without our own record: a previous run that had the same pid (common in containers,
  // where the server is often pid 1) and died without closing.
  if (owner.pid === process.pid) return 'dead';
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  // Signal 0 succeeded, or EPERM: the process exists but belongs to another user.
  return `process ${owner.pid} has it open (stop it, or use another data directory)`;
}

/** Removes the lock file if it still holds `token` (`undefined`: if it still does not parse). */
async function removeIfUnchanged(path: string, token: string | undefined): Promise<void> {
  const owner = await readOwner(path);
  if (owner === 'gone') return;
  const current = owner === 'unreadable' ? undefined : owner.token;
  if (current !== token) return;
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function isOlderThan(path: string, ms: number): Promise<boolean> {
  try {
    return Date.now() - (await stat(path)).mtimeMs > ms;
  } catch {
    return true;
  }
}
