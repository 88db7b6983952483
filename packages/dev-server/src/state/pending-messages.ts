import type { MessageRecord } from './records';

const INITIAL_SLOTS = 1024;

/**
 * The messages not yet delivered or failed for good, by id: the one place they are kept, so how they
 * are held can change without touching their readers. A message has a slot; its progress is in typed
 * arrays at that slot, so a pending message costs its record and a map entry, with no wrapper object
 * and no boxed due time (a dev server often holds 100,000 delayed messages).
 *
 * Iteration follows the order the messages were put in, which is acceptance (`seq`) order unless an
 * older message was put back; {@link forEachInAcceptanceOrder} sorts only then.
 */
export class PendingMessages {
  private readonly slots = new Map<string, number>();
  private readonly records: Array<MessageRecord | undefined> = new Array(INITIAL_SLOTS).fill(undefined);
  private dueTimes = new Float64Array(INITIAL_SLOTS);
  private retries = new Int32Array(INITIAL_SLOTS);
  private starts = new Uint8Array(INITIAL_SLOTS);
  /** Slots given back by deleted messages, reused before new ones. */
  private freeSlots = new Int32Array(INITIAL_SLOTS);
  private freeCount = 0;
  private usedSlots = 0;
  private inOrder = true;
  private newestSeq = 0;

  get size(): number {
    return this.slots.size;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  get(id: string): MessageRecord | undefined {
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
    let slot = this.slots.get(record.id);
    if (slot === undefined) {
      if (record.seq < this.newestSeq) this.inOrder = false;
      slot = this.freeCount > 0 ? this.freeSlots[--this.freeCount]! : this.newSlot();
      this.slots.set(record.id, slot);
    }
    this.newestSeq = Math.max(this.newestSeq, record.seq);
    this.records[slot] = record;
    this.dueTimes[slot] = dueAt;
    this.retries[slot] = retried;
    this.starts[slot] = started ? 1 : 0;
  }

  /** Removes the message; returns its record, or `undefined` when it was not pending. */
  delete(id: string): MessageRecord | undefined {
    const slot = this.slots.get(id);
    if (slot === undefined) return undefined;
    this.slots.delete(id);
    const record = this.records[slot];
    this.records[slot] = undefined;
    this.freeSlots[this.freeCount++] = slot;
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
    return new RecordWalk(this.slots.values(), this.records);
  }

  /** Visits every pending message's record, in the order they were put in. `visit` must not change the set. */
  forEach(visit: (record: MessageRecord) => void): void {
    this.slots.forEach((slot) => {
      visit(this.records[slot]!);
    });
  }

  /** Visits every pending message with its progress, oldest accepted first. `visit` must not change the set. */
  forEachInAcceptanceOrder(visit: (record: MessageRecord, retried: number, dueAt: number, started: boolean) => void): void {
    const { records, retries, dueTimes, starts } = this;
    // Walked with forEach as they are when in order: 100,000 messages after a restart cost no copy,
    // no sort and no iterator result each (this runs once at start, before any of it is optimised).
    const each = (slot: number) => visit(records[slot]!, retries[slot]!, dueTimes[slot]!, starts[slot] === 1);
    if (this.inOrder) this.slots.forEach(each);
    else [...this.slots.values()].sort((a, b) => records[a]!.seq - records[b]!.seq).forEach(each);
  }

  /** The ids of the pending messages `test` accepts, in the order they were put in. */
  idsWhere(test: (record: MessageRecord) => boolean): string[] {
    const ids: string[] = [];
    this.forEach((record) => {
      if (test(record)) ids.push(record.id);
    });
    return ids;
  }

  /** How many messages wait in each queue, in one pass. */
  countPerQueue(): Map<string, number> {
    const counts = new Map<string, number>();
    this.forEach(({ queue }) => {
      if (queue !== undefined) counts.set(queue, (counts.get(queue) ?? 0) + 1);
    });
    return counts;
  }

  private newSlot(): number {
    const slot = this.usedSlots++;
    if (slot === this.dueTimes.length) {
      const capacity = slot * 2;
      const grown = <T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T => {
        to.set(from);
        return to;
      };
      this.dueTimes = grown(this.dueTimes, new Float64Array(capacity));
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
    private readonly records: ReadonlyArray<MessageRecord | undefined>,
  ) {}

  next(): IteratorResult<MessageRecord> {
    const step = this.slots.next();
    return step.done ? { done: true, value: undefined } : { done: false, value: this.records[step.value]! };
  }

  [Symbol.iterator](): IterableIterator<MessageRecord> {
    return this;
  }
}
