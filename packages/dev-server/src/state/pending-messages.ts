import type { MessageRecord } from './records';
import type { StoredMessageLine } from './stored-message-lines';
import { grown, type StoredLine, StoredMessages } from './stored-messages';

const INITIAL_SLOTS = 1024;

/**
 * The messages not yet delivered or failed for good, by id: the one place they are kept, so how they
 * are held can change without touching their readers. A message has a slot; its progress is in typed
 * arrays at that slot, so a pending message costs its record and a map entry, with no wrapper object
 * and no boxed due time (a dev server often holds 100,000 delayed messages).
 *
 * A plain message a restart reads back is kept as where its journal line is until it is read
 * ({@link putStored}, stored-messages.ts): a restart then parses and holds none of them. Every read
 * goes through {@link recordAt}.
 *
 * Iteration follows the order the messages were put in, which is acceptance (`seq`) order unless an
 * older message was put back; {@link forEachInAcceptanceOrder} sorts only then.
 */
export class PendingMessages {
  private readonly indexed = new Map<string, number>();
  /**
   * Plain messages a replay put in ({@link putStored}) and not yet in {@link indexed}, in the order they
   * came: a restart answers before 100,000 ids are hashed, and the first read by id indexes them.
   */
  private unindexedIds: string[] = [];
  private unindexedSlots: number[] = [];
  /** By slot; `undefined` for a free slot, or one whose message is kept in {@link stored}. */
  private readonly records: Array<MessageRecord | undefined> = new Array(INITIAL_SLOTS).fill(undefined);
  private readonly stored = new StoredMessages();
  private dueTimes = new Float64Array(INITIAL_SLOTS);
  /** Each message's `seq`, for the order of a walk without reading a message left in the journal. */
  private seqs = new Float64Array(INITIAL_SLOTS);
  private retries = new Int32Array(INITIAL_SLOTS);
  private starts = new Uint8Array(INITIAL_SLOTS);
  /** Slots given back by deleted messages, reused before new ones. */
  private freeSlots = new Int32Array(INITIAL_SLOTS);
  private freeCount = 0;
  private usedSlots = 0;
  private inOrder = true;
  private newestSeq = 0;

  /** Exact without indexing: each send draws a new id, so none is unindexed twice, or indexed too. */
  get size(): number {
    return this.indexed.size + this.unindexedIds.length;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  get(id: string): MessageRecord | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.recordAt(slot);
  }

  /** The message's record when it is held read; `undefined` when it is left in the journal, or not pending. */
  held(id: string): MessageRecord | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.records[slot];
  }

  /** The message's attempts so far; 0 for a message that is not pending. */
  retried(id: string): number {
    const slot = this.slots.get(id);
    return slot === undefined ? 0 : this.retries[slot]!;
  }

  /** When the message is next attempted, or `undefined` when it is not pending. */
  dueAt(id: string): number | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.dueTimes[slot];
  }

  started(id: string): boolean {
    const slot = this.slots.get(id);
    return slot !== undefined && this.starts[slot] === 1;
  }

  /**
   * Adds the message, or replaces it in its place. `retried` is the attempts made so far (the
   * `<P>-Retried` value of the next one), `dueAt` when the next is made, on the real clock, and
   * `started` whether one was made (a started queue message keeps its queue until it settles).
   */
  put(record: MessageRecord, retried = 0, dueAt = record.dueAt, started = false): void {
    const slot = this.slotFor(record.id, record.seq);
    this.stored.release(slot);
    this.records[slot] = record;
    this.dueTimes[slot] = dueAt;
    this.retries[slot] = retried;
    this.starts[slot] = started ? 1 : 0;
  }

  /**
   * Adds a plain message as a journal line holds it (the line starts at `line.start` of what was read,
   * at `line.offset` in `line.file`), kept as where it is until it is read: never attempted, due when it
   * said. Indexed by id at the first read by id (one already pending is then replaced: {@link index}).
   */
  putStored(scanned: StoredMessageLine, line: StoredLine): void {
    const slot = this.takeSlot();
    this.noteSeq(slot, scanned.seq);
    this.unindexedIds.push(scanned.id);
    this.unindexedSlots.push(slot);
    this.records[slot] = undefined;
    this.stored.keep(slot, scanned, line);
    this.dueTimes[slot] = scanned.dueAt;
    this.retries[slot] = 0;
    this.starts[slot] = 0;
  }

  /**
   * Leaves in the journal a message put in as `record`, now durable there as `scanned` (its line is
   * `line`), while it still is as it was put in: never attempted, due when it said. A message waiting
   * long then costs what a restart's does, not its record (docs/benchmarks.md, the scale section).
   * Returns whether it did: its log entries then name it by id (message-index.ts `nameInLog`).
   */
  putAside(record: MessageRecord, scanned: StoredMessageLine, line: StoredLine): boolean {
    const slot = this.slots.get(record.id);
    if (slot === undefined || this.records[slot] !== record || this.starts[slot] === 1 || this.retries[slot] !== 0) return false;
    if (this.dueTimes[slot] !== scanned.dueAt || scanned.id !== record.id) return false;
    // Kept first: a file that cannot be opened leaves the message held.
    this.stored.keep(slot, scanned, line);
    this.records[slot] = undefined;
    return true;
  }

  /**
   * A compaction wrote the journal's `generation`-th file `file`: opened now (while it is that file), as
   * the file messages left in older ones are moved to ({@link moveStored}). False when none is left in
   * an older one, and nothing was opened.
   */
  follow(file: string, generation: number): boolean {
    if (!this.stored.keepsOlderThan(generation)) return false;
    this.stored.follow(file, generation);
    return true;
  }

  /**
   * Points a message left in an older journal file at its line `line` in the file a compaction wrote
   * since (read there as `scanned`), while it is still as that line has it: never attempted, due when
   * it said. Once none is left in it, the older file is closed and its bytes leave the disk.
   */
  moveStored(scanned: StoredMessageLine, line: StoredLine): void {
    const slot = this.slots.get(scanned.id);
    if (slot === undefined || this.records[slot] !== undefined || this.seqs[slot] !== scanned.seq) return;
    const generation = this.stored.generationOf(slot);
    if (generation < 0 || generation >= line.generation) return;
    if (this.starts[slot] === 1 || this.retries[slot] !== 0 || this.dueTimes[slot] !== scanned.dueAt) return;
    this.stored.keep(slot, scanned, line);
  }

  /** A journal was read to its end: see {@link StoredMessages.doneReading}. */
  doneReading(): void {
    this.stored.doneReading();
  }

  /** Lets go of the files messages are kept in: this set is dropped (a store closed or reloaded). */
  close(): void {
    this.stored.close();
  }

  /** Removes the message; returns its record, or `undefined` when it was not pending. */
  delete(id: string): MessageRecord | undefined {
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    const record = this.recordAt(slot);
    this.slots.delete(id);
    this.freeSlot(slot);
    // An empty set is in order again: the next message cannot come after an older one.
    if (this.slots.size === 0) {
      this.inOrder = true;
      this.newestSeq = 0;
    }
    return record;
  }

  /** Notes that an attempt of the message was made. */
  markStarted(id: string): void {
    const slot = this.slots.get(id);
    if (slot !== undefined) this.starts[slot] = 1;
  }

  /** After a failed attempt: the next one is the message's `retried`-th retry, due at `dueAt`. */
  retryAt(id: string, retried: number, dueAt: number): void {
    const slot = this.slots.get(id);
    if (slot === undefined) return;
    this.retries[slot] = retried;
    this.dueTimes[slot] = dueAt;
  }

  /** Makes the message due at `at` if it was due later. */
  bringForward(id: string, at: number): void {
    const slot = this.slots.get(id);
    if (slot !== undefined && this.dueTimes[slot]! > at) this.dueTimes[slot] = at;
  }

  /**
   * The pending messages' records, in the order they were put in, for a walk that awaits between
   * them: a message put in meanwhile is visited too, one deleted before it is reached is not.
   */
  values(): IterableIterator<MessageRecord> {
    return new RecordWalk(this.slots.values(), (slot) => this.recordAt(slot));
  }

  /** Visits every pending message's record, in the order they were put in. `visit` must not change the set. */
  forEach(visit: (record: MessageRecord) => void): void {
    this.slots.forEach((slot) => {
      visit(this.recordAt(slot));
    });
  }

  /** Visits every pending message with its progress, oldest accepted first. `visit` must not change the set. */
  forEachInAcceptanceOrder(visit: (record: MessageRecord, retried: number, dueAt: number, started: boolean) => void): void {
    const { retries, dueTimes, starts } = this;
    this.forEachSlotInAcceptanceOrder((slot) => visit(this.recordAt(slot), retries[slot]!, dueTimes[slot]!, starts[slot] === 1));
  }

  /**
   * As {@link forEachInAcceptanceOrder}, for a snapshot written later: a message left in the journal comes as a
   * function that reads it then (its bytes never change), so it is neither read now nor held read.
   */
  forEachToSnapshot(
    visit: (record: MessageRecord | (() => MessageRecord), retried: number, dueAt: number, started: boolean) => void,
  ): void {
    const { records, retries, dueTimes, starts } = this;
    this.forEachSlotInAcceptanceOrder((slot) =>
      visit(records[slot] ?? this.stored.reader(slot), retries[slot]!, dueTimes[slot]!, starts[slot] === 1),
    );
  }

  /**
   * Visits every pending message's id and due time, oldest accepted first, with its record only when it
   * is held read: a message left in the journal is a plain one (no queue, no flow control), not read for this.
   */
  forEachDueInAcceptanceOrder(visit: (id: string, dueAt: number, started: boolean, held: MessageRecord | undefined) => void): void {
    const { records, dueTimes, starts } = this;
    this.forEachSlotInAcceptanceOrder((slot, id) => visit(id, dueTimes[slot]!, starts[slot] === 1, records[slot]));
  }

  /**
   * The ids of the pending messages held read that `test` accepts, in the order they were put in: for a
   * test of what a message left in the journal never has (a queue, a workflow), which is not read for it.
   */
  heldIdsWhere(test: (record: MessageRecord) => boolean): string[] {
    const ids: string[] = [];
    this.forEachSlot((slot) => {
      const record = this.records[slot];
      if (record !== undefined && test(record)) ids.push(record.id);
    });
    return ids;
  }

  /** How many messages wait in each queue, in one pass (a message left in the journal has no queue, and is not read). */
  countPerQueue(): Map<string, number> {
    const counts = new Map<string, number>();
    this.forEachSlot((slot) => {
      const queue = this.records[slot]?.queue;
      if (queue !== undefined) counts.set(queue, (counts.get(queue) ?? 0) + 1);
    });
    return counts;
  }

  /** The message in `slot`: held, or read from its bytes once and held from then on. */
  private recordAt(slot: number): MessageRecord {
    let record = this.records[slot];
    if (record === undefined) {
      record = this.stored.read(slot);
      this.stored.release(slot);
      this.records[slot] = record;
    }
    return record;
  }

  /** The slot of message `id` (a new one when it is not pending), noting the order it came in. */
  private slotFor(id: string, seq: number): number {
    const { slots } = this;
    let slot = slots.get(id);
    if (slot === undefined) {
      slot = this.takeSlot();
      slots.set(id, slot);
    }
    this.noteSeq(slot, seq);
    return slot;
  }

  private noteSeq(slot: number, seq: number): void {
    if (seq < this.newestSeq) this.inOrder = false;
    this.newestSeq = Math.max(this.newestSeq, seq);
    this.seqs[slot] = seq;
  }

  /** Every message by id: the unindexed ones are indexed first. */
  private get slots(): Map<string, number> {
    if (this.unindexedIds.length > 0) this.index();
    return this.indexed;
  }

  /** Indexes the unindexed messages by id; were one pending twice all the same, its later line is kept. */
  private index(): void {
    const { indexed, unindexedIds: ids, unindexedSlots: slots } = this;
    this.unindexedIds = [];
    this.unindexedSlots = [];
    for (let index = 0; index < ids.length; index++) {
      const earlier = indexed.get(ids[index]!);
      if (earlier !== undefined) {
        indexed.delete(ids[index]!);
        this.freeSlot(earlier);
      }
      indexed.set(ids[index]!, slots[index]!);
    }
  }

  /** Visits every slot in use, in the order they were put in, without indexing the unindexed. */
  private forEachSlot(visit: (slot: number, id: string) => void): void {
    this.indexed.forEach(visit);
    const { unindexedIds: ids, unindexedSlots: slots } = this;
    for (let index = 0; index < ids.length; index++) visit(slots[index]!, ids[index]!);
  }

  /** Every slot in use with its message's id, oldest accepted first. */
  private forEachSlotInAcceptanceOrder(visit: (slot: number, id: string) => void): void {
    // Walked with forEach as they are when in order: 100,000 messages after a restart cost no copy,
    // no sort and no iterator result each (this runs once at start, before any of it is optimised).
    if (this.inOrder) {
      this.forEachSlot(visit);
      return;
    }
    const { seqs } = this;
    for (const [id, slot] of [...this.slots].sort((a, b) => seqs[a[1]]! - seqs[b[1]]!)) visit(slot, id);
  }

  private freeSlot(slot: number): void {
    this.stored.release(slot);
    this.records[slot] = undefined;
    this.freeSlots[this.freeCount++] = slot;
  }

  /** A slot given back by a deleted message, or a new one. */
  private takeSlot(): number {
    if (this.freeCount > 0) return this.freeSlots[--this.freeCount]!;
    const slot = this.usedSlots++;
    if (slot === this.dueTimes.length) {
      const capacity = slot * 2;
      this.dueTimes = grown(this.dueTimes, new Float64Array(capacity));
      this.seqs = grown(this.seqs, new Float64Array(capacity));
      this.retries = grown(this.retries, new Int32Array(capacity));
      this.starts = grown(this.starts, new Uint8Array(capacity));
      this.freeSlots = grown(this.freeSlots, new Int32Array(capacity));
      for (let index = slot; index < capacity; index += 1) this.records.push(undefined);
    }
    return slot;
  }
}

/** Records by slot over the live iterator of the slots (a generator costs several times as much per message). */
class RecordWalk implements IterableIterator<MessageRecord> {
  constructor(
    private readonly slots: IterableIterator<number>,
    private readonly recordAt: (slot: number) => MessageRecord,
  ) {}

  next(): IteratorResult<MessageRecord> {
    const step = this.slots.next();
    return step.done ? { done: true, value: undefined } : { done: false, value: this.recordAt(step.value) };
  }

  [Symbol.iterator](): IterableIterator<MessageRecord> {
    return this;
  }
}
