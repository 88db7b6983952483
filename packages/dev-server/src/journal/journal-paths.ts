import { join } from 'node:path';

/** The files of one journal inside its directory. */
export interface JournalPaths {
  dir: string;
  /** The journal itself. */
  file: string;
  /** Where compaction builds the next file before renaming it over `file`. */
  tmp: string;
  /** Exclusive lock naming the process that has the journal open. */
  lock: string;
}

/** Resolves a journal's file names; refuses names that could escape `dir`. */
export function journalPaths(dir: string, name: string): JournalPaths {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) {
    throw new TypeError(
      `A journal name may only hold letters, digits, ".", "_" and "-", and not start with "."; got ${JSON.stringify(name)}.`,
    );
  }
  return {
    dir,
    file: join(dir, `${name}.jsonl`),
    tmp: join(dir, `${name}.jsonl.tmp`),
    lock: join(dir, `${name}.lock`),
  };
}
