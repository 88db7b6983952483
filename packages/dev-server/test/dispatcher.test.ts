import { describe, expect, it } from 'vitest';
import { createDispatcher, type DispatchInfo, type Dispatcher } from '../src/engine/dispatcher';
import { createSeqHeap } from '../src/engine/seq-heap';

/** A dispatcher over a table of pending messages; `started` records every start, in order. */
function harness(maxInFlight: number, messages: Record<string, DispatchInfo>) {
  const pending = new Map(Object.entries(messages));
  const started: string[] = [];
  let onStart: (id: string) => void = () => {};
  const dispatcher: Dispatcher = createDispatcher({
    maxInFlight,
    info: (id) => pending.get(id),
    start(id) {
      started.push(id);
      onStart(id);
    },
  });
  return {
    dispatcher,
    started,
    /** The attempt of `id` ended: settled ones leave the store first, as the engine commits before reporting. */
    finish(id: string, settled: boolean) {
      if (settled) pending.delete(id);
      dispatcher.finished(id, settled);
    },
    forget: (id: string) => pending.delete(id),
    onStart: (fn: (id: string) => void) => (onStart = fn),
  };
}

const q = (seq: number, queue = 'q'): DispatchInfo => ({ seq, queue });
const loose = (seq: number): DispatchInfo => ({ seq, queue: undefined });

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
