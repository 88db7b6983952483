/*
 * Durable state for the dev server: an append-only journal of JSON lines, with fsync and compaction.
 *
 * Why not a storage library: the requirement is Node >= 20.19 with no network download at install.
 * - `node:sqlite` needs Node 22.5+; `require('node:sqlite')` throws ERR_UNKNOWN_BUILTIN_MODULE on 20.
 * - better-sqlite3 is a native addon: 12.x runs `prebuild-install || node-gyp rebuild` (a download
 *   from GitHub at install, else a C++ toolchain); 13.x needs Node >= 22.
 * - classic-level (LevelDB) and lmdb are native addons too (node-gyp-build, prebuilt binaries per
 *   platform); fine libraries, but a compiled dependency and install script for a dev tool that
 *   stores a few thousand small records.
 * - lowdb (pure JS, via steno) rewrites the whole file on every write (tmp + rename) and does not
 *   fsync, so an "accepted" message could still be lost on power loss, and each write costs O(state).
 * The journal here is a few hundred lines of Node built-ins: appends are O(record), concurrent
 * appends share one write + fdatasync (group commit), and compaction is atomic (tmp file, fsync,
 * rename, directory fsync).
 */
import { appendFile, mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createFileJournal, journalPaths, type AutoCompaction, type JournalPaths } from './file-journal';
import { syncDirectory, writeAndRename } from './compaction';
import { acquireLock, type HeldLock, releaseLock } from './lock-file';
import { JOURNAL_HEADER_LINE, JOURNAL_VERSION, readJournal, type DecodedJournal, type ReadJournalOptions } from './record-line';
import { JournalUnavailableError, type Journal, type JournalStats, type OpenedJournal, type OpenJournalOptions } from './types';

/**
 * Opens (or creates) the journal `<dir>/<name>.jsonl`, locked to this process, and returns every record
 * on disk so the caller can rebuild its state. A final line torn by a crash is dropped (and truncated
 * away); damage anywhere else throws a `JournalCorruptError` (or, with `skipDamaged`, is skipped and
 * saved aside); a live owner throws a `JournalLockedError`.
 *
 * @example
 * ```ts
 * const { journal, records } = await openJournal<Event>({ dir: dataDir, name: 'messages' });
 * for (const event of records) apply(state, event);
 * apply(state, event);
 * await journal.append(event); // durable from here on: answer the client
 * ```
 */
export async function openJournal<R>(options: OpenJournalOptions<R>): Promise<OpenedJournal<R>> {
  // Checked before anything is created or locked.
  const autoCompaction = resolveAutoCompaction(options);
  const paths = journalPaths(requireDir(options.dir), options.name ?? 'journal');
  await makeDirectory(paths.dir, options.fsync ?? true);
  const lock = await acquireLock(paths.lock);
  try {
    return await openLocked(options, paths, lock, autoCompaction, 'create');
  } catch (error) {
    await releaseLock(lock);
    throw error;
  }
}

/**
 * Opens the journal under a lock already held: the first open (which creates a missing file), and
 * every `reopen()` (which never does: the file was there, and an empty one would drop all it held).
 */
async function openLocked<R>(
  options: OpenJournalOptions<R>,
  paths: JournalPaths,
  lock: HeldLock,
  autoCompaction: AutoCompaction<R> | undefined,
  missing: 'create' | 'refuse',
): Promise<OpenedJournal<R>> {
  const fsync = options.fsync ?? true;
  // Only safe under the lock: then a temp file is a crashed compaction's, not a live one's.
  await rm(paths.tmp, { force: true });
  const { handle, decoded } = await loadOrCreate<R>(paths, fsync, missing, {
    skipDamaged: options.skipDamaged === true,
    isRecord: options.isRecord ?? ((value): value is R => true),
    onRecord: options.onRecord,
    onRecordBytes: options.onRecord ? options.onRecordBytes : undefined,
  });
  const journal = createFileJournal<R>({
    paths,
    handle,
    size: decoded.validLength,
    recordsInFile: decoded.count,
    lock,
    fsync,
    autoCompaction,
    onCompacted: options.onCompacted,
    reopen: (again) =>
      openLocked({ ...options, onRecord: again?.onRecord, onRecordBytes: again?.onRecordBytes }, paths, lock, autoCompaction, 'refuse'),
  });
  const damagedBytesSkipped = decoded.damaged.reduce((sum, line) => sum + line.bytes.length, 0);
  const recovery = {
    tornBytesDropped: decoded.tornBytes,
    damagedRecordsSkipped: decoded.damaged.length,
    damagedBytesSkipped,
    damagedFile: decoded.damaged.length > 0 ? damagedFileOf(paths) : undefined,
    file: paths.file,
  };
  return { journal, records: decoded.records, recovery, formatVersion: decoded.version };
}

/** Reads the journal (creating an empty one first if there is none) and opens it for appending. */
async function loadOrCreate<R>(
  paths: JournalPaths,
  fsync: boolean,
  missing: 'create' | 'refuse',
  read: ReadJournalOptions<R>,
): Promise<{ handle: FileHandle; decoded: DecodedJournal<R> }> {
  const existing = await openIfExists(paths.file);
  if (existing === undefined && missing === 'refuse') {
    throw new JournalUnavailableError(
      `The journal ${paths.file} is gone (it was there when it was opened). It is not made again empty, which would drop all it held: put the file back, then reopen.`,
    );
  }
  if (existing === undefined) {
    // Created by rename, like a compaction, so the file is never seen without its header.
    const handle = await writeAndRename(paths.tmp, paths.file, Buffer.from(JOURNAL_HEADER_LINE), fsync);
    if (fsync) await syncDirectory(paths.dir);
    const empty = { records: [], count: 0, version: JOURNAL_VERSION, validLength: JOURNAL_HEADER_LINE.length, tornBytes: 0, damaged: [] };
    return { handle, decoded: empty };
  }
  let handle = existing;
  try {
    // Read through the handle appends then go to: the file is opened once.
    const decoded = await readJournal<R>(handle, paths.file, read);
    if (decoded.repaired) {
      // The skipped lines are kept beside the journal, then the journal is rewritten without them.
      if (decoded.damaged.length > 0) await appendFile(damagedFileOf(paths), Buffer.concat(decoded.damaged.map((line) => line.bytes)));
      const replaced = handle;
      handle = await writeAndRename(paths.tmp, paths.file, decoded.repaired, fsync);
      await replaced.close();
      if (fsync) await syncDirectory(paths.dir);
    } else if (decoded.tornBytes > 0) {
      // Cut the torn line now: the next append must start a fresh line, not continue the garbage.
      await handle.truncate(decoded.validLength);
      if (fsync) await handle.sync();
    }
    return { handle, decoded };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function damagedFileOf(paths: JournalPaths): string {
  return `${paths.file}.damaged`;
}

async function openIfExists(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Creates `dir` with its parents; a new directory's own entry must be durable too. */
async function makeDirectory(dir: string, fsync: boolean): Promise<void> {
  const firstCreated = await mkdir(dir, { recursive: true });
  if (firstCreated !== undefined && fsync) await syncDirectory(dirname(firstCreated));
}

function requireDir(dir: unknown): string {
  if (typeof dir !== 'string' || dir === '') throw new TypeError('openJournal needs `dir`, the directory to keep the journal in.');
  return dir;
}

function resolveAutoCompaction<R>(options: OpenJournalOptions<R>): AutoCompaction<R> | undefined {
  const { compactAfterBytes: afterBytes, snapshot } = options;
  if (afterBytes === undefined) return undefined;
  if (!Number.isInteger(afterBytes) || afterBytes < 1) {
    throw new TypeError(`compactAfterBytes must be a positive integer, got ${String(afterBytes)}.`);
  }
  if (typeof snapshot !== 'function') {
    throw new TypeError('compactAfterBytes needs `snapshot`, a function returning the state to compact to.');
  }
  const report = options.onCompactionError ?? ((error: unknown) => process.emitWarning(`Journal compaction failed: ${String(error)}`));
  const onError = (error: unknown) => {
    try {
      report(error);
    } catch {
      // A throwing reporter must not break the journal's write loop; the journal itself is fine.
    }
  };
  return { afterBytes, snapshot, onError };
}

/**
 * A journal that keeps nothing, for running without `--data-dir`: the caller's in-memory state is the
 * only copy, so the server has one code path with or without durability. Records are not encoded:
 * their types are JSON by construction, and the file journal's tests cover the encoding.
 *
 * @example
 * ```ts
 * const { journal, records } = dataDir ? await openJournal<Event>({ dir: dataDir }) : await openMemoryJournal<Event>();
 * ```
 */
export async function openMemoryJournal<R>(): Promise<OpenedJournal<R>> {
  const stats: JournalStats = { appends: 0, batches: 0, syncs: 0, compactions: 0, recordsInFile: 0, bytesInFile: 0 };
  let closed = false;

  function guard(): void {
    if (closed) throw new JournalUnavailableError('The in-memory journal is closed.');
  }

  const journal: Journal<R> = {
    async append() {
      guard();
      stats.appends += 1;
      stats.batches += 1;
      stats.recordsInFile += 1;
    },
    async compact(snapshot) {
      guard();
      stats.compactions += 1;
      stats.recordsInFile = 0;
      for (const _ of snapshot) stats.recordsInFile += 1;
    },
    async probe() {},
    async reopen() {
      closed = true;
      return openMemoryJournal<R>();
    },
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
    },
  };
  return {
    journal,
    records: [],
    recovery: { tornBytesDropped: 0, damagedRecordsSkipped: 0, damagedBytesSkipped: 0, damagedFile: undefined, file: undefined },
    formatVersion: JOURNAL_VERSION,
  };
}
