import type {
  DedupResult,
  DlqEntry,
  FlowKeyRecord,
  LogRecord,
  MessageRecord,
  QueueRecord,
  ScheduleRecord,
  SearchIndexRecord,
  StatsBucket,
  UrlGroupRecord,
  WaiterRecord,
  WorkflowRunRecord,
  FaultRecord,
} from './records';
import { PendingMessages } from './pending-messages';

/** A deduplication key still inside its window. */
export interface DedupEntry {
  at: number;
  results: DedupResult[];
}

/** Everything the dev server knows, rebuilt from the journal on start. */
export interface DevState {
  /** The messages not yet delivered or failed for good. */
  pending: PendingMessages;
  nextSeq: number;
  dedup: Map<string, DedupEntry>;
  groups: Map<string, UrlGroupRecord>;
  /** In insertion order, oldest first. */
  dlq: Map<string, DlqEntry>;
  nextDlqOrder: number;
  indexes: Map<string, SearchIndexRecord>;
  /** Counters per minute (`floor(ms / 60000)`). */
  stats: Map<number, StatsBucket>;
  queues: Map<string, QueueRecord>;
  schedules: Map<string, ScheduleRecord>;
  flowKeys: Map<string, FlowKeyRecord>;
  /** `undefined` until rotated: the credentials' pair applies. */
  signingKeys: { current: string; next: string } | undefined;
  /** The newest {@link LOG_LIMIT} state changes, oldest first. */
  logs: LogRecord[];
  nextLogOrder: number;
  /**
   * The message each kept log entry is about, at the entry's index (an array, not a map by id: cheaper
   * per entry). An id stands for a pending message left in the journal (stored-messages.ts), not read for
   * its entry: read it with {@link loggedMessage}.
   */
  logMessages: Array<MessageRecord | string>;
  /**
   * The entries whose message is an id in {@link logMessages}, by that id (one, or several): given the
   * message when it leaves the pending ones. Built when the first message leaves (message-index.ts).
   */
  pendingRefs: Map<string, LogRecord | LogRecord[]> | undefined;
  /** Callbacks and resends, by the id of the message they came from, while they are known. */
  offspring: Map<string, Set<string>>;
  /** Workflow runs by id, oldest first. */
  runs: Map<string, WorkflowRunRecord>;
  /** Runs waiting for an event, by waiter id. */
  waiters: Map<string, WaiterRecord>;
  /** Faults on demand in force, by id, in the order they were set. */
  faults: Map<string, FaultRecord>;
}

/** State changes kept for `GET /v2/events`; older ones are dropped. */
export const LOG_LIMIT = 10_000;

/** The state of a dev server that has done nothing yet. */
export function createEmptyState(): DevState {
  return {
    pending: new PendingMessages(),
    nextSeq: 1,
    dedup: new Map(),
    groups: new Map(),
    dlq: new Map(),
    nextDlqOrder: 1,
    indexes: new Map(),
    stats: new Map(),
    queues: new Map(),
    schedules: new Map(),
    flowKeys: new Map(),
    signingKeys: undefined,
    logs: [],
    nextLogOrder: 1,
    logMessages: [],
    pendingRefs: undefined,
    offspring: new Map(),
    runs: new Map(),
    waiters: new Map(),
    faults: new Map(),
  };
}

/** The message of the log entry at `index`. */
export function loggedMessage(state: DevState, index: number): MessageRecord {
  const message = state.logMessages[index]!;
  // An id is a message that is pending, by construction (reduce.ts gives its entries the message as it leaves).
  return typeof message === 'string' ? state.pending.get(message)! : message;
}

/** Whether log entry `a` comes before `b`: earlier, or as early and written first. */
export function logBefore(a: LogRecord, b: { time: number; order: number }): boolean {
  return a.time < b.time || (a.time === b.time && a.order < b.order);
}

/** Where `entry` is, or would go, in the log (kept in time order, then by `order`). */
export function logIndex(logs: readonly LogRecord[], entry: LogRecord): number {
  let low = 0;
  let high = logs.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (logBefore(logs[middle]!, entry)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The counters of the minute holding `at`, created empty when missing. */
export function statsBucket(state: DevState, at: number): StatsBucket {
  const minute = Math.floor(at / 60_000);
  let bucket = state.stats.get(minute);
  if (!bucket) {
    bucket = {
      requests: 0,
      workflowRequests: 0,
      delivered: 0,
      failed: 0,
      workflowDelivered: 0,
      workflowFailed: 0,
      workflowCanceled: 0,
      bandwidth: 0,
    };
    state.stats.set(minute, bucket);
  }
  return bucket;
}

/** How long a deduplication key blocks a copy (service-facts: 10 minutes). */
const DEDUP_WINDOW_MS = 10 * 60_000;

/** Statistics older than this are dropped: the longest period (`30d`) and the month never read them. */
const STATS_KEEP_MS = 62 * 24 * 60 * 60_000;

/** What is still alive at `now`: everything else is invisible to every reader already. */
export interface Expiry {
  now: number;
  /** The plan's `max_dlq_retention_time_milis`. */
  dlqRetentionMs: number;
}

/** Whether a deduplication key set at `at` still blocks a copy at `now`: the window is the same on every plan. */
export const dedupLive = (at: number, now: number): boolean => at + DEDUP_WINDOW_MS > now;
export const dlqLive = (at: number, expiry: Expiry): boolean => at + expiry.dlqRetentionMs >= expiry.now;
export const statsLive = (minute: number, expiry: Expiry): boolean => minute * 60_000 >= expiry.now - STATS_KEEP_MS;

/**
 * Drops what has expired, so a long-running server (in memory, where nothing is ever compacted)
 * does not grow without bound. No record is written: readers already ignore expired data, and a
 * replay restores it only for the next prune or compaction to drop it again.
 */
export function pruneExpired(state: DevState, expiry: Expiry): void {
  for (const [key, entry] of state.dedup) if (!dedupLive(entry.at, expiry.now)) state.dedup.delete(key);
  for (const [id, entry] of state.dlq) if (!dlqLive(entry.at, expiry)) state.dlq.delete(id);
  for (const minute of state.stats.keys()) if (!statsLive(minute, expiry)) state.stats.delete(minute);
}
