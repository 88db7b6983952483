/**
 * Durable state for the dev server: a crash-safe, append-only journal of JSON records (see
 * `open-journal.ts` for why a journal rather than a storage library) and an in-memory twin.
 */
export { openJournal, openMemoryJournal } from './open-journal';
export { JOURNAL_VERSION, readLinesOf } from './record-line';
export { JournalCorruptError, JournalError, JournalLockedError, JournalUnavailableError } from './types';
export type { Journal, JournalRecovery, JournalStats, OnDurableLine, OpenedJournal, OpenJournalOptions } from './types';
