import { createSeqHeap } from './seq-heap';

/** What the dispatcher needs to know about a message. */
export interface DispatchInfo {
  seq: number;
  queue: string | undefined;
}

/**
 * Decides which due message is attempted next: queues deliver in acceptance order, one message at a
 * time, and a message keeps its queue from its first attempt until it settles (so a retrying message
 * holds back the ones behind it, as the service's queues do); across queues and for callbacks, at
 * most `maxInFlight` attempts run at once (the plan's `max_global_parallelism`), lowest acceptance
 * number first.
 */
export interface Dispatcher {
  /** The message is due: attempt it as soon as its queue and the global limit allow. */
  ready(id: string): void;
  /** Its attempt ended. `settled`: delivered or failed for good, so its queue is free again. */
  finished(id: string, settled: boolean): void;
  /** After a restart: a message that had started keeps its queue. */
  hold(queue: string, id: string): void;
  /** Attempts running now. */
  inFlight(): number;
  /** Stops starting attempts (on close). */
  stop(): void;
}

export interface DispatcherOptions {
  maxInFlight: number;
  /** Looks a message up; `undefined` when it is no longer pending. */
  info(id: string): DispatchInfo | undefined;
  /** Starts one attempt; the dispatcher is told the end through `finished`. */
  start(id: string): void;
}

interface DueMessage {
  id: string;
  seq: number;
  queue: string | undefined;
}

/** One queue: the message holding it (from its first attempt until it settles) and the due ones behind it. */
interface QueueState {
  holder: DueMessage | undefined;
  /** The holder is due again (a retry): it goes next, whatever is waiting behind it. */
  holderDue: boolean;
  /** Due messages in acceptance order, from index `head` on (a shift per start would be O(n)). */
  waiting: DueMessage[];
  head: number;
}

/**
 * Creates a {@link Dispatcher}. Every operation costs O(log n): each queue keeps its due messages in
 * order, and a heap holds each queue's next candidate (and every due message outside a queue) by
 * acceptance number. A heap entry is checked when it comes out, so one that went stale (its queue's
 * candidate changed) is simply dropped; every change of a candidate pushes a fresh entry.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const due = new Map<string, DueMessage>();
  const queues = new Map<string, QueueState>();
  // Running attempts by id, with the queue each holds (the message is gone from the store by the
  // time a settled attempt is reported finished).
  const running = new Map<string, DueMessage>();
  const heap = createSeqHeap<DueMessage>();
  let stopped = false;
  let pumping = false;

  const queueState = (name: string): QueueState => {
    let state = queues.get(name);
    if (!state) {
      state = { holder: undefined, holderDue: false, waiting: [], head: 0 };
      queues.set(name, state);
    }
    return state;
  };

  const candidate = (state: QueueState): DueMessage | undefined => {
    if (state.holder) return state.holderDue && !running.has(state.holder.id) ? state.holder : undefined;
    return state.waiting[state.head];
  };

  const offer = (state: QueueState): void => {
    const next = candidate(state);
    if (next) heap.push(next);
  };

  const startNext = (entry: DueMessage): void => {
    if (entry.queue === undefined) {
      if (!due.has(entry.id) || running.has(entry.id)) return;
    } else {
      const state = queues.get(entry.queue);
      if (!state || candidate(state) !== entry) return;
      if (state.holder === entry) state.holderDue = false;
      else takeHead(state, entry);
    }
    due.delete(entry.id);
    running.set(entry.id, entry);
    options.start(entry.id);
  };

  const pump = (): void => {
    // `start` may call `finished` synchronously (a message that is no longer pending): the running
    // loop picks up whatever that freed, so a nested pump has nothing to do.
    if (pumping) return;
    pumping = true;
    try {
      while (!stopped && running.size < options.maxInFlight) {
        const entry = heap.pop();
        if (!entry) break;
        startNext(entry);
      }
    } finally {
      pumping = false;
    }
  };

  return {
    ready(id) {
      if (due.has(id)) return;
      const info = options.info(id);
      if (!info) return;
      const entry: DueMessage = { id, seq: info.seq, queue: info.queue };
      due.set(id, entry);
      if (info.queue === undefined) {
        heap.push(entry);
      } else {
        const state = queueState(info.queue);
        if (state.holder?.id === id) {
          state.holder = entry;
          state.holderDue = true;
        } else {
          insertInOrder(state, entry);
        }
        offer(state);
      }
      pump();
    },
    finished(id, settled) {
      const queue = running.get(id)?.queue;
      running.delete(id);
      const state = queue === undefined ? undefined : queues.get(queue);
      if (state && state.holder?.id === id) {
        if (settled) {
          state.holder = undefined;
          state.holderDue = false;
          due.delete(id);
        }
        if (!state.holder && state.head >= state.waiting.length) queues.delete(queue!);
        else offer(state);
      } else if (settled) {
        due.delete(id);
      } else {
        // Made due again while it ran (outside a queue): its heap entry was dropped as running.
        const entry = due.get(id);
        if (entry) heap.push(entry);
      }
      pump();
    },
    hold(queue, id) {
      const state = queueState(queue);
      const info = options.info(id);
      if (!state.holder && info) state.holder = { id, seq: info.seq, queue };
    },
    inFlight: () => running.size,
    stop() {
      stopped = true;
    },
  };
}

/** Inserts by acceptance number; a new message almost always goes last, so the walk is short. */
function insertInOrder(state: QueueState, entry: DueMessage): void {
  const { waiting } = state;
  let index = waiting.length;
  while (index > state.head && waiting[index - 1]!.seq > entry.seq) index -= 1;
  if (index === waiting.length) waiting.push(entry);
  else waiting.splice(index, 0, entry);
}

/** The queue's first waiting message starts and holds the queue. */
function takeHead(state: QueueState, entry: DueMessage): void {
  state.holder = entry;
  state.holderDue = false;
  state.waiting[state.head] = undefined as unknown as DueMessage;
  state.head += 1;
  // Drop the consumed front now and then, so a long-lived queue does not keep every message it ran.
  if (state.head === state.waiting.length) {
    state.waiting = [];
    state.head = 0;
  } else if (state.head >= 1024 && state.head * 2 >= state.waiting.length) {
    state.waiting = state.waiting.slice(state.head);
    state.head = 0;
  }
}
