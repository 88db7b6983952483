/** What the dispatcher needs to know about a message. */
export interface DispatchInfo {
  seq: number;
  queue: string | undefined;
  flowKey: string | undefined;
}

/** A queue's limits as they are now. */
export interface QueueLimits {
  parallelism: number;
  paused: boolean;
}

/** A flow-control key's limits as they are now (pinned ones, else the latest message's). */
export interface FlowLimits {
  paused: boolean;
  parallelism: number | undefined;
  rate: number | undefined;
  /** Real milliseconds per rate period (already time-scaled). */
  periodMs: number;
}

/** A flow-control key's live counters, for `GET /v2/flowControl/{key}`. */
export interface FlowCounters {
  running: number;
  waiting: number;
  windowStart: number;
  windowCount: number;
}

/**
 * Decides which due message is attempted next. Queues deliver in acceptance order, `parallelism` at
 * a time (default one), and a message keeps its queue slot from its first attempt until it settles
 * (so a retrying message holds back the ones behind it, as the service's queues do); a paused queue
 * starts nothing. A flow-control key caps the attempts of its messages running at once and started
 * per rate period, across queues and publishes; a paused key starts nothing. Across everything, at
 * most `maxInFlight` attempts run at once (the plan's `max_global_parallelism`), lowest acceptance
 * number first.
 */
export interface Dispatcher {
  /** The message is due: attempt it as soon as its queue, its key and the global limit allow. */
  ready(id: string): void;
  /** Its attempt ended. `settled`: delivered or failed for good, so its queue slot is free again. */
  finished(id: string, settled: boolean): void;
  /** After a restart: a message that had started keeps its queue slot. */
  hold(queue: string, id: string): void;
  /** The message was cancelled: forget it wherever it waits (a running attempt still reports `finished`). */
  forget(id: string): void;
  /** Queue or key limits changed (pause, resume, upsert, pin): look at everything waiting again. */
  refresh(): void;
  /** Attempts running now. */
  inFlight(): number;
  flowCounters(key: string): FlowCounters;
  /** Starts a new rate period for the key now. */
  resetRate(key: string): void;
  /** Stops starting attempts (on close). */
  stop(): void;
}

export interface DispatcherOptions {
  maxInFlight: number;
  /** Looks a message up; `undefined` when it is no longer pending. */
  info(id: string): DispatchInfo | undefined;
  /**
   * Starts one attempt (the dispatcher is told the end through `finished`); `at` is when it was
   * decided, which a key's rate period counts from: the attempt's start.
   */
  start(id: string, at: number): void;
  queueLimits(name: string): QueueLimits;
  flowLimits(key: string): FlowLimits;
  now(): number;
  /** Calls `wake` at real time `at` (the end of a rate period); one pending wake per key is enough. */
  wakeAt(key: string, at: number, wake: () => void): void;
}

/** A message the dispatcher holds: what it knows of it, and its id. */
interface DueMessage extends DispatchInfo {
  id: string;
}

/** One queue: the messages holding a slot (from first attempt until settled) and the due ones behind them. */
interface QueueState {
  /** Slot holders; `due`: made due again (a retry), so it goes before anything waiting. */
  holders: Map<string, { entry: DueMessage; due: boolean }>;
  /** Due messages in acceptance order, from index `head` on (a shift per start would be O(n)). */
  waiting: DueMessage[];
  head: number;
}

interface FlowState extends FlowCounters {
  /** Candidates that came out of the heap while the key was full: they go back when it frees. */
  parked: Map<string, DueMessage>;
}

/**
 * Creates a {@link Dispatcher}. Starting costs O(log n): each queue offers its candidates to one
 * heap ordered by acceptance number, and an entry is checked when it comes out, so one that went
 * stale (its queue moved on, it was cancelled) is simply dropped.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const due = new Map<string, DueMessage>();
  const queues = new Map<string, QueueState>();
  const flows = new Map<string, FlowState>();
  // Running attempts by id (the message is gone from the store by the time a settled attempt reports).
  const running = new Map<string, DueMessage>();
  const heap = createSeqHeap<DueMessage>();
  let stopped = false;
  let pumping = false;

  const queueState = (name: string): QueueState => {
    let state = queues.get(name);
    if (!state) {
      state = { holders: new Map(), waiting: [], head: 0 };
      queues.set(name, state);
    }
    return state;
  };

  const flowState = (key: string): FlowState => {
    let state = flows.get(key);
    if (!state) {
      state = { running: 0, waiting: 0, windowStart: 0, windowCount: 0, parked: new Map() };
      flows.set(key, state);
    }
    return state;
  };

  const isCandidate = (entry: DueMessage): boolean => {
    if (running.has(entry.id) || due.get(entry.id) !== entry) return false;
    if (entry.queue === undefined) return true;
    const state = queues.get(entry.queue);
    if (!state) return false;
    const limits = options.queueLimits(entry.queue);
    if (limits.paused) return false;
    const holder = state.holders.get(entry.id);
    if (holder) return holder.due;
    return state.waiting[state.head] === entry && state.holders.size < limits.parallelism;
  };

  /** Pushes the queue's candidates: every holder due again, and the first waiting message. */
  const offer = (state: QueueState): void => {
    for (const holder of state.holders.values()) if (holder.due && !running.has(holder.entry.id)) heap.push(holder.entry);
    const next = state.waiting[state.head];
    if (next) heap.push(next);
  };

  /** Whether the key lets one more attempt start now; when not, the entry waits in the key. */
  const flowAllows = (entry: DueMessage, now: number): boolean => {
    if (entry.flowKey === undefined) return true;
    const key = entry.flowKey;
    const flow = flowState(key);
    const limits = options.flowLimits(key);
    let allowed = !limits.paused && (limits.parallelism === undefined || flow.running < limits.parallelism);
    if (allowed && limits.rate !== undefined) {
      if (now - flow.windowStart >= limits.periodMs) {
        flow.windowStart = now;
        flow.windowCount = 0;
      }
      if (flow.windowCount >= limits.rate) {
        allowed = false;
        options.wakeAt(key, flow.windowStart + limits.periodMs, () => release(key));
      }
    }
    if (!allowed) flow.parked.set(entry.id, entry);
    return allowed;
  };

  const release = (key: string): void => {
    const flow = flows.get(key);
    if (!flow) return;
    for (const entry of flow.parked.values()) heap.push(entry);
    flow.parked.clear();
    pump();
  };

  const startNext = (entry: DueMessage): void => {
    // One clock reading for the rate window and the attempt's start, so attempts a period apart are
    // logged at least a period apart (two readings could straddle a millisecond).
    const now = options.now();
    if (!isCandidate(entry) || !flowAllows(entry, now)) return;
    if (entry.flowKey !== undefined) {
      const flow = flowState(entry.flowKey);
      flow.running += 1;
      flow.windowCount += 1;
    }
    const state = entry.queue === undefined ? undefined : queues.get(entry.queue);
    if (state) {
      const holder = state.holders.get(entry.id);
      if (holder) holder.due = false;
      else takeHead(state, entry);
    }
    due.delete(entry.id);
    running.set(entry.id, entry);
    options.start(entry.id, now);
    // With parallelism above one, the message behind it may start too.
    if (state) offer(state);
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

  const dropQueueIfIdle = (name: string, state: QueueState): void => {
    if (state.holders.size === 0 && state.head >= state.waiting.length) queues.delete(name);
  };

  return {
    ready(id) {
      if (due.has(id)) return;
      const info = options.info(id);
      if (!info) return;
      const entry: DueMessage = { id, seq: info.seq, queue: info.queue, flowKey: info.flowKey };
      due.set(id, entry);
      if (info.queue === undefined) {
        heap.push(entry);
      } else {
        const state = queueState(info.queue);
        const holder = state.holders.get(id);
        if (holder) {
          holder.entry = entry;
          holder.due = true;
        } else {
          insertInOrder(state, entry);
        }
        offer(state);
      }
      pump();
    },
    finished(id, settled) {
      const entry = running.get(id);
      running.delete(id);
      if (entry?.flowKey !== undefined) {
        const flow = flowState(entry.flowKey);
        flow.running = Math.max(0, flow.running - 1);
        for (const parked of flow.parked.values()) heap.push(parked);
        flow.parked.clear();
      }
      const state = entry?.queue === undefined ? undefined : queues.get(entry.queue);
      if (state?.holders.has(id)) {
        if (settled) {
          state.holders.delete(id);
          due.delete(id);
        }
        offer(state);
        dropQueueIfIdle(entry!.queue!, state);
      } else if (settled) {
        due.delete(id);
      } else {
        // Made due again while it ran (outside a queue): its heap entry was dropped as running.
        const again = due.get(id);
        if (again) heap.push(again);
      }
      pump();
    },
    hold(queue, id) {
      const state = queueState(queue);
      const info = options.info(id);
      if (info && !state.holders.has(id)) state.holders.set(id, { entry: { id, ...info }, due: false });
    },
    forget(id) {
      const entry = due.get(id);
      due.delete(id);
      for (const flow of flows.values()) flow.parked.delete(id);
      const name = entry?.queue ?? [...queues.entries()].find(([, state]) => state.holders.has(id))?.[0];
      const state = name === undefined ? undefined : queues.get(name);
      if (!state || name === undefined) return;
      if (!running.has(id)) state.holders.delete(id);
      const at = state.waiting.indexOf(entry!, state.head);
      if (entry && at !== -1) state.waiting.splice(at, 1);
      offer(state);
      dropQueueIfIdle(name, state);
      pump();
    },
    refresh() {
      for (const state of queues.values()) offer(state);
      for (const key of flows.keys()) {
        const flow = flows.get(key)!;
        for (const parked of flow.parked.values()) heap.push(parked);
        flow.parked.clear();
      }
      pump();
    },
    inFlight: () => running.size,
    flowCounters(key) {
      const flow = flows.get(key);
      if (!flow) return { running: 0, waiting: 0, windowStart: 0, windowCount: 0 };
      return { running: flow.running, waiting: flow.parked.size, windowStart: flow.windowStart, windowCount: flow.windowCount };
    },
    resetRate(key) {
      const flow = flowState(key);
      flow.windowStart = options.now();
      flow.windowCount = 0;
      release(key);
    },
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

/** The queue's first waiting message starts and holds a slot. */
function takeHead(state: QueueState, entry: DueMessage): void {
  state.holders.set(entry.id, { entry, due: false });
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

/** An entry of a {@link SeqHeap}: whatever the caller keys by `seq`. */
export interface SeqEntry {
  seq: number;
}

/** A binary min-heap by `seq`: the lowest acceptance number first, in O(log n) per push and pop. */
export interface SeqHeap<T extends SeqEntry> {
  push(entry: T): void;
  /** Removes and returns the entry with the lowest `seq`, or `undefined` when empty. */
  pop(): T | undefined;
  readonly size: number;
}

/**
 * Creates a {@link SeqHeap}. Equal `seq`s come out in no particular order; the dispatcher never
 * pushes two live entries with the same `seq` (one message has one `seq`).
 */
export function createSeqHeap<T extends SeqEntry>(): SeqHeap<T> {
  const items: T[] = [];
  return {
    push(entry) {
      items.push(entry);
      let index = items.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (items[parent]!.seq <= entry.seq) break;
        items[index] = items[parent]!;
        index = parent;
      }
      items[index] = entry;
    },
    pop() {
      const top = items[0];
      const last = items.pop();
      if (top === undefined || last === undefined || items.length === 0) return top;
      // Sift the last entry down from the root.
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child = right < items.length && items[right]!.seq < items[left]!.seq ? right : left;
        if (items[child]!.seq >= last.seq) break;
        items[index] = items[child]!;
        index = child;
      }
      items[index] = last;
      return top;
    },
    get size() {
      return items.length;
    },
  };
}
