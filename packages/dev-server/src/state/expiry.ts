import type { DevState } from './dev-state';

/** How long a deduplication key blocks a copy (service-facts: 10 minutes). */
export const DEDUP_WINDOW_MS = 10 * 60_000;

/** Statistics older than this are dropped: the longest period (`30d`) and the month never read them. */
const STATS_KEEP_MS = 62 * 24 * 60 * 60_000;

/** What is still alive at `now`: everything else is invisible to every reader already. */
export interface Expiry {
  now: number;
  /** The plan's `max_dlq_retention_time_milis`. */
  dlqRetentionMs: number;
}

export const dedupLive = (at: number, expiry: Expiry): boolean => at + DEDUP_WINDOW_MS > expiry.now;
export const dlqLive = (at: number, expiry: Expiry): boolean => at + expiry.dlqRetentionMs >= expiry.now;
export const statsLive = (minute: number, expiry: Expiry): boolean => minute * 60_000 >= expiry.now - STATS_KEEP_MS;

/**
 * Drops what has expired, so a long-running server (in memory, where nothing is ever compacted)
 * does not grow without bound. No record is written: readers already ignore expired data, and a
 * replay restores it only for the next prune or compaction to drop it again.
 */
export function pruneExpired(state: DevState, expiry: Expiry): void {
  for (const [key, entry] of state.dedup) if (!dedupLive(entry.at, expiry)) state.dedup.delete(key);
  for (const [id, entry] of state.dlq) if (!dlqLive(entry.at, expiry)) state.dlq.delete(id);
  for (const minute of state.stats.keys()) if (!statsLive(minute, expiry)) state.stats.delete(minute);
}
