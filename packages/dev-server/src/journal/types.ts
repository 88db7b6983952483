import { MailroomError } from '@mailroom/core/internal-protocol';
/** Options of {@link openJournal}. */
export interface OpenJournalOptions<R> {
  /** Directory that holds the journal; created (with parents) when missing. */
  dir: string;
  /**
   * Base name of the journal's files (`<name>.jsonl`, `<name>.lock`, `<name>.jsonl.tmp`), so one
   * data directory can hold several journals. Letters, digits, `.`, `_` and `-`. Default `journal`.
   */
  name?: string;
  /**
   * Wait for `fdatasync` before an append resolves (default `true`). `false` still survives a crash
   * of the process (the kernel keeps what was written) but not a power loss: for tests and benchmarks.
   */
  fsync?: boolean;
  /**
   * Compact automatically once this many bytes were appended since the last compaction (and at
   * least four times the bytes the last snapshot took, so compaction stays amortised linear and
   * costs a fraction of the appends). Needs `snapshot`.
   */
  compactAfterBytes?: number;
  /**
   * The caller's current minimal state as records, for automatic compaction; called right after a
   * batch was committed. Like a `compact()` argument it must reflect every record passed to `append`
   * so far, resolved or not: apply a record to your state before (or as) you append it, not when the
   * append resolves, or a compaction could drop it. The records are read and written in the
   * background, a slice at a time, so the iterable must give the state as it was when `snapshot` was
   * called: capture what you change in place (a copy), and build the rest as it is read.
   */
  snapshot?: () => Iterable<R>;
  /** Where a failed automatic compaction is reported. Default: a process warning. */
  onCompactionError?: (error: unknown) => void;
  /**
   * Skip damaged records in the middle of the file (which otherwise refuse the open), keep every
   * intact one, and save the skipped bytes to `<file>.damaged`. Default `false`.
   */
  skipDamaged?: boolean;
  /**
   * Whether a decoded record has a shape the caller can apply. One that passes its checksum but not
   * this (written by a broken writer, or edited by hand) is damaged like a bad checksum. Default: any.
   */
  isRecord?: (value: unknown) => value is R;
  /**
   * Each record on disk, oldest first, as soon as its line is read; `records` is then empty. A large
   * journal is then never held whole, nor parsed whole: each record is applied and dropped while it is
   * young, which a collector frees for almost nothing. A damaged line met later still fails the open,
   * after the records before it went here: apply them to a state you drop when the open fails.
   */
  onRecord?: (record: R) => void;
  /**
   * With `onRecord`: each intact line's JSON, `line[start, end)` (its checksum verified), before it is
   * parsed; `offset` is where `line[start]` is in `file`. Returning true takes the record from those
   * bytes: it is not parsed, nor given to `onRecord`. A reader that knows its most common records can
   * skip JSON.parse and every object it makes, and read a record's bytes again from `file` when it
   * needs them (opened before a compaction replaces it, the file keeps them). `line` is reused once this
   * returns.
   */
  onRecordBytes?: (line: Buffer, start: number, end: number, offset: number, file: string) => boolean;
  /**
   * Told, synchronously, once a compaction's file replaced the journal: `file` and its `generation`
   * (as {@link OnDurableLine} counts them). It is still that file while this runs: open it now to read
   * it later. A reader that kept where lines were in an older file can find them again in this one.
   */
  onCompacted?: (file: string, generation: number) => void;
}

/**
 * Where a record's line went, told once it is durable: its JSON is `line[start, end)`, at `offset`
 * in `file`, the `generation`-th file this journal wrote (0: the one it opened; each compaction writes
 * the next). Called synchronously, while `file` still is that file: open it now to read it later.
 * `line` is reused once this returns.
 */
export type OnDurableLine = (line: Buffer, start: number, end: number, offset: number, file: string, generation: number) => void;

/** Options of {@link Journal.reopen}: as those of {@link OpenJournalOptions}, for this reading. */
export type ReopenOptions<R> = Pick<OpenJournalOptions<R>, 'onRecord' | 'onRecordBytes'>;

/** Counters of what a journal really did, for tests, logs and benchmarks. */
export interface JournalStats {
  /** Records appended through this handle (resolved). */
  appends: number;
  /** Write batches: concurrent appends share one (group commit). */
  batches: number;
  /** `fdatasync`/`fsync` calls made for appends and compactions. */
  syncs: number;
  /** Compactions completed. */
  compactions: number;
  /** Records in the current file: replayed or compacted ones plus those appended since. */
  recordsInFile: number;
  /** Bytes in the current file. */
  bytesInFile: number;
}

/** A durable, append-only log of JSON records. Get one from {@link openJournal} or {@link openMemoryJournal}. */
export interface Journal<R> {
  /**
   * Appends one record; resolves once it is durably on disk (written and synced). Appends made in the
   * same tick share one write and one sync. Rejects when the record is not JSON-serialisable, after
   * `close`, or after an I/O failure (the journal then refuses every later append: reopen it).
   * `onDurable` is told where the line is, once it is durable (the in-memory journal never tells).
   */
  append(record: R, onDurable?: OnDurableLine): Promise<void>;
  /**
   * Replaces the journal's content with `snapshot`, the caller's minimal current state, atomically
   * (resolves once the new file and its directory entry are synced). `snapshot` must reflect every
   * record passed to `append` before this call, resolved or not: appends made earlier are written to
   * the old file, which the snapshot then replaces; appends made later follow the snapshot. It is
   * read and encoded at once, so changing its objects afterwards changes nothing.
   */
  compact(snapshot: Iterable<R>): Promise<void>;
  /**
   * Resolves once the disk takes writes again: a probe file beside the journal is written, synced and
   * removed. For a caller that stopped after a failed append (a full disk), before it reopens and goes on.
   */
  probe(): Promise<void>;
  /**
   * After a failed append: waits for what is pending, closes the file and opens it again without
   * letting go of the lock (no other process can take the directory in between, and nothing is
   * written but a torn tail cut), returning what is on disk now. Until it resolves this journal
   * still owns the lock (close it to let go); once it resolves, the returned one does. A file that is
   * gone is refused with a `JournalUnavailableError`, never made again empty. `onRecord`
   * is as {@link OpenJournalOptions.onRecord}, for this reading (the options' one is not used again).
   */
  reopen(options?: ReopenOptions<R>): Promise<OpenedJournal<R>>;
  /** A copy of the counters. */
  stats(): JournalStats;
  /** Waits for pending appends, closes the file and releases the lock. Safe to call twice. */
  close(): Promise<void>;
}

/** What opening found on disk. */
export interface JournalRecovery {
  /** Bytes of a torn final line (a crash mid-append) that were dropped and truncated away. */
  tornBytesDropped: number;
  /** Damaged records skipped in the middle (with `skipDamaged`), and their bytes, saved to `damagedFile`. */
  damagedRecordsSkipped: number;
  damagedBytesSkipped: number;
  damagedFile: string | undefined;
  /** The journal file, or `undefined` for the in-memory journal. */
  file: string | undefined;
}

/** The result of opening a journal: the handle and every record to rebuild the caller's state from. */
export interface OpenedJournal<R> {
  journal: Journal<R>;
  /**
   * Every record on disk, oldest first (none when they went to `onRecord`). Parsed, not validated: `R`
   * describes what your code wrote, after a JSON round trip (a `Date` comes back as a string).
   */
  records: R[];
  recovery: JournalRecovery;
  /** The format version the file was written in: older than the current one, it is rewritten at the first compaction. */
  formatVersion: number;
}

/**
 * Base class of the journal's errors: a MailroomError (so one `instanceof` catches every error of
 * ours) whose `code` tells the kinds apart.
 */
export class JournalError extends MailroomError {
  override name = 'JournalError';
}

/** Another live process (or this one) already has the journal open. */
export class JournalLockedError extends JournalError {
  override name = 'JournalLockedError';
  readonly lockFile: string;
  /** The owner's pid, when the lock file names one. */
  readonly pid: number | undefined;

  constructor(lockFile: string, pid: number | undefined, reason: string) {
    super('JOURNAL_LOCKED', `The journal is locked: ${reason} (lock file ${lockFile}).`);
    this.lockFile = lockFile;
    this.pid = pid;
  }
}

/** The file is not a journal this code can read, or it is damaged before its last line. */
export class JournalCorruptError extends JournalError {
  override name = 'JournalCorruptError';
  readonly file: string;
  /** 1-based line number of the first bad line. */
  readonly line: number;
  /** Byte offset where the bad line starts: everything before it is intact. */
  readonly offset: number;

  constructor(init: { file: string; line: number; offset: number; problem: string; hint: string }) {
    super('JOURNAL_CORRUPT', `${init.file}, line ${init.line} (byte ${init.offset}): ${init.problem}. ${init.hint}`);
    this.file = init.file;
    this.line = init.line;
    this.offset = init.offset;
  }
}

/** The journal was closed, or an earlier write or sync failed, so it accepts nothing more. */
export class JournalUnavailableError extends JournalError {
  override name = 'JournalUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('JOURNAL_UNAVAILABLE', message, options);
  }
}
