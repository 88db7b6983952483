import { describe, expect, it } from 'vitest';
import { PendingMessages } from '../src/state/pending-messages';
import type { MessageRecord } from '../src/state/records';
import { messageRecord, NOW } from './helpers/message-record';

/** A message due `seq` ms after `NOW`, in `queue` or in none. */
const message = (id: string, seq: number, queue?: string): MessageRecord =>
  messageRecord(id, seq, { queue, notBefore: NOW + seq, dueAt: NOW + seq });

interface Modelled {
  record: MessageRecord;
  retried: number;
  dueAt: number;
  started: boolean;
}

/** Everything a reader can ask the set, to compare with the model (a `Map`, whose order is insertion order). */
function observe(pending: PendingMessages, ids: readonly string[]) {
  const accepted: string[] = [];
  pending.forEachInAcceptanceOrder((record, retried, dueAt, started) => {
    accepted.push(record.id);
    expect({ retried, dueAt, started }).toEqual({
      retried: pending.retried(record.id),
      dueAt: pending.dueAt(record.id),
      started: pending.started(record.id),
    });
  });
  return {
    size: pending.size,
    order: [...pending.values()].map((record) => record.id),
    accepted,
    perQueue: Object.fromEntries(pending.countPerQueue()),
    each: ids.map((id) => ({
      has: pending.has(id),
      record: pending.get(id),
      retried: pending.retried(id),
      dueAt: pending.dueAt(id),
      started: pending.started(id),
    })),
  };
}

function expected(model: Map<string, Modelled>, ids: readonly string[]) {
  const perQueue: Record<string, number> = {};
  for (const { record } of model.values()) if (record.queue !== undefined) perQueue[record.queue] = (perQueue[record.queue] ?? 0) + 1;
  return {
    size: model.size,
    order: [...model.keys()],
    accepted: [...model.values()].sort((a, b) => a.record.seq - b.record.seq).map(({ record }) => record.id),
    perQueue,
    each: ids.map((id) => {
      const kept = model.get(id);
      return {
        has: kept !== undefined,
        record: kept?.record,
        retried: kept?.retried ?? 0,
        dueAt: kept?.dueAt,
        started: kept?.started ?? false,
      };
    }),
  };
}

describe('pending messages', () => {
  it('answers every reader as a map of records with their progress would, through puts, deletes and slot reuse', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(from: readonly T[]): T => from[Math.floor(random() * from.length)]!;
    const pending = new PendingMessages();
    const model = new Map<string, Modelled>();
    const ids: string[] = [];
    let seq = 0;
    // Past the first 1,024 slots, so the arrays grow with messages in them, and with deletes between
    // so slots are reused; the set is emptied once on the way, which puts it back in order.
    for (let step = 0; step < 6_000; step += 1) {
      const live = [...model.keys()];
      const choice = random();
      if (step === 3_000) {
        for (const id of live) expect(pending.delete(id)).toBe(model.get(id)!.record);
        model.clear();
      } else if (choice < 0.55 || live.length === 0) {
        // Mostly the next seq; sometimes an older one put back, as a restore does.
        const record = message(`msg_${step}`, random() < 0.05 ? Math.floor(random() * seq) : ++seq, pick(['a', 'b', undefined]));
        ids.push(record.id);
        pending.put(record);
        model.set(record.id, { record, retried: 0, dueAt: record.dueAt, started: false });
      } else if (choice < 0.6) {
        // Replaced in its place, with its progress as a snapshot line carries it.
        const id = pick(live);
        const record = { ...model.get(id)!.record, body: `again ${step}` };
        const progress = { retried: Math.floor(random() * 5), dueAt: NOW + step, started: random() < 0.5 };
        pending.put(record, progress.retried, progress.dueAt, progress.started);
        model.set(id, { record, ...progress });
      } else if (choice < 0.75) {
        const id = pick(live);
        expect(pending.delete(id)).toBe(model.get(id)!.record);
        model.delete(id);
      } else if (choice < 0.85) {
        const id = pick(live);
        pending.markStarted(id);
        model.get(id)!.started = true;
      } else if (choice < 0.95) {
        const id = pick(live);
        const kept = model.get(id)!;
        kept.retried += 1;
        kept.dueAt = NOW + step * 10;
        pending.retryAt(id, kept.retried, kept.dueAt);
      } else {
        const id = pick(live);
        const at = NOW + step * 5;
        const kept = model.get(id)!;
        if (kept.dueAt > at) kept.dueAt = at;
        pending.bringForward(id, at);
      }
      if (step % 250 === 0 || step === 3_001) expect(observe(pending, ids)).toEqual(expected(model, ids));
    }
    expect(observe(pending, ids)).toEqual(expected(model, ids));
    expect(model.size).toBeGreaterThan(1_024);
  });

  it('ignores changes to a message that is not pending', () => {
    const pending = new PendingMessages();
    pending.put(message('kept', 1));
    expect(pending.delete('gone')).toBeUndefined();
    pending.markStarted('gone');
    pending.retryAt('gone', 2, NOW);
    pending.bringForward('gone', NOW);
    expect([...pending.values()].map((record) => record.id)).toEqual(['kept']);
    expect({ retried: pending.retried('gone'), dueAt: pending.dueAt('gone'), started: pending.started('gone') }).toEqual({
      retried: 0,
      dueAt: undefined,
      started: false,
    });
  });

  it('visits a message put in during a walk, and not one deleted before it was reached', () => {
    const pending = new PendingMessages();
    for (let seq = 1; seq <= 3; seq += 1) pending.put(message(`msg_${seq}`, seq));
    const visited: string[] = [];
    for (const record of pending.values()) {
      visited.push(record.id);
      if (record.id === 'msg_1') {
        pending.delete('msg_2');
        pending.put(message('msg_4', 4));
      }
    }
    expect(visited).toEqual(['msg_1', 'msg_3', 'msg_4']);
  });
});
