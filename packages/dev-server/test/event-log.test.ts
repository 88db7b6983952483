import { describe, expect, it } from 'vitest';
import { messageRecord, NOW } from './helpers/message-record';
import { seeded } from './helpers/seeded';
import { createEmptyState, type DevState, LOG_LIMIT } from '../src/state/dev-state';
import { createdRun, deferCreated, flushCreated, keepLog, logEntry } from '../src/state/event-log';
import type { LogRecord } from '../src/state/records';

const created = (state: DevState, id: string, time: number): LogRecord =>
  logEntry(state.nextLogOrder, id, time, { time, state: 'CREATED' });

/**
 * What a replay does to two states, one keeping every entry at once and the other deferring the
 * `CREATED` entries of consecutive sends read as bytes: sends (their times mostly rising, sometimes
 * not), between them parsed records (an attempt's entry, of a message that may be a resend), and at
 * some point the index of pending messages' entries being built.
 */
function replayBoth(seed: number): { oneByOne: DevState; deferred: DevState } {
  const next = seeded(seed);
  const oneByOne = createEmptyState();
  const deferred = createEmptyState();
  const run = createdRun();
  const steps = Math.floor(next() * 40_000);
  const indexAt = next() < 0.3 ? Math.floor(next() * steps) : -1;
  let time = NOW;
  for (let step = 0; step < steps; step += 1) {
    time += next() < 0.02 ? -Math.floor(next() * 50) : Math.floor(next() * 3);
    if (step === indexAt) {
      flushCreated(deferred, run);
      oneByOne.pendingRefs = new Map();
      deferred.pendingRefs = new Map();
    }
    if (next() < 0.9995 - (seed % 4) * 0.01) {
      const id = `msg_${step}`;
      keepLog(oneByOne, id, created(oneByOne, id, time));
      if (!deferCreated(deferred, run, id, time)) keepLog(deferred, id, created(deferred, id, time));
    } else {
      // A parsed record: the run goes into the log first.
      flushCreated(deferred, run);
      const message = messageRecord(`msg_r${step}`, step, next() < 0.5 ? { resentFrom: `msg_${step >> 1}` } : {});
      for (const state of [oneByOne, deferred])
        keepLog(state, message, logEntry(state.nextLogOrder, message.id, time, { time, state: 'ACTIVE' }));
    }
  }
  flushCreated(deferred, run);
  return { oneByOne, deferred };
}

describe("a replay's CREATED entries put in the log a run at a time", () => {
  it('leave the log, its messages, the orders, the offspring and the index as keeping them one by one does', () => {
    let longRuns = 0;
    for (let seed = 1; seed <= 40; seed += 1) {
      const { oneByOne, deferred } = replayBoth(seed);
      expect(deferred.logs, `seed ${seed}`).toEqual(oneByOne.logs);
      expect(deferred.logMessages, `seed ${seed}`).toEqual(oneByOne.logMessages);
      expect(deferred.nextLogOrder, `seed ${seed}`).toBe(oneByOne.nextLogOrder);
      expect(deferred.offspring, `seed ${seed}`).toEqual(oneByOne.offspring);
      expect(deferred.pendingRefs, `seed ${seed}`).toEqual(oneByOne.pendingRefs);
      if (oneByOne.nextLogOrder > LOG_LIMIT * 2) longRuns += 1;
    }
    // The cases reach past the log's limit, where entries are dropped.
    expect(longRuns).toBeGreaterThan(10);
  });

  it('are kept at once when they would not come last, or once pending messages are indexed by their entries', () => {
    const state = createEmptyState();
    const run = createdRun();
    expect(deferCreated(state, run, 'msg_a', NOW)).toBe(true);
    expect(state.logs).toEqual([]);
    expect(deferCreated(state, run, 'msg_b', NOW - 1)).toBe(false);
    expect(state.logs.map((entry) => entry.messageId)).toEqual(['msg_a']);
    state.pendingRefs = new Map();
    expect(deferCreated(state, run, 'msg_c', NOW + 1)).toBe(false);
    flushCreated(state, run);
    expect(state.logs.map((entry) => entry.messageId)).toEqual(['msg_a']);
  });
});
