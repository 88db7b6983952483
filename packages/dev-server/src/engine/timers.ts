/** Node cannot arm a timer for longer than this (about 24.8 days); longer waits are re-armed. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** One timer per key, at an absolute time of the dev server's clock; and the messages' due times. */
export interface Timers {
  /**
   * Calls the `onDue` the timers were made with, with `id`, once `now() >= at`. For messages: never
   * cancelled or replaced (a message is due at one time at once), and `onDue` checks the message is
   * still pending, so an entry costs 20 bytes instead of a keyed timer's hundred.
   */
  due(id: string, at: number): void;
  /**
   * Calls `fire(key)` once `now() >= at`, replacing any timer already set for `key`. (The key is
   * passed back so one function can serve many timers: a closure per message costs 100 bytes.)
   */
  at(key: string, at: number, fire: (key: string) => void): void;
  cancel(key: string): void;
  /** Whether something already due waits to fire (after the current task). */
  firing(): boolean;
  /** Cancels every timer (on close). */
  clear(): void;
}

/**
 * The clock timers run on: the service's time, and one alarm for the earliest entry. Node's own
 * timers by default; an in-process test service sets the alarm on a virtual clock it advances.
 */
export interface TimerClock {
  now(): number;
  /** Calls `ring` once the clock reaches `at`, replacing the alarm set before. */
  setAlarm(at: number, ring: () => void): void;
  clearAlarm(): void;
}

/**
 * Node's timers against `now`: waits are computed from it when set and re-checked when they fire, so
 * a paid plan's year-long delay works despite Node's 24.8-day limit. With `unref`, a waiting alarm
 * does not keep the process alive by itself.
 */
export function nodeClock(now: () => number, unref = false): TimerClock {
  let alarm: NodeJS.Timeout | undefined;
  const clearAlarm = (): void => {
    if (alarm) clearTimeout(alarm);
    alarm = undefined;
  };
  return {
    now,
    setAlarm(at, ring) {
      clearAlarm();
      // Node may fire a millisecond early by the wall clock: the timers then find nothing due and re-arm.
      alarm = setTimeout(ring, Math.min(Math.max(0, at - now()), MAX_TIMEOUT_MS));
      if (unref) alarm.unref();
    },
    clearAlarm,
  };
}

/** One armed timer. `order` breaks ties: equal times fire in the order they were armed. */
interface Entry {
  key: string;
  at: number;
  order: number;
  fire: (key: string) => void;
  /** Cancelled or replaced: skipped when it reaches the top of the heap. */
  dead: boolean;
}

const earlier = (a: Entry, b: Entry): boolean => a.at < b.at || (a.at === b.at && a.order < b.order);

/**
 * The armed timers in one binary heap ordered by time, and a map from key to entry. A cancelled
 * entry stays in the heap, marked dead, until it surfaces or the dead outnumber the live (then the
 * heap is rebuilt), so cancelling costs O(1) and arming O(log n).
 */
class TimerHeap {
  private readonly heap: Entry[] = [];
  private readonly byKey = new Map<string, Entry>();
  private nextOrder = 0;

  add(key: string, at: number, fire: (key: string) => void): void {
    this.remove(key);
    const entry: Entry = { key, at, order: this.nextOrder++, fire, dead: false };
    this.byKey.set(key, entry);
    this.heap.push(entry);
    this.up(this.heap.length - 1);
  }

  remove(key: string): void {
    const entry = this.byKey.get(key);
    if (!entry) return;
    entry.dead = true;
    this.byKey.delete(key);
    if (this.heap.length > 64 && this.heap.length > 2 * this.byKey.size) this.rebuild();
  }

  /** The earliest live entry, or `undefined`. */
  peek(): Entry | undefined {
    while (this.heap.length > 0 && this.heap[0]!.dead) this.pop();
    return this.heap[0];
  }

  /** Removes and returns the earliest live entry. */
  take(): Entry | undefined {
    const top = this.peek();
    if (!top) return undefined;
    this.pop();
    this.byKey.delete(top.key);
    return top;
  }

  clear(): void {
    this.heap.length = 0;
    this.byKey.clear();
  }

  private pop(): void {
    const last = this.heap.pop()!;
    if (this.heap.length === 0) return;
    this.heap[0] = last;
    this.down(0);
  }

  private rebuild(): void {
    const live = this.heap.filter((entry) => !entry.dead);
    this.heap.length = 0;
    this.heap.push(...live);
    for (let index = (this.heap.length >> 1) - 1; index >= 0; index--) this.down(index);
  }

  private up(index: number): void {
    const heap = this.heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!earlier(entry, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  }

  private down(index: number): void {
    const heap = this.heap;
    const entry = heap[index]!;
    for (;;) {
      let child = 2 * index + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && earlier(heap[child + 1]!, heap[child]!)) child++;
      if (!earlier(heap[child]!, entry)) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = entry;
  }
}

/** Due times of messages in a binary heap over parallel typed arrays: no object per entry. */
class DueHeap {
  private times = new Float64Array(1024);
  private orders = new Uint32Array(1024);
  private ids: string[] = [];
  private length = 0;
  private nextOrder = 0;

  push(id: string, at: number): void {
    if (this.length === this.times.length) this.grow();
    // Arming order breaks ties; it wraps after 4 billion entries, far beyond any run of the server.
    const order = this.nextOrder++ >>> 0;
    let index = this.length++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const t = this.times[parent]!;
      if (t < at || (t === at && this.orders[parent]! < order)) break;
      this.move(parent, index);
      index = parent;
    }
    this.times[index] = at;
    this.orders[index] = order;
    this.ids[index] = id;
  }

  /** The earliest time, or `Infinity` when empty. */
  peekTime(): number {
    return this.length === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
  }

  pop(): string {
    const id = this.ids[0]!;
    const last = --this.length;
    const at = this.times[last]!;
    const order = this.orders[last]!;
    const lastId = this.ids[last]!;
    this.ids.length = last;
    if (last > 0) {
      let index = 0;
      for (;;) {
        let child = 2 * index + 1;
        if (child >= last) break;
        if (child + 1 < last && this.before(child + 1, child)) child++;
        const t = this.times[child]!;
        if (t > at || (t === at && this.orders[child]! > order)) break;
        this.move(child, index);
        index = child;
      }
      this.times[index] = at;
      this.orders[index] = order;
      this.ids[index] = lastId;
    }
    return id;
  }

  clear(): void {
    this.length = 0;
    this.ids = [];
  }

  private before(a: number, b: number): boolean {
    const ta = this.times[a]!;
    const tb = this.times[b]!;
    return ta < tb || (ta === tb && this.orders[a]! < this.orders[b]!);
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!;
    this.orders[to] = this.orders[from]!;
    this.ids[to] = this.ids[from]!;
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    this.times = times;
    const orders = new Uint32Array(this.orders.length * 2);
    orders.set(this.orders);
    this.orders = orders;
  }
}

/**
 * Timers on one alarm for the earliest of them: a timer object per delayed message cost several
 * hundred bytes each (100,000 pending messages held 30 MB in timers). Nothing fires before its time
 * by the service's own clock (Node's timers run on a monotonic clock that drifts from it).
 *
 * What is already due (most messages: no delay) goes to one batch that a single `setImmediate` fires
 * in the order it was armed, so it still fires only after the current request was answered.
 */
export function createTimers(clock: TimerClock, onDue: (id: string) => void): Timers {
  const now = clock.now;
  const later = new TimerHeap();
  const messages = new DueHeap();
  const dueNow: string[] = [];
  const soon = new Map<string, (key: string) => void>();
  let flush: NodeJS.Immediate | undefined;
  let wakeAt = Number.POSITIVE_INFINITY;

  const fireSoon = (): void => {
    try {
      // Messages first, in the order they fell due; then keyed timers.
      for (let index = 0; index < dueNow.length; index++) onDue(dueNow[index]!);
      dueNow.length = 0;
      // Entries armed or cancelled while the batch fires are seen (or skipped) by this same loop.
      for (const [key, fire] of soon) {
        soon.delete(key);
        fire(key);
      }
    } finally {
      flush = soon.size > 0 || dueNow.length > 0 ? setImmediate(fireSoon) : undefined;
    }
  };

  const fireLater = (): void => {
    wakeAt = Number.POSITIVE_INFINITY;
    try {
      const time = now();
      while (messages.peekTime() <= time) onDue(messages.pop());
      for (let entry = later.peek(); entry && entry.at <= time; entry = later.peek()) {
        later.take();
        entry.fire(entry.key);
      }
    } finally {
      arm();
    }
  };

  /** Sets the alarm for the earliest entry, unless it is already set for that time or earlier. */
  const arm = (): void => {
    const next = Math.min(later.peek()?.at ?? Number.POSITIVE_INFINITY, messages.peekTime());
    if (next === Number.POSITIVE_INFINITY) {
      clock.clearAlarm();
      wakeAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (wakeAt <= next) return;
    wakeAt = next;
    clock.setAlarm(next, fireLater);
  };

  const cancel = (key: string): void => {
    later.remove(key);
    soon.delete(key);
  };

  return {
    due(id, at) {
      if (at > now()) {
        messages.push(id, at);
        arm();
        return;
      }
      dueNow.push(id);
      flush ??= setImmediate(fireSoon);
    },
    at(key, at, fire) {
      cancel(key);
      if (at > now()) {
        later.add(key, at, fire);
        arm();
        return;
      }
      soon.set(key, fire);
      flush ??= setImmediate(fireSoon);
    },
    cancel,
    firing: () => flush !== undefined,
    clear() {
      later.clear();
      messages.clear();
      dueNow.length = 0;
      soon.clear();
      clock.clearAlarm();
      wakeAt = Number.POSITIVE_INFINITY;
      if (flush) clearImmediate(flush);
      flush = undefined;
    },
  };
}

/**
 * The next turn of the event loop, after pending I/O: a long job (a large batch, a bulk action)
 * awaits it between slices so the requests and deliveries waiting meanwhile are not stalled.
 */
export const yieldToOtherWork = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * For a long loop: `due()` is true once `budgetMs` passed since the last turn was given
 * up, so the loop yields by time rather than by a count of items (the first items, run before the
 * code is optimised, cost many times the rest). Checks the clock every 64 calls only.
 */
export function turnTaker(budgetMs = 4): { due(): boolean; yield(): Promise<void> } {
  let since = performance.now();
  let calls = 0;
  return {
    due: () => (++calls & 63) === 0 && performance.now() - since >= budgetMs,
    yield: async () => {
      await yieldToOtherWork();
      since = performance.now();
    },
  };
}
