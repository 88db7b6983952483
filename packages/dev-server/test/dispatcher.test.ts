import { describe, expect, it } from 'vitest';
import {
  createDispatcher,
  type DispatchInfo,
  type Dispatcher,
  type FlowLimits,
  type QueueLimits,
  createSeqHeap,
} from '../src/engine/dispatcher';

/** A dispatcher over a table of pending messages; `started` records every start, in order. */
function harness(maxInFlight: number, messages: Record<string, DispatchInfo>) {
  const pending = new Map(Object.entries(messages));
  const started: string[] = [];
  const queues = new Map<string, QueueLimits>();
  const flows = new Map<string, FlowLimits>();
  const wakes = new Map<string, { at: number; wake: () => void }>();
  const clock = { now: 0 };
  let onStart: (id: string) => void = () => {};
  const dispatcher: Dispatcher = createDispatcher({
    maxInFlight,
    info: (id) => pending.get(id),
    start(id) {
      started.push(id);
      onStart(id);
    },
    queueLimits: (name) => queues.get(name) ?? { parallelism: 1, paused: false },
    flowLimits: (key) => flows.get(key) ?? { paused: false, parallelism: undefined, rate: undefined, periodMs: 1000 },
    now: () => clock.now,
    wakeAt: (key, at, wake) => void wakes.set(key, { at, wake }),
  });
  return {
    dispatcher,
    started,
    queues,
    flows,
    /** Moves the fake clock and runs the wakes that are due. */
    advance(ms: number) {
      clock.now += ms;
      for (const [key, { at, wake }] of [...wakes]) {
        if (at <= clock.now) {
          wakes.delete(key);
          wake();
        }
      }
    },
    /** The attempt of `id` ended: settled ones leave the store first, as the engine commits before reporting. */
    finish(id: string, settled: boolean) {
      if (settled) pending.delete(id);
      dispatcher.finished(id, settled);
    },
    forget: (id: string) => pending.delete(id),
    onStart: (fn: (id: string) => void) => (onStart = fn),
  };
}

const q = (seq: number, queue = 'q'): DispatchInfo => ({ seq, queue, flowKey: undefined });
const loose = (seq: number): DispatchInfo => ({ seq, queue: undefined, flowKey: undefined });
const keyed = (seq: number, flowKey: string, queue?: string): DispatchInfo => ({ seq, queue, flowKey });

describe('queue limits and flow control', () => {
  it('runs `parallelism` messages of a queue at once, still starting them in order', () => {
    const h = harness(10, { a: q(1), b: q(2), c: q(3), d: q(4) });
    h.queues.set('q', { parallelism: 2, paused: false });
    for (const id of ['d', 'c', 'b', 'a']) h.dispatcher.ready(id);
    // Two slots: the first two due start at once; the rest wait in acceptance order.
    expect(h.started).toEqual(['d', 'c']);
    h.finish('c', true);
    expect(h.started).toEqual(['d', 'c', 'a']);
    h.finish('d', true);
    expect(h.started).toEqual(['d', 'c', 'a', 'b']);
  });

  it('holds a paused queue (even a retry of its holder) until it resumes', () => {
    const h = harness(10, { a: q(1), b: q(2), other: q(3, 'r') });
    h.queues.set('q', { parallelism: 1, paused: true });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    h.dispatcher.ready('other');
    expect(h.started).toEqual(['other']);
    h.queues.set('q', { parallelism: 1, paused: false });
    h.dispatcher.refresh();
    expect(h.started).toEqual(['other', 'a']);
    h.finish('a', false);
    h.queues.set('q', { parallelism: 1, paused: true });
    h.dispatcher.ready('a');
    expect(h.started).toEqual(['other', 'a']);
    h.queues.set('q', { parallelism: 1, paused: false });
    h.dispatcher.refresh();
    expect(h.started).toEqual(['other', 'a', 'a']);
  });

  it('caps a flow-control key at its parallelism across queues and publishes', () => {
    const h = harness(10, { a: keyed(1, 'k', 'q1'), b: keyed(2, 'k', 'q2'), c: keyed(3, 'k'), d: loose(4) });
    h.flows.set('k', { paused: false, parallelism: 2, rate: undefined, periodMs: 1000 });
    for (const id of ['a', 'b', 'c', 'd']) h.dispatcher.ready(id);
    expect(h.started).toEqual(['a', 'b', 'd']);
    expect(h.dispatcher.flowCounters('k')).toMatchObject({ running: 2, waiting: 1 });
    h.finish('b', true);
    expect(h.started).toEqual(['a', 'b', 'd', 'c']);
  });

  it('starts at most `rate` attempts of a key per period, and the rest when the period ends', () => {
    const h = harness(10, { a: keyed(1, 'k'), b: keyed(2, 'k'), c: keyed(3, 'k') });
    h.flows.set('k', { paused: false, parallelism: undefined, rate: 2, periodMs: 1000 });
    for (const id of ['a', 'b', 'c']) h.dispatcher.ready(id);
    expect(h.started).toEqual(['a', 'b']);
    h.finish('a', true);
    h.advance(999);
    expect(h.started).toEqual(['a', 'b']);
    h.advance(1);
    expect(h.started).toEqual(['a', 'b', 'c']);
    expect(h.dispatcher.flowCounters('k')).toMatchObject({ windowStart: 1000, windowCount: 1 });
  });

  it('holds a paused key until it resumes, and resetRate starts a new period at once', () => {
    const h = harness(10, { a: keyed(1, 'k'), b: keyed(2, 'k') });
    h.flows.set('k', { paused: true, parallelism: undefined, rate: 1, periodMs: 60_000 });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    expect(h.started).toEqual([]);
    h.flows.set('k', { paused: false, parallelism: undefined, rate: 1, periodMs: 60_000 });
    h.dispatcher.refresh();
    expect(h.started).toEqual(['a']);
    h.dispatcher.resetRate('k');
    expect(h.started).toEqual(['a', 'b']);
  });

  it('forgets a cancelled message wherever it waits, and lets the queue move on', () => {
    const h = harness(10, { a: q(1), b: q(2), c: q(3), x: keyed(4, 'k') });
    h.flows.set('k', { paused: true, parallelism: undefined, rate: undefined, periodMs: 1000 });
    for (const id of ['a', 'b', 'c', 'x']) h.dispatcher.ready(id);
    expect(h.started).toEqual(['a']);
    h.forget('b');
    h.dispatcher.forget('b');
    h.forget('x');
    h.dispatcher.forget('x');
    expect(h.dispatcher.flowCounters('k').waiting).toBe(0);
    h.finish('a', true);
    expect(h.started).toEqual(['a', 'c']);
  });
});

describe('the dispatcher', () => {
  it('delivers a queue one message at a time, in acceptance order even when they become due out of order', () => {
    const h = harness(10, { a: q(1), b: q(2), c: q(3) });
    h.dispatcher.ready('c');
    expect(h.started).toEqual(['c']);
    h.dispatcher.ready('b');
    h.dispatcher.ready('a');
    expect(h.started).toEqual(['c']);
    h.finish('c', true);
    expect(h.started).toEqual(['c', 'a']);
    h.finish('a', true);
    h.finish('b', true);
    expect(h.started).toEqual(['c', 'a', 'b']);
    expect(h.dispatcher.inFlight()).toBe(0);
  });

  it('runs different queues concurrently, and messages outside queues all at once', () => {
    const h = harness(10, { a: q(1, 'x'), b: q(2, 'y'), c: q(3, 'x'), d: loose(4), e: loose(5) });
    for (const id of ['a', 'b', 'c', 'd', 'e']) h.dispatcher.ready(id);
    expect(h.started).toEqual(['a', 'b', 'd', 'e']);
    expect(h.dispatcher.inFlight()).toBe(4);
  });

  it('keeps at most maxInFlight attempts running and starts the lowest acceptance number first', () => {
    const h = harness(2, { a: q(5, 'x'), b: q(2, 'y'), c: loose(3), d: loose(1), e: q(4, 'z') });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    expect(h.started).toEqual(['a', 'b']);
    for (const id of ['c', 'd', 'e']) h.dispatcher.ready(id);
    expect(h.started).toEqual(['a', 'b']);
    h.finish('a', true);
    expect(h.started).toEqual(['a', 'b', 'd']);
    h.finish('b', true);
    expect(h.started).toEqual(['a', 'b', 'd', 'c']);
    h.finish('d', true);
    h.finish('c', true);
    expect(h.started).toEqual(['a', 'b', 'd', 'c', 'e']);
  });

  it('lets a retrying message hold its queue until it settles, and go next when due again', () => {
    const h = harness(10, { a: q(1), b: q(2) });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    h.finish('a', false); // retry scheduled: b must wait behind it
    expect(h.started).toEqual(['a']);
    h.dispatcher.ready('a');
    expect(h.started).toEqual(['a', 'a']);
    h.finish('a', true);
    expect(h.started).toEqual(['a', 'a', 'b']);
  });

  it('gives a queue back to the message that held it before a restart', () => {
    const h = harness(10, { a: q(1), b: q(2) });
    h.dispatcher.hold('q', 'b');
    h.dispatcher.ready('a');
    expect(h.started).toEqual([]);
    h.dispatcher.ready('b');
    expect(h.started).toEqual(['b']);
    h.finish('b', true);
    expect(h.started).toEqual(['b', 'a']);
  });

  it('ignores a message made due twice, and one no longer pending', () => {
    const h = harness(10, { a: q(1), b: q(2) });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    h.dispatcher.ready('b');
    h.finish('a', true);
    h.finish('b', true);
    expect(h.started).toEqual(['a', 'b']);
    h.dispatcher.ready('gone');
    expect(h.started).toEqual(['a', 'b']);
  });

  it('frees the queue when a start finds the message gone (a synchronous finish inside start)', () => {
    const h = harness(10, { a: q(1), b: q(2) });
    h.onStart((id) => {
      if (id === 'a') h.finish('a', true);
    });
    h.dispatcher.ready('a');
    h.dispatcher.ready('b');
    expect(h.started).toEqual(['a', 'b']);
    expect(h.dispatcher.inFlight()).toBe(1);
  });

  it('starts a message outside queues again once it is due while still running', () => {
    const h = harness(10, { c: loose(1) });
    h.dispatcher.ready('c');
    h.dispatcher.ready('c');
    expect(h.started).toEqual(['c']);
    h.finish('c', false);
    expect(h.started).toEqual(['c', 'c']);
  });

  it('starts nothing after stop', () => {
    const h = harness(10, { a: q(1), b: q(2, 'other') });
    h.dispatcher.ready('a');
    h.dispatcher.stop();
    h.dispatcher.ready('b');
    h.finish('a', true);
    expect(h.started).toEqual(['a']);
  });

  it('is fair under load: every queue advances in order and the global limit is never exceeded', () => {
    const queues = 7;
    const perQueue = 200;
    const messages: Record<string, DispatchInfo> = {};
    for (let seq = 0; seq < queues * perQueue; seq += 1) messages[`m${seq}`] = q(seq, `q${seq % queues}`);
    const h = harness(3, messages);
    let maxSeen = 0;
    const runningNow = new Set<string>();
    h.onStart((id) => {
      runningNow.add(id);
      maxSeen = Math.max(maxSeen, runningNow.size);
    });
    // Due in two waves (even acceptance numbers, then odd ones slotting in between them), while the
    // first three run; then finished in start order, every third attempt a retry.
    const ids = Object.keys(messages);
    for (const id of ids.filter((_, seq) => seq % 2 === 0)) h.dispatcher.ready(id);
    for (const id of ids.filter((_, seq) => seq % 2 === 1)) h.dispatcher.ready(id);
    let attempts = 0;
    while (runningNow.size > 0) {
      const [id] = runningNow;
      runningNow.delete(id!);
      attempts += 1;
      if (attempts % 3 === 0) {
        h.finish(id!, false);
        h.dispatcher.ready(id!);
      } else {
        h.finish(id!, true);
      }
    }
    expect(maxSeen).toBeLessThanOrEqual(3);
    const firstStarts = [...new Set(h.started)];
    expect(firstStarts).toHaveLength(queues * perQueue);
    for (let queue = 0; queue < queues; queue += 1) {
      const order = firstStarts.filter((id) => messages[id]!.queue === `q${queue}`).map((id) => messages[id]!.seq);
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
  });
});

describe('the sequence heap', () => {
  it('pops in ascending seq whatever the push order', () => {
    const heap = createSeqHeap<{ seq: number }>();
    const seqs = Array.from({ length: 500 }, (_, index) => (index * 7919) % 1009);
    for (const seq of seqs) heap.push({ seq });
    const out: number[] = [];
    for (let entry = heap.pop(); entry; entry = heap.pop()) out.push(entry.seq);
    expect(out).toEqual([...seqs].sort((a, b) => a - b));
    expect(heap.size).toBe(0);
  });
});
