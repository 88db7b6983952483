import { openJournal, openMemoryJournal, type Journal, type JournalRecovery } from '../journal';
import { createEmptyState, type DevState, pruneExpired, type Expiry } from './dev-state';
import type { DevRecord } from './records';
import { reduce } from './reduce';
import { snapshotRecords } from './snapshot';

/** The state and the journal behind it: the one way state changes. */
export interface Store {
  readonly state: DevState;
  /**
   * Applies `record` to the state at once (so a check-then-change, like deduplication, cannot race
   * another request) and resolves once the record is durable in the journal.
   */
  commit(record: DevRecord): Promise<void>;
  /** Compacts the journal to a snapshot and closes it. */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Without one, the in-memory journal: the same code path, nothing kept across restarts. */
  dataDir: string | undefined;
  now: () => number;
  dlqRetentionMs: number;
  onCompactionError: (error: unknown) => void;
  /** Skip damaged records in the middle of the journal instead of refusing to start. */
  repairJournal?: boolean;
  /** Told what opening the journal had to drop or skip, when it did. */
  onRecovered?: (recovery: JournalRecovery) => void;
}

/**
 * Appended bytes before the first automatic compaction (later ones wait for 4x the snapshot): a small
 * state is not worth rewriting, and replaying 16 MB adds about 0.2 s to a start.
 */
const COMPACT_AFTER_BYTES = 16 * 1024 * 1024;
/** Expired data is swept at most this often, on the next commit. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Opens the journal, replays it into a fresh state and returns the store.
 *
 * @example const store = await openStore({ dataDir: './.mailroom', now: Date.now, dlqRetentionMs, onCompactionError });
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const state = createEmptyState();
  const expiry = (): Expiry => ({ now: options.now(), dlqRetentionMs: options.dlqRetentionMs });
  const snapshot = () => snapshotRecords(state, expiry());
  const journalOptions = { compactAfterBytes: COMPACT_AFTER_BYTES, snapshot, onCompactionError: options.onCompactionError };
  const opened =
    options.dataDir === undefined
      ? await openMemoryJournal<DevRecord>()
      : await openJournal<DevRecord>({
          dir: options.dataDir,
          name: 'mailroom',
          skipDamaged: options.repairJournal === true,
          ...journalOptions,
        });
  const { recovery } = opened;
  if (recovery.tornBytesDropped > 0 || recovery.damagedRecordsSkipped > 0) options.onRecovered?.(recovery);
  for (const record of opened.records) reduce(state, record);
  const journal: Journal<DevRecord> = opened.journal;
  let closed = false;
  let lastPrune = options.now();
  return {
    state,
    commit(record) {
      reduce(state, record);
      if (options.now() - lastPrune >= PRUNE_EVERY_MS) {
        pruneExpired(state, expiry());
        lastPrune = options.now();
      }
      return journal.append(record);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await journal.compact(snapshot());
      } finally {
        await journal.close();
      }
    },
  };
}
