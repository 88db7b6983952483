import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  JournalUnavailableError,
  type Journal,
  type JournalStats,
  type OnDurableLine,
  type OpenedJournal,
  type ReopenOptions,
} from './types';
import { releaseLock, type HeldLock } from './lock-file';
import { encodeRecordLine, JOURNAL_HEADER_LINE, JSON_START_IN_LINE, NEWLINE } from './record-line';
import { type BackgroundCompaction, readRange, startBackgroundCompaction, syncDirectory, writeAndRename, writeAt } from './compaction';

/** Automatic compaction settings, both present or neither. */
export interface AutoCompaction<R> {
  afterBytes: number;
  snapshot: () => Iterable<R>;
  onError: (error: unknown) => void;
}

/** An opened, locked journal file, positioned after its last good line. */
export interface FileJournalInit<R> {
  paths: JournalPaths;
  handle: FileHandle;
  size: number;
  recordsInFile: number;
  lock: HeldLock;
  fsync: boolean;
  autoCompaction: AutoCompaction<R> | undefined;
  /** See `OpenJournalOptions.onCompacted`. */
  onCompacted: ((file: string, generation: number) => void) | undefined;
  /** Opens the file again under `lock`, which this journal hands over. */
  reopen: (options: ReopenOptions<R> | undefined) => Promise<OpenedJournal<R>>;
}

/** Mutable state of one open journal; every write goes through the single drain loop. */
interface FileState {
  paths: JournalPaths;
  fsync: boolean;
  handle: FileHandle;
  /** Offset of the next batch: the end of the last durable line. */
  size: number;
  /** Which file `handle` is: 0 the one opened, then one more for each that replaced it. */
  generation: number;
  /** Bytes the last compaction wrote, for the amortised automatic-compaction threshold. */
  keptByLastCompaction: number;
  stats: JournalStats;
  /** Set after an I/O failure; every later operation is refused with it. */
  failure: JournalUnavailableError | undefined;
  /** The automatic compaction writing its snapshot in the background, if one is. */
  background: BackgroundCompaction | undefined;
  onCompacted: ((file: string, generation: number) => void) | undefined;
}

/**
 * The journal over an open file. Appends queue up and one drain loop writes them (group commit): the
 * appends made in one tick share one write and one sync, and every append made while that sync runs
 * joins the next batch, so N concurrent appends cost one or two syncs, not N. Compactions take their turn in the same queue, so
 * appends queued before a compaction land in the old file and appends queued after it in the new one.
 */
export function createFileJournal<R>(init: FileJournalInit<R>): Journal<R> {
  const state: FileState = {
    paths: init.paths,
    fsync: init.fsync,
    handle: init.handle,
    size: init.size,
    generation: 0,
    keptByLastCompaction: 0,
    stats: { appends: 0, batches: 0, syncs: 0, compactions: 0, recordsInFile: init.recordsInFile, bytesInFile: init.size },
    failure: undefined,
    background: undefined,
    onCompacted: init.onCompacted,
  };
  const queue: JournalOperation[] = [];
  let draining: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  let autoCompactionQueued = false;

  function enqueue(operation: JournalOperation): void {
    // A background compaction's finish still runs while closing: close() waits for it.
    const refusal =
      closing && operation.kind !== 'finish-compaction'
        ? new JournalUnavailableError(`The journal ${state.paths.file} is closed.`)
        : state.failure;
    if (refusal) return operation.reject(refusal);
    queue.push(operation);
    draining ??= startDrain();
  }

  function startDrain(): Promise<void> {
    // setImmediate, not a microtask: every append made in the current tick joins the first batch.
    return (
      new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => drain(state, queue, queueAutoCompaction, startCompaction))
        // Only a bug gets here (I/O errors are handled per operation); still, never strand a caller.
        .catch((error: unknown) => fail(state, error, [], queue))
        .finally(() => {
          draining = undefined;
          if (queue.length > 0) draining = startDrain();
        })
    );
  }

  let closed: Promise<void> | undefined;
  let lockHandedOver = false;
  function closeFile(): Promise<void> {
    closing ??= (async () => {
      // A background compaction finishes first: its finish takes a turn in the queue once written.
      while (draining || state.background) {
        if (draining) await draining;
        else await state.background?.written.catch(() => undefined);
        // Let its settlement queue the finish (or clear it) before looking again.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await state.handle.close();
    })();
    return closing;
  }

  const compactionSettled = () => {
    autoCompactionQueued = false;
  };
  const compactionFailed = (error: unknown) => {
    compactionSettled();
    init.autoCompaction?.onError(error);
  };

  /**
   * Queues a compaction after a batch once enough records piled up, with a snapshot taken now. At its
   * turn (the appends already queued, which the snapshot reflects by the `snapshot` contract, are then
   * in the file) it starts writing the snapshot in the background; appends go on meanwhile.
   */
  function queueAutoCompaction(): void {
    const auto = init.autoCompaction;
    if (!auto || autoCompactionQueued || closing || state.failure || !compactionDue(state, auto.afterBytes)) return;
    let records: Iterable<R>;
    try {
      // Read while it is written, in the background: the snapshot contract keeps it the state of now.
      records = auto.snapshot();
    } catch (error) {
      return auto.onError(error);
    }
    autoCompactionQueued = true;
    enqueue({ kind: 'start-compaction', records, resolve: () => {}, reject: compactionFailed });
  }

  /** Starts the background write; once it is written, its finish takes a turn among the appends. */
  function startCompaction(records: Iterable<unknown>): void {
    const job = startBackgroundCompaction(state.paths.tmp, records, state.size, state.stats.appends);
    state.background = job;
    job.written.then(
      () => {
        if (state.background !== job) return;
        // Refused (the journal failed): the job ends here, so close() does not wait for it forever.
        const refused = (error: unknown) => {
          if (state.background === job) {
            state.background = undefined;
            void job.cancel();
          }
          compactionFailed(error);
        };
        enqueue({ kind: 'finish-compaction', resolve: compactionSettled, reject: refused });
      },
      (error: unknown) => {
        if (state.background !== job) return;
        state.background = undefined;
        void job.cancel();
        compactionFailed(error);
      },
    );
  }

  return {
    append(record, onDurable) {
      return new Promise<void>((resolve, reject) => {
        enqueue({ kind: 'append', line: encodeRecordLine(record), onDurable, resolve, reject });
      });
    },
    compact(snapshot) {
      return new Promise<void>((resolve, reject) => {
        // Encoded now: the caller's objects may change while earlier appends are still being written.
        enqueue({ kind: 'compact', lines: Array.from(snapshot, encodeRecordLine), resolve, reject });
      });
    },
    async probe() {
      const handle = await open(state.paths.probe, 'w');
      try {
        await writeAt(handle, Buffer.alloc(PROBE_BYTES), 0);
        await handle.datasync();
      } finally {
        await handle.close().catch(() => undefined);
        await rm(state.paths.probe, { force: true });
      }
    },
    async reopen(options) {
      // Only once, and only while this journal still holds the lock: otherwise two would write one file.
      if (closed || lockHandedOver) throw new JournalUnavailableError(`The journal ${state.paths.file} was closed or reopened already.`);
      await closeFile();
      const reopened = await init.reopen(options);
      lockHandedOver = true;
      return reopened;
    },
    stats: () => ({ ...state.stats }),
    close() {
      closed ??= (async () => {
        try {
          await closeFile();
        } finally {
          if (!lockHandedOver) await releaseLock(init.lock);
        }
      })();
      return closed;
    },
  };
}

/** Runs queued operations in order until the queue is empty. */
async function drain(
  state: FileState,
  queue: JournalOperation[],
  afterBatch: () => void,
  startCompaction: (records: Iterable<unknown>) => void,
): Promise<void> {
  while (queue.length > 0 && !state.failure) {
    const next = queue[0];
    if (next?.kind === 'compact') {
      queue.shift();
      // An explicit compaction replaces whatever the background one was writing.
      await state.background?.cancel();
      state.background = undefined;
      await compact(state, next, queue);
    } else if (next?.kind === 'start-compaction') {
      queue.shift();
      startCompaction(next.records);
      next.resolve();
    } else if (next?.kind === 'finish-compaction') {
      queue.shift();
      await finishCompaction(state, next, queue);
    } else {
      await commitBatch(state, takeAppendBatch(queue), queue);
      afterBatch();
    }
  }
}

/** Writes a batch in one write and one sync, then resolves all of its appends. */
async function commitBatch(state: FileState, batch: AppendOperation[], queue: JournalOperation[]): Promise<void> {
  const buffer = batch.length === 1 ? batch[0]!.line : Buffer.concat(batch.map((operation) => operation.line));
  try {
    await writeAt(state.handle, buffer, state.size);
    await syncData(state, state.handle);
  } catch (error) {
    // Best effort: keep records whose append is rejected from being replayed after a restart.
    await state.handle.truncate(state.size).catch(() => undefined);
    return fail(state, error, batch, queue);
  }
  state.size += buffer.length;
  state.stats.batches += 1;
  state.stats.appends += batch.length;
  state.stats.recordsInFile += batch.length;
  state.stats.bytesInFile = state.size;
  tellWhereLinesAre(state, batch, buffer, state.size - buffer.length);
  for (const operation of batch) operation.resolve();
}

/** Tells each append that asked where its line is in `buffer`, written at `offset`: one line per record, each ending in the only `\n` it has. */
function tellWhereLinesAre(state: FileState, batch: AppendOperation[], buffer: Buffer, offset: number): void {
  let last = batch.length - 1;
  while (last >= 0 && batch[last]!.onDurable === undefined) last -= 1;
  let start = 0;
  for (let index = 0; index <= last; index++) {
    const end = buffer.indexOf(NEWLINE, start);
    const json = start + JSON_START_IN_LINE;
    try {
      batch[index]!.onDurable?.(buffer, json, end, offset + json, state.paths.file, state.generation);
    } catch {
      // The record is durable whatever its listener did: the append still resolves.
    }
    start = end + 1;
  }
}

/**
 * Replaces the file with the snapshot: written to a temporary file and synced, renamed over the journal
 * (atomic: a crash leaves the old file or the new one, both complete), then the directory is synced so
 * the rename itself survives a power loss. Appends continue on the new file's handle.
 */
async function compact(
  state: FileState,
  operation: Extract<JournalOperation, { kind: 'compact' }>,
  queue: JournalOperation[],
): Promise<void> {
  const content = Buffer.concat([Buffer.from(JOURNAL_HEADER_LINE), ...operation.lines]);
  let next: FileHandle;
  try {
    next = await writeReplacement(state, content);
  } catch (error) {
    // Nothing was replaced: the journal is intact and keeps working; only this compaction failed.
    return operation.reject(error);
  }
  await adoptReplacement(
    state,
    { handle: next, size: content.length, kept: content.length, records: operation.lines.length },
    operation,
    queue,
  );
}

/**
 * Appends continue on the file that replaced the journal: the old handle is closed, the rename made
 * durable (a directory sync), and the compaction counted.
 */
async function adoptReplacement(
  state: FileState,
  replacement: { handle: FileHandle; size: number; kept: number; records: number },
  operation: JournalOperation,
  queue: JournalOperation[],
): Promise<void> {
  const previous = state.handle;
  state.handle = replacement.handle;
  state.size = replacement.size;
  state.generation += 1;
  // The old file is already replaced: failing to close its handle loses nothing.
  await previous.close().catch(() => undefined);
  try {
    if (state.fsync) {
      await syncDirectory(state.paths.dir);
      state.stats.syncs += 1;
    }
  } catch (error) {
    // The rename may not be durable, so appends to the new file could vanish on a power loss.
    return fail(state, error, [operation], queue);
  }
  state.keptByLastCompaction = replacement.kept;
  state.stats.compactions += 1;
  state.stats.recordsInFile = replacement.records;
  state.stats.bytesInFile = state.size;
  try {
    state.onCompacted?.(state.paths.file, state.generation);
  } catch {
    // The compaction is done whatever its listener did.
  }
  operation.resolve();
}

/**
 * Ends a background compaction at its turn: the lines appended since its snapshot are copied after
 * it, then the file is synced and renamed over the journal, and appends continue on it.
 */
async function finishCompaction(
  state: FileState,
  operation: Extract<JournalOperation, { kind: 'finish-compaction' }>,
  queue: JournalOperation[],
): Promise<void> {
  const job = state.background;
  state.background = undefined;
  // Cancelled by an explicit compaction meanwhile: that one already did the work.
  if (!job) return operation.resolve();
  let finished: Awaited<ReturnType<BackgroundCompaction['finish']>>;
  try {
    const tail = await readRange(state.paths.file, job.tailStart, state.size);
    finished = await job.finish(tail, state.paths.file, state.fsync);
  } catch (error) {
    // Nothing was replaced: the journal is intact and keeps working; only this compaction failed.
    return operation.reject(error);
  }
  if (state.fsync) state.stats.syncs += 1;
  const records = job.records + (state.stats.appends - job.appendsAtStart);
  await adoptReplacement(state, { handle: finished.handle, size: finished.size, kept: finished.snapshotBytes, records }, operation, queue);
}

async function writeReplacement(state: FileState, content: Buffer): Promise<FileHandle> {
  const handle = await writeAndRename(state.paths.tmp, state.paths.file, content, state.fsync);
  if (state.fsync) state.stats.syncs += 1;
  return handle;
}

async function syncData(state: FileState, handle: FileHandle): Promise<void> {
  if (!state.fsync) return;
  // fdatasync: the data and the new file size, without the timestamps a full fsync would also write.
  await handle.datasync();
  state.stats.syncs += 1;
}

/**
 * Refuses every further operation. After a failed sync the kernel may have dropped the dirty pages
 * and cleared the error, so a later sync that succeeds would prove nothing: only reopening (which
 * replays what really is on disk) is safe.
 */
function fail(state: FileState, error: unknown, current: JournalOperation[], queue: JournalOperation[]): void {
  state.failure = new JournalUnavailableError(
    `Writing the journal ${state.paths.file} failed (${error instanceof Error ? error.message : String(error)}); ` +
      'it accepts nothing more. Reopen it to continue from what is on disk.',
    { cause: error },
  );
  for (const operation of [...current, ...queue.splice(0)]) operation.reject(state.failure);
}

/**
 * Compact once {@link GROWTH} times the bytes the last compaction wrote were appended since (and at
 * least `afterBytes`). Counted in bytes, not records: a compaction costs its bytes, and a snapshot
 * line can be a queue (tens of bytes) or a message with its log (kilobytes). A restart replays at
 * most GROWTH + 1 times the live state; writing snapshots costs 1/GROWTH of the appends.
 */
const GROWTH = 4;

function compactionDue(state: FileState, afterBytes: number): boolean {
  const appended = state.size - state.keptByLastCompaction;
  return appended >= Math.max(afterBytes, state.keptByLastCompaction * GROWTH);
}

/** The files of one journal inside its directory. */
export interface JournalPaths {
  dir: string;
  /** The journal itself. */
  file: string;
  /** Where compaction builds the next file before renaming it over `file`. */
  tmp: string;
  /** Exclusive lock naming the process that has the journal open. */
  lock: string;
  /** Written and removed by `probe()` to see whether the disk takes writes again. */
  probe: string;
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
    probe: join(dir, `${name}.space-probe`),
  };
}

/**
 * What a caller waits for: one append or one compaction, settled when it is durable or failed; and
 * the two turns of an automatic compaction (its start, then its finish once the snapshot is written).
 */
type JournalOperation = (
  | { kind: 'append'; line: Buffer; onDurable: OnDurableLine | undefined }
  | { kind: 'compact'; lines: Buffer[] }
  | { kind: 'start-compaction'; records: Iterable<unknown> }
  | { kind: 'finish-compaction' }
) & {
  resolve: () => void;
  reject: (error: unknown) => void;
};

type AppendOperation = Extract<JournalOperation, { kind: 'append' }>;

/** What `probe()` writes: room for a few batches of ordinary appends, so writes do not fail again at once. */
const PROBE_BYTES = 1024 * 1024;

/**
 * Cap on one batch, so a burst of appends does not build one huge string; a batch this size already
 * spreads one sync over thousands of records.
 */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Takes the run of appends at the front of `queue` (up to {@link MAX_BATCH_BYTES}; at least one), for
 * one write and one sync. Stops at a compaction, which must see exactly the appends queued before it.
 */
function takeAppendBatch(queue: JournalOperation[]): AppendOperation[] {
  let count = 0;
  let bytes = 0;
  for (let next = queue[0]; next?.kind === 'append'; next = queue[count]) {
    if (count > 0 && bytes + next.line.length > MAX_BATCH_BYTES) break;
    bytes += next.line.length;
    count += 1;
  }
  // One splice, not a shift per record: a large batch would make that quadratic.
  return queue.splice(0, count) as AppendOperation[];
}
