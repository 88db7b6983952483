import {
  JOURNAL_VERSION,
  openJournal,
  openMemoryJournal,
  type Journal,
  type JournalRecovery,
  type OnDurableLine,
  type OpenedJournal,
} from '../journal';
import { type ServiceError, storageRefusal } from '../errors';
import { createEmptyState, type DevState, pruneExpired, type Expiry, dedupLive, dlqLive, statsLive } from './dev-state';
import type { PendingMessages } from './pending-messages';
import type { DevRecord, MessageRecord, StatsBucket } from './records';
import { createdRun, dropEntriesOfLostMessages, flushCreated } from './event-log';
import { nameInLog } from './message-index';
import { reduce, reduceStoredMessage } from './reduce';
import { forEachBatchRecord, scanPlainMessages, scanStoredMessageLine, type StoredMessageLine } from './stored-message-lines';
import { followCompactions, type StoredLine } from './stored-messages';
import { isEncodedRecord } from './record-shapes';
import { decodeRecord, type EncodedRecord, encodeRecord } from './message-codec';

/** The state and the journal behind it: the one way state changes. */
export interface Store {
  readonly state: DevState;
  /**
   * Applies `record` to the state at once (so a check-then-change, like deduplication, cannot race
   * another request) and resolves once the record is durable in the journal.
   */
  commit(record: DevRecord): Promise<void>;
  /**
   * Runs `work` as one action: its commits are applied at once, as always, and written as one journal
   * record, so they are durable together or not at all; each resolves once that record is. `work`
   * must not await: nothing else may commit in between, or the journal would not keep the order the
   * state saw.
   */
  transaction<T>(work: () => T): T;
  /**
   * Resolves `true` once changes are accepted: at once, unless a write to the journal failed (a full
   * disk). Then every change is refused, unapplied, and the state is reloaded from what the journal
   * holds, so nothing refused is shown, until the disk takes writes again (a probe is written and
   * synced every `retryMs`). `false` if the store closes first.
   */
  writable(): Promise<boolean>;
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
  /** Told, synchronously, when a write fails and changes start being refused (with the refusal requests get, and the failure). */
  onRefusing?: (refusal: ServiceError, cause: unknown) => void;
  /** Told when reloading the journal after a failed write failed (it is tried again). */
  onReloadError?: (error: unknown) => void;
  /** How often a refusing store tries again to reload, then to write. Default 1 s. */
  retryMs?: number;
}

/**
 * Appended bytes before the first automatic compaction (later ones wait for 4x the snapshot): a small
 * state is not worth rewriting, and replaying 16 MB adds about 0.2 s to a start.
 */
const COMPACT_AFTER_BYTES = 16 * 1024 * 1024;
/** A plain message due this long after it is durable is left in the journal; one due sooner is about to be read again. */
const PUT_ASIDE_AFTER_MS = 30_000;
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
  const isPending = (id: string) => state.pending.has(id);
  const snapshot = () => encodedRecords(snapshotRecords(state, expiry()), isPending);
  const inMemory = options.dataDir === undefined;
  let closed = false;
  let journal = await replayJournal(state, options, snapshot, () => (closed ? undefined : state.pending));
  let lastPrune = options.now();
  const apply = (record: DevRecord) => {
    reduce(state, record);
    if (options.now() - lastPrune >= PRUNE_EVERY_MS) {
      pruneExpired(state, expiry());
      lastPrune = options.now();
    }
  };
  // Set when a write failed: every change is refused (and not applied) until the disk takes writes again.
  let refusal: ServiceError | undefined;
  let reloading: Promise<void> | undefined;
  let writableAgain: Promise<boolean> = Promise.resolve(true);
  const pause = () => new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1000).unref());
  const reload = async () => {
    // Under the same lock: no other server can take the directory while this one recovers.
    // Replayed aside, then swapped in at once: no request ever sees a state half rebuilt, or an empty
    // one while the reload fails and is retried. Every part of the service reads `store.state` when it
    // needs it, and none keeps a piece.
    const fresh = createEmptyState();
    const replay = replayer(fresh);
    const reopened = await journal.reopen({ onRecord: replay.onRecord, onRecordBytes: replay.onRecordBytes });
    replay.finish();
    journal = reopened.journal;
    reportRecovery(reopened, options);
    // The messages the old state left in the journal are in the fresh one too (its own reading of the file).
    const dropped = state.pending;
    Object.assign(state, fresh);
    dropped.close();
  };
  const recover = async (): Promise<boolean> => {
    while (!closed) {
      reloading = reload();
      try {
        await reloading;
        break;
      } catch (error) {
        options.onReloadError?.(error);
        await pause();
      }
    }
    while (!closed) {
      try {
        await journal.probe();
        refusal = undefined;
        return true;
      } catch {
        await pause();
      }
    }
    return false;
  };
  const refuse = (error: unknown): Promise<never> => {
    // The in-memory journal fails only once closed, and a closed store has nothing to recover.
    if (inMemory || closed) throw error;
    if (!refusal) {
      refusal = storageRefusal(error);
      options.onRefusing?.(refusal, error);
      writableAgain = recover();
    }
    const answer = refusal;
    // Answered once the state no longer shows what was refused (or that reload failed: it is retried).
    return (reloading ?? Promise.resolve()).then(
      () => Promise.reject(answer),
      () => Promise.reject(answer),
    );
  };
  // Messages the lines just written left in the journal: their log entries are named by id in one pass
  // once every line of the write was told (a write can hold thousands of sends).
  const leftAside = new Set<MessageRecord>();
  const nameLeftAside = () => {
    nameInLog(state, leftAside);
    leftAside.clear();
  };
  /** Leaves `message` in the journal when the record `line[recordStart, recordEnd)` reads as it, plain. */
  const leaveAside = (message: MessageRecord, line: Buffer, recordStart: number, recordEnd: number, where: StoredLine) => {
    const scanned = scanStoredMessageLine(line, recordStart, recordEnd);
    if (!scanned || !state.pending.putAside(message, scanned, where)) return;
    if (leftAside.size === 0) queueMicrotask(nameLeftAside);
    leftAside.add(message);
  };
  /**
   * For a send of one message due long from now, alone or in a batch (`/v2/batch`): once durable, it is
   * left in the journal (pending-messages.ts). One with more than the plain fields does not scan: it stays held.
   */
  const putAside = (record: DevRecord): OnDurableLine | undefined => {
    if (inMemory || (record.type !== 'batch' && record.type !== 'messages.accepted')) return undefined;
    const now = options.now();
    const sends = record.type === 'batch' ? record.records.map((inner) => dueLater(inner, now)) : [dueLater(record, now)];
    if (!sends.some((message) => message !== undefined)) return undefined;
    return (line, start, end, offset, file, generation) => {
      const where = { start, offset, file, generation };
      if (record.type !== 'batch') return leaveAside(sends[0]!, line, start, end, where);
      forEachBatchRecord(line, start, end, (index, recordStart, recordEnd) => {
        const message = sends[index];
        if (message) leaveAside(message, line, recordStart, recordEnd, where);
      });
    };
  };
  // The in-memory journal keeps nothing: encoding for it would be work for nothing.
  const append = (record: DevRecord) =>
    journal.append(inMemory ? (record as unknown as EncodedRecord) : encodeRecord(record), putAside(record)).catch(refuse);
  // The open transaction: its records so far, and the promise each of its commits answers.
  let open: { records: DevRecord[]; durable: Promise<void> } | undefined;
  return {
    state,
    commit(record) {
      if (refusal) return Promise.reject(refusal);
      apply(record);
      if (!open) return append(record);
      open.records.push(record);
      return open.durable;
    },
    transaction(work) {
      if (open) return work();
      let written!: (append: Promise<void>) => void;
      const durable = new Promise<void>((resolve) => (written = resolve));
      const records: DevRecord[] = [];
      open = { records, durable };
      try {
        return work();
      } finally {
        open = undefined;
        // What was applied is written, even when `work` threw part-way: the journal says what the state saw.
        written(records.length === 0 ? Promise.resolve() : append(records.length === 1 ? records[0]! : { type: 'batch', records }));
      }
    },
    writable: () => writableAgain,
    async close() {
      if (closed) return;
      closed = true;
      // A reload under way opens the journal again: that one is the one to close.
      await reloading?.catch(() => undefined);
      try {
        // A snapshot for the in-memory journal would be built and dropped: nothing reads it again.
        // One refused since the last reload has nothing new to keep, and no room to write it.
        if (!inMemory && !refusal) await journal.compact(snapshot());
      } finally {
        await journal.close();
        state.pending.close();
      }
    },
  };
}

/**
 * Opens the journal and replays it into `state` (empty); a file of an older format is rewritten (only
 * the first open can meet one: after it, the file is this format).
 */
async function replayJournal(
  state: DevState,
  options: OpenStoreOptions,
  snapshot: () => Iterable<EncodedRecord>,
  pendingNow: () => PendingMessages | undefined,
): Promise<Journal<EncodedRecord>> {
  const replay = replayer(state);
  const journalOptions = {
    compactAfterBytes: COMPACT_AFTER_BYTES,
    snapshot,
    onCompactionError: options.onCompactionError,
    onRecord: replay.onRecord,
    onRecordBytes: replay.onRecordBytes,
    onCompacted: followCompactions(pendingNow),
  };
  const opened =
    options.dataDir === undefined
      ? await openMemoryJournal<EncodedRecord>()
      : await openJournal<EncodedRecord>({
          dir: options.dataDir,
          name: 'mailroom',
          skipDamaged: options.repairJournal === true,
          isRecord: isEncodedRecord,
          ...journalOptions,
        });
  try {
    replay.finish();
    if (opened.recovery.damagedRecordsSkipped > 0) dropEntriesOfLostMessages(state);
    reportRecovery(opened, options);
    // A file of an older format is rewritten in this one before anything is appended: an older Mailroom
    // then refuses it by its header (naming both versions) instead of misreading records it never knew.
    if (opened.formatVersion < JOURNAL_VERSION) await opened.journal.compact(snapshot());
  } catch (error) {
    // Whatever a replay meets, the lock must not outlive this failed start.
    await opened.journal.close();
    throw error;
  }
  return opened.journal;
}

/**
 * Applies each record of a journal being read to `state` (empty) as it is read: none is kept parsed,
 * so a replay leaves little for the collector, and a line of one plain message is not parsed at all,
 * nor held: it is read from the file when wanted (stored-messages.ts; docs/benchmarks.md, the scale
 * section). `finish` once the journal is read.
 */
function replayer(state: DevState) {
  // Reused for every line: a replay makes no object per message it leaves in the journal.
  // Generation 0: the file the journal then appends to.
  const where = { start: 0, offset: 0, file: '', generation: 0 };
  const run = createdRun();
  const keep = (scanned: StoredMessageLine) => reduceStoredMessage(state, scanned, where, run);
  return {
    onRecord: (encoded: EncodedRecord) => {
      flushCreated(state, run);
      reduce(state, decodeRecord(encoded));
    },
    onRecordBytes: (line: Buffer, start: number, end: number, offset: number, file: string) => {
      where.start = start;
      where.offset = offset;
      where.file = file;
      // A plain send, or a batch of them (`/v2/batch`): each kept so, or the line parsed whole.
      return scanPlainMessages(line, start, end, keep);
    },
    finish: () => {
      flushCreated(state, run);
      state.pending.doneReading();
    },
  };
}

/** The message of a send of one, when it is due {@link PUT_ASIDE_AFTER_MS} or more after `now`. */
function dueLater(record: DevRecord, now: number): MessageRecord | undefined {
  if (record.type !== 'messages.accepted' || record.messages.length !== 1) return undefined;
  const message = record.messages[0]!;
  return message.dueAt - now >= PUT_ASIDE_AFTER_MS ? message : undefined;
}

/** Tells what opening the journal dropped or skipped, when it did. */
function reportRecovery(opened: OpenedJournal<EncodedRecord>, options: OpenStoreOptions): void {
  const { recovery } = opened;
  if (recovery.tornBytesDropped > 0 || recovery.damagedRecordsSkipped > 0) options.onRecovered?.(recovery);
}

/** Log entries per `logs.restored` record of a snapshot: a line stays small enough to decode on its own. */
const LOG_CHUNK = 256;

/**
 * `records` encoded as they are read. A log entry's message is named instead of copied when it is
 * pending as it is encoded, not when the snapshot was taken: a message that was not pending then
 * never is again (a resend or a retry is a new message).
 */
function* encodedRecords(records: Iterable<DevRecord>, isPending: (id: string) => boolean): Iterable<EncodedRecord> {
  for (const record of records) yield encodeRecord(record, isPending);
}

/**
 * The state as the fewest records that rebuild it, for journal compaction, taken now and read later.
 * Expired deduplication keys, DLQ entries past retention and old statistics are left out: compaction
 * is where they go. What the reducer changes in place (runs, schedules' last firing, DLQ entries,
 * statistics, the pending messages' progress, the log's arrays) is copied now: the journal writes a
 * snapshot in the background, while the state moves on. The pending messages' and the log's records
 * are built as they are read, so a snapshot of 100,000 pending messages holds no object per message
 * while it is written, which would outlive the young generation and stay behind as garbage.
 */
export function snapshotRecords(state: DevState, expiry: Expiry): Iterable<DevRecord> {
  const records: DevRecord[] = [
    { type: 'counters.restored', nextSeq: state.nextSeq, nextDlqOrder: state.nextDlqOrder, nextLogOrder: state.nextLogOrder },
  ];
  if (state.signingKeys) records.push({ type: 'keys.rotated', ...state.signingKeys });
  for (const queue of state.queues.values()) records.push({ type: 'queue.updated', name: queue.name, queue });
  for (const schedule of state.schedules.values()) {
    const copy = schedule.lastScheduleStates ? { ...schedule, lastScheduleStates: { ...schedule.lastScheduleStates } } : { ...schedule };
    records.push({ type: 'schedule.updated', id: schedule.scheduleId, schedule: copy });
  }
  for (const flow of state.flowKeys.values()) records.push({ type: 'flow.updated', key: flow.key, flow });
  const buckets = [...state.stats]
    .filter(([minute]) => statsLive(minute, expiry))
    .map(([minute, bucket]) => [minute, { ...bucket }] as [number, StatsBucket]);
  if (buckets.length > 0) records.push({ type: 'stats.restored', buckets });
  for (const group of state.groups.values()) records.push({ type: 'group.updated', name: group.name, group });
  for (const index of state.indexes.values()) records.push({ type: 'index.created', index });
  // Before the pending messages: a restored step must find its run.
  for (const run of state.runs.values()) records.push({ type: 'run.restored', run: structuredClone(run) });
  for (const waiter of state.waiters.values()) records.push({ type: 'waiter.added', waiter });
  for (const fault of state.faults.values()) records.push({ type: 'fault.set', fault: { ...fault } });
  for (const entry of state.dlq.values()) if (dlqLive(entry.at, expiry)) records.push({ type: 'dlq.restored', entry: { ...entry } });
  for (const [key, entry] of state.dedup) {
    if (dedupLive(entry.at, expiry.now)) records.push({ type: 'dedup.restored', key, at: entry.at, results: entry.results });
  }
  const pending = capturePending(state.pending);
  // Entries and messages never change; the arrays do (pushed to, the oldest spliced off).
  const logs = state.logs.slice();
  const logMessages = state.logMessages.slice();
  return {
    *[Symbol.iterator]() {
      yield* records;
      // Pending messages before the logs: a log entry of a pending message then names it instead of copying it.
      const { messages, retried, dueAt, started } = pending;
      for (let index = 0; index < messages.length; index++) {
        const message = messages[index]!;
        yield {
          type: 'message.restored',
          message: typeof message === 'function' ? message() : message,
          retried: retried[index]!,
          dueAt: dueAt[index]!,
          started: started[index] === 1,
        };
      }
      // The log in its order, a run of entries per record: restoring appends each entry (no search for
      // its place). Each record copies the messages its entries are about (a pending one is only
      // named), so one whose entries span two records is copied twice.
      for (let start = 0; start < logs.length; start += LOG_CHUNK) {
        const end = Math.min(start + LOG_CHUNK, logs.length);
        const messages = new Set<MessageRecord>();
        // An id names a message that was pending when the snapshot was taken: restored above, it is found there.
        for (let index = start; index < end; index++) {
          const message = logMessages[index]!;
          if (typeof message !== 'string') messages.add(message);
        }
        yield { type: 'logs.restored', logs: logs.slice(start, end), messages: [...messages] };
      }
    },
  };
}

/**
 * The pending messages as they are now, oldest accepted first: their records (never changed in
 * place; one left in the journal is read as it is written) and a copy of their progress, in arrays.
 */
function capturePending(pending: PendingMessages) {
  const count = pending.size;
  const captured = {
    messages: new Array<MessageRecord | (() => MessageRecord)>(count),
    retried: new Int32Array(count),
    dueAt: new Float64Array(count),
    started: new Uint8Array(count),
  };
  let index = 0;
  pending.forEachToSnapshot((message, retried, dueAt, started) => {
    captured.messages[index] = message;
    captured.retried[index] = retried;
    captured.dueAt[index] = dueAt;
    captured.started[index] = started ? 1 : 0;
    index += 1;
  });
  return captured;
}
