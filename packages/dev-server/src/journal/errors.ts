/** Base class of the journal's errors; `code` tells the kinds apart without `instanceof`. */
export class JournalError extends Error {
  override name = 'JournalError';
  /** A stable, machine-readable name of the kind of failure. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
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
