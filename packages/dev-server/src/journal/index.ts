/**
 * Durable state for the dev server: a crash-safe, append-only journal of JSON records (see
 * `open-journal.ts` for why a journal rather than a storage library) and an in-memory twin.
 */
export { openJournal } from './open-journal';
export { openMemoryJournal } from './memory-journal';
export { JournalCorruptError, JournalError, JournalLockedError, JournalUnavailableError } from './errors';
export type { Journal, JournalRecovery, JournalStats, OpenedJournal, OpenJournalOptions } from './types';
