import { MailroomError } from '@mailroom/core';
import { spawnSync } from 'node:child_process';
import { readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JournalLockedError, openJournal } from '../../src/journal';
import { useTempDir } from './temp-dir';

const tempDir = useTempDir();
const lockFile = () => join(tempDir(), 'journal.lock');

/** The pid of a process that has certainly exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

async function writeLock(owner: { pid: number; hostname?: string; token?: string }): Promise<void> {
  await writeFile(lockFile(), JSON.stringify({ hostname: hostname(), token: 'theirs', ...owner }));
}

async function lockOwnerPid(): Promise<number> {
  return (JSON.parse(await readFile(lockFile(), 'utf8')) as { pid: number }).pid;
}

describe('journal lock', () => {
  it('refuses a second open of the same journal in this process, until the first closes', async () => {
    const first = await openJournal({ dir: tempDir() });
    const error = await openJournal({ dir: tempDir() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalLockedError);
    // One `instanceof MailroomError` catches every error of ours, the journal's included.
    expect(error).toBeInstanceOf(MailroomError);
    expect(error).toMatchObject({ code: 'JOURNAL_LOCKED', pid: process.pid, lockFile: lockFile() });
    expect((error as Error).message).toMatch(/this process already has it open/);
    await first.journal.close();
    const second = await openJournal({ dir: tempDir() });
    await second.journal.close();
  });

  it('writes this process pid into the lock file and removes it on close', async () => {
    const { journal } = await openJournal({ dir: tempDir() });
    expect(await lockOwnerPid()).toBe(process.pid);
    await journal.close();
    expect(await readdir(tempDir())).not.toContain('journal.lock');
  });

  it('refuses a journal a live process holds, naming it', async () => {
    // Our parent (the vitest main process) is certainly alive.
    await writeLock({ pid: process.ppid });
    const error = await openJournal({ dir: tempDir() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalLockedError);
    expect((error as Error).message).toContain(`process ${process.ppid} has it open (stop it, or use another data directory)`);
    expect(await lockOwnerPid()).toBe(process.ppid);
  });

  it('takes over a stale lock a dead process left behind', async () => {
    await writeLock({ pid: deadPid() });
    const { journal } = await openJournal({ dir: tempDir() });
    expect(await lockOwnerPid()).toBe(process.pid);
    await journal.close();
  });

  it('takes over a lock with its own pid from a previous run (a restarted container)', async () => {
    await writeLock({ pid: process.pid });
    const { journal } = await openJournal({ dir: tempDir() });
    expect(JSON.parse(await readFile(lockFile(), 'utf8'))).not.toMatchObject({ token: 'theirs' });
    await journal.close();
  });

  it('refuses a lock from another host, which it cannot check', async () => {
    await writeLock({ pid: 1234, hostname: 'elsewhere' });
    await expect(openJournal({ dir: tempDir() })).rejects.toThrow(/host elsewhere \(pid 1234\) has it open/);
  });

  it('takes over an unreadable lock once it is old, not while it may still be being written', async () => {
    await writeFile(lockFile(), '');
    await expect(openJournal({ dir: tempDir() })).rejects.toThrow(/creating its lock right now/);
    const past = new Date(Date.now() - 60_000);
    await utimes(lockFile(), past, past);
    const { journal } = await openJournal({ dir: tempDir() });
    expect(await lockOwnerPid()).toBe(process.pid);
    await journal.close();
  });

  it('releases the lock when opening fails', async () => {
    await writeFile(join(tempDir(), 'journal.jsonl'), 'not a journal\n');
    await expect(openJournal({ dir: tempDir() })).rejects.toThrow(/not a Mailroom journal/);
    expect(await readdir(tempDir())).not.toContain('journal.lock');
  });
});
