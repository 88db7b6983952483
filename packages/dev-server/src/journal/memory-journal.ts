import { JournalUnavailableError } from './errors';
import type { Journal, JournalStats, OpenedJournal } from './types';

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
      stats.recordsInFile = snapshot.length;
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
  };
}
