import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { waitUntil } from './helpers/wait';
import { messageRecord as message, NOW } from './helpers/message-record';
import { createEmptyState, type DevState, LOG_LIMIT, loggedMessage, pruneExpired } from '../src/state/dev-state';
import type { DevRecord } from '../src/state/records';
import { loggedEntries } from '../src/state/message-index';
import { reduce } from '../src/state/reduce';
import { openStore, snapshotRecords } from '../src/state/store';
import { decodeRecord, type EncodedRecord, encodeRecord } from '../src/state/message-codec';

const RETENTION = 259_200_000;

/** The pending messages in the order they were put in, each with its progress (and its record, when asked). */
function pendingOf(state: DevState, withRecords = false) {
  return [...state.pending.values()].map((record) => ({
    id: record.id,
    retried: state.pending.retried(record.id),
    dueAt: state.pending.dueAt(record.id),
    started: state.pending.started(record.id),
    ...(withRecords ? { record } : {}),
  }));
}

const idsOf = (state: DevState): string[] => [...state.pending.values()].map((record) => record.id);

/** The id of the `index`-th pending message, in the order they were put in. */
function nthPending(state: DevState, index: number): string {
  let left = index;
  for (const record of state.pending.values()) if (left-- === 0) return record.id;
  throw new Error(`no pending message at ${index}`);
}

/** The pending messages' `seq`s in the order they were put in, and in acceptance order. */
function seqs(state: DevState): { put: number[]; accepted: number[] } {
  const accepted: number[] = [];
  state.pending.forEachInAcceptanceOrder((record) => accepted.push(record.seq));
  return { put: [...state.pending.values()].map((record) => record.seq), accepted };
}

/** Each log entry's message as a reader gets it: a pending one is named by id, and found among the pending ones. */
const loggedMessages = (state: DevState) => state.logs.map((_, index) => loggedMessage(state, index));
/** The id of each kept log entry's message. */
const loggedIds = (state: DevState) => loggedMessages(state).map((message) => message.id);

/** Replays records as a restart does: through their journal form, JSON and back. */
function replay(records: Iterable<DevRecord>, pending: DevState | undefined = undefined): DevState {
  const state = createEmptyState();
  const encoded = Array.from(records, (record) => encodeRecord(record, (id) => pending?.pending.has(id) ?? false));
  for (const line of JSON.parse(JSON.stringify(encoded)) as EncodedRecord[]) {
    reduce(state, decodeRecord(line));
  }
  return state;
}

const history: DevRecord[] = [
  { type: 'group.updated', name: 'g', group: { name: 'g', createdAt: NOW, updatedAt: NOW, endpoints: [{ url: 'https://a.test/' }] } },
  {
    type: 'messages.accepted',
    at: NOW,
    messages: [message('msg_a', 1), message('msg_b', 2, { failureCallback: { url: 'https://cb.test/', method: 'POST', headers: {} } })],
    dedupKeys: ['id:k'],
  },
  {
    type: 'attempt',
    id: 'msg_a',
    at: NOW + 1,
    retried: 0,
    outcome: 'retry',
    dueAt: NOW + 1000,
    bytes: 10,
    spawned: [],
    response: { status: 500, headers: {}, bodyBase64: '' },
  },
  {
    type: 'attempt',
    id: 'msg_b',
    at: NOW + 2,
    retried: 0,
    outcome: 'failed',
    bytes: 3,
    error: 'timeout',
    spawned: [message('msg_fc', 3, { kind: 'failure-callback', dlqId: `${NOW + 2}-1`, queue: undefined })],
    dlq: {
      dlqId: `${NOW + 2}-1`,
      order: 1,
      at: NOW + 2,
      message: message('msg_b', 2),
      retried: 0,
      error: 'timeout',
      failureCallbackInfo: { state: 'CALLBACK_INPROGRESS' },
    },
  },
  {
    type: 'attempt',
    id: 'msg_fc',
    at: NOW + 3,
    retried: 0,
    outcome: 'delivered',
    bytes: 5,
    spawned: [],
    response: { status: 200, headers: {}, bodyBase64: 'b2s=' },
  },
  { type: 'index.created', index: { id: 'idx', name: 'docs' } },
];

describe('state', () => {
  it('replays the history into the expected state', () => {
    const state = replay(history);
    expect(pendingOf(state)).toEqual([{ id: 'msg_a', retried: 1, dueAt: NOW + 1000, started: true }]);
    expect(state.dlq.get(`${NOW + 2}-1`)?.failureCallbackInfo).toEqual({
      state: 'CALLBACK_SUCCESS',
      responseStatus: 200,
      responseBodyBase64: 'b2s=',
      responseHeaders: {},
    });
    expect(state.dedup.get('id:k')?.results.map((result) => result.messageId)).toEqual(['msg_a', 'msg_b']);
    const [bucket] = state.stats.values();
    expect(bucket).toMatchObject({ requests: 3, delivered: 1, failed: 1, bandwidth: 18 });
    expect(state.nextSeq).toBe(4);
    expect(state.nextDlqOrder).toBe(2);
  });

  it('rebuilds the same state from its snapshot', () => {
    const state = replay(history);
    const again = replay(snapshotRecords(state, { now: NOW + 10, dlqRetentionMs: RETENTION }), state);
    expect(pendingOf(again, true)).toEqual(pendingOf(state, true));
    expect(again.dlq).toEqual(state.dlq);
    expect(again.groups).toEqual(state.groups);
    expect(again.indexes).toEqual(state.indexes);
    expect(again.dedup).toEqual(state.dedup);
    expect(again.stats).toEqual(state.stats);
    expect(again.nextSeq).toBe(state.nextSeq);
    expect(again.nextDlqOrder).toBe(state.nextDlqOrder);
  });

  it('knows whether its pending messages are in acceptance order, across a snapshot and after an older one is put back', () => {
    const accepted = (seq: number): DevRecord => ({
      type: 'messages.accepted',
      at: NOW,
      messages: [message(`msg_${seq}`, seq)],
      dedupKeys: [],
    });
    const state = replay([accepted(1), accepted(2), accepted(3)]);
    expect(seqs(state)).toEqual({ put: [1, 2, 3], accepted: [1, 2, 3] });
    expect(seqs(replay(snapshotRecords(state, { now: NOW, dlqRetentionMs: RETENTION }), state))).toEqual({
      put: [1, 2, 3],
      accepted: [1, 2, 3],
    });
    // Delivered, then put back (as a restore of an older snapshot line would): it now sits after 3.
    reduce(state, { type: 'messages.cancelled', at: NOW, ids: ['msg_1'] });
    reduce(state, { type: 'message.restored', message: message('msg_1', 1), retried: 0, dueAt: NOW, started: false });
    expect(seqs(state)).toEqual({ put: [2, 3, 1], accepted: [1, 2, 3] });
    // A snapshot writes them in acceptance order, so the state it rebuilds is in order again.
    expect(seqs(replay(snapshotRecords(state, { now: NOW, dlqRetentionMs: RETENTION }), state))).toEqual({
      put: [1, 2, 3],
      accepted: [1, 2, 3],
    });
  });

  it('leaves expired keys and DLQ entries out of snapshots and prunes them', () => {
    const state = replay(history);
    const later = { now: NOW + RETENTION + 1000, dlqRetentionMs: RETENTION };
    const records = [...snapshotRecords(state, later)];
    expect(records.some((record) => record.type === 'dedup.restored' || record.type === 'dlq.restored')).toBe(false);
    pruneExpired(state, later);
    expect(state.dedup.size).toBe(0);
    expect(state.dlq.size).toBe(0);
    expect(state.pending.size).toBe(1);
  });

  it('keeps the log in order, each entry with its message, and restores it from a snapshot', () => {
    const state = replay(history);
    expect(state.logs.map((entry) => `${entry.messageId} ${entry.state}`)).toEqual([
      'msg_a CREATED',
      'msg_b CREATED',
      'msg_a ACTIVE',
      'msg_a ERROR',
      'msg_b ACTIVE',
      'msg_b ERROR',
      'msg_b FAILED',
      expect.stringMatching(/^msg_\S+ CREATED$/), // the failure callback
      // A millisecond after its ERROR: the two entries of one change never share a time.
      'msg_a RETRY',
      expect.stringMatching(/^msg_\S+ ACTIVE$/),
      expect.stringMatching(/^msg_\S+ DELIVERED$/),
    ]);
    const time = (id: string, logState: string) => state.logs.find((entry) => entry.messageId === id && entry.state === logState)!.time;
    expect(time('msg_a', 'RETRY')).toBe(time('msg_a', 'ERROR') + 1);
    expect(loggedIds(state)).toEqual(state.logs.map((entry) => entry.messageId));
    const again = replay(snapshotRecords(state, { now: NOW + 10, dlqRetentionMs: RETENTION }), state);
    expect(again.logs).toEqual(state.logs);
    expect(loggedMessages(again)).toEqual(loggedMessages(state));
    // A restart names each pending message by id, held or not, instead of holding its record in the log.
    expect(again.logMessages.filter((message) => typeof message !== 'string').some((message) => again.pending.has(message.id))).toBe(false);
    expect(again.nextLogOrder).toBe(state.nextLogOrder);
  });

  it('gives, read after the state moved on, the state as it was when the snapshot was taken', () => {
    const expiry = { now: NOW + 10, dlqRetentionMs: RETENTION };
    const state = replay(history);
    const asTaken = replay(snapshotRecords(state, expiry), state);
    const taken = snapshotRecords(state, expiry);
    // Read in the background while the state moves on: a message goes, one comes, one's progress changes, the log grows.
    const cancelled = nthPending(state, 0);
    reduce(state, { type: 'messages.cancelled', at: NOW + 20, ids: [cancelled] });
    reduce(state, { type: 'messages.accepted', at: NOW + 20, messages: [message('msg_late', 99)] });
    state.pending.retryAt(nthPending(state, 0), 7, NOW + 99);
    expect(state.pending.has(cancelled)).toBe(false);
    const read = replay(taken, state);
    expect(pendingOf(read, true)).toEqual(pendingOf(asTaken, true));
    expect(read.pending.has(cancelled)).toBe(true);
    expect(read.logs).toEqual(asTaken.logs);
    expect(loggedMessages(read)).toEqual(loggedMessages(asTaken));
  });

  it('snapshots a long log as runs of entries in its order, each with the messages it is about, even one whose entries span two runs', () => {
    // 300 CREATED entries, then 600 of the cancels: each message's entries lie in two runs.
    const messages = Array.from({ length: 300 }, (_, index) => message(`msg_${index}`, index + 1));
    const state = replay([
      { type: 'messages.accepted', at: NOW, messages },
      { type: 'messages.cancelled', at: NOW + 1, ids: messages.map((cancelled) => cancelled.id) },
    ]);
    expect(state.logs).toHaveLength(900);
    const records = [...snapshotRecords(state, { now: NOW + 10, dlqRetentionMs: RETENTION })];
    const runs = records.flatMap((record) => (record.type === 'logs.restored' ? [record] : []));
    expect(runs.map((run) => run.logs.length)).toEqual([256, 256, 256, 132]);
    expect(runs.flatMap((run) => run.logs)).toEqual(state.logs);
    for (const run of runs) {
      expect(new Set(run.messages.map((about) => about.id))).toEqual(new Set(run.logs.map((entry) => entry.messageId)));
    }
    const again = replay(records, state);
    expect(again.logs).toEqual(state.logs);
    expect(again.logMessages).toEqual(state.logMessages);
  });

  it('drops the oldest log entries beyond the limit, with their messages', () => {
    const count = LOG_LIMIT; // a CREATED entry each, and two more for the cancelled last one
    const messages = Array.from({ length: count }, (_, index) => message(`msg_${index}`, index + 1));
    const state = replay([
      { type: 'messages.accepted', at: NOW, messages },
      { type: 'messages.cancelled', at: NOW + 1, ids: [`msg_${count - 1}`] },
    ]);
    expect(state.logs.length).toBeGreaterThanOrEqual(LOG_LIMIT);
    expect(state.logs.length).toBeLessThanOrEqual(LOG_LIMIT * 1.1);
    expect(state.logs.at(-1)).toMatchObject({ messageId: `msg_${count - 1}`, state: 'CANCELED' });
    expect(loggedIds(state)).toEqual(state.logs.map((entry) => entry.messageId));
    // Pushed past the limit by 10%: the oldest go in one batch, down to the limit, then two more come.
    const more = Array.from({ length: LOG_LIMIT / 10 + 1 }, (_, index) => message(`msg_more_${index}`, count + index + 1));
    reduce(state, { type: 'messages.accepted', at: NOW + 2, messages: more });
    expect(state.logs).toHaveLength(LOG_LIMIT + 2);
    expect(state.logs[0]?.messageId).toBe(`msg_${LOG_LIMIT / 10 + 1}`);
    expect(loggedIds(state)).toEqual(state.logs.map((entry) => entry.messageId));
  });

  it('keeps its callbacks and resends by origin equal to what it still knows, through trims and a snapshot', () => {
    // A seeded model run: messages, callbacks and resends of earlier ones, attempts whose ACTIVE entry
    // lands among later entries, cancellations; four times past the log's limit.
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const state = createEmptyState();
    const records: DevRecord[] = [];
    const apply = (record: DevRecord) => {
      records.push(record);
      reduce(state, record);
    };
    const ids: string[] = [];
    for (let step = 0, at = NOW; state.nextLogOrder < LOG_LIMIT * 4; step += 1, at += 1) {
      const pending = state.pending.size;
      const choice = random();
      if (choice < 0.5 || pending === 0) {
        const origin = ids.length > 0 && random() < 0.3 ? ids[Math.floor(random() * ids.length)] : undefined;
        const id = `msg_${step}`;
        ids.push(id);
        apply({
          type: 'messages.accepted',
          at,
          messages: [message(id, state.nextSeq, origin === undefined ? {} : { resentFrom: origin })],
        });
      } else if (choice < 0.9) {
        const id = nthPending(state, Math.floor(random() * pending));
        const outcome = random() < 0.7 ? 'delivered' : 'retry';
        const spawned =
          outcome === 'delivered' && random() < 0.5
            ? [message(`msg_${step}`, state.nextSeq, { kind: 'callback', sourceMessageId: id })]
            : [];
        ids.push(...spawned.map((callback) => callback.id));
        const retried = state.pending.retried(id);
        apply({ type: 'attempt', id, at, retried, outcome, startedAt: at - 5, dueAt: at + 10, bytes: 1, spawned });
      } else {
        apply({ type: 'messages.cancelled', at, ids: [nthPending(state, Math.floor(random() * pending))] });
      }
    }
    const expected = (of: DevState) => {
      const logs = new Map<string, string[]>();
      of.logs.forEach((entry, index) => {
        expect(loggedMessage(of, index).id).toBe(entry.messageId);
        logs.set(entry.messageId, [...(logs.get(entry.messageId) ?? []), `${entry.order}`]);
      });
      const known = new Map([
        ...of.logs.map((_, index) => loggedMessage(of, index)).map((kept) => [kept.id, kept] as const),
        ...[...of.pending.values()].map((kept) => [kept.id, kept] as const),
      ]);
      const offspring = new Map<string, string[]>();
      for (const kept of known.values())
        for (const origin of [kept.sourceMessageId, kept.resentFrom])
          if (origin !== undefined) offspring.set(origin, [...(offspring.get(origin) ?? []), kept.id].sort());
      return { logs, offspring };
    };
    const indexed = (of: DevState) => ({
      logs: new Map(
        [...loggedEntries(of, new Set(of.logs.map((entry) => entry.messageId)))].map(([id, logged]) => [
          id,
          logged.entries.map((entry) => `${entry.order}`),
        ]),
      ),
      offspring: new Map([...of.offspring].map(([origin, set]) => [origin, [...set].sort()])),
    });
    expect(state.logs.length).toBeLessThanOrEqual(LOG_LIMIT * 1.1);
    expect(state.offspring.size).toBeGreaterThan(100);
    expect(indexed(state)).toEqual(expected(state));
    const again = replay(snapshotRecords(state, { now: NOW, dlqRetentionMs: RETENTION }), state);
    expect(indexed(again)).toEqual(expected(again));
    expect(indexed(replay(records))).toEqual(indexed(state));
  });

  it('ignores an attempt of a message that is no longer pending', () => {
    const state = replay([
      ...history,
      { type: 'attempt', id: 'msg_b', at: NOW + 5, retried: 1, outcome: 'delivered', bytes: 1, spawned: [] },
    ]);
    expect(state.pending.has('msg_b')).toBe(false);
    expect([...state.stats.values()][0]?.delivered).toBe(1);
  });

  it('replays a release ("retry now") as the message due at its time, retries kept, and never later than it was', () => {
    const delayed = message('msg_d', 10, { queue: undefined, notBefore: NOW + 3_600_000, dueAt: NOW + 3_600_000 });
    const state = replay([
      { type: 'messages.accepted', at: NOW, messages: [delayed] },
      { type: 'message.released', id: 'msg_d', at: NOW + 5 },
      { type: 'message.released', id: 'msg_d', at: NOW + 9 },
      { type: 'message.released', id: 'msg_gone', at: NOW + 9 },
    ]);
    expect(pendingOf(state).find((kept) => kept.id === 'msg_d')).toEqual({ id: 'msg_d', dueAt: NOW + 5, retried: 0, started: false });
    expect(state.pending.has('msg_gone')).toBe(false);
  });
});

describe('one action, one record', () => {
  it('replays a batch record as the records it holds, through its journal form', () => {
    const records: DevRecord[] = [
      {
        type: 'batch',
        records: [
          { type: 'messages.accepted', at: NOW, messages: [message('a', 0)], dedupKeys: ['k:a'] },
          { type: 'messages.accepted', at: NOW, messages: [message('b', 1)] },
          { type: 'dlq.deleted', ids: ['none'] },
        ],
      },
    ];
    const state = replay(records);
    expect(idsOf(state)).toEqual(['a', 'b']);
    expect(state.dedup.get('k:a')?.results).toEqual([{ messageId: 'a', url: 'https://app.test/hook' }]);
  });

  it('writes a transaction as one journal record, each commit resolving once it is durable, and rewrites an older format', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-store-'));
    try {
      const options = { dataDir: dir, now: () => NOW, dlqRetentionMs: RETENTION, onCompactionError: () => {} };
      const store = await openStore(options);
      const durable = store.transaction(() => [
        store.commit({ type: 'messages.accepted', at: NOW, messages: [message('a', 0)] }),
        store.commit({ type: 'messages.accepted', at: NOW, messages: [message('b', 1)] }),
      ]);
      // Applied at once, as every commit is.
      expect(idsOf(store.state)).toEqual(['a', 'b']);
      await Promise.all(durable);
      const lines = (await readFile(join(dir, 'mailroom.jsonl'), 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^[0-9a-f]{8} \{"type":"batch","records":\[/);
      // A journal in the previous format (version 1) is read, and rewritten in this one.
      await store.close();
      const file = join(dir, 'mailroom.jsonl');
      await writeFile(file, (await readFile(file, 'utf8')).replace('"version":2', '"version":1'));
      const reopened = await openStore(options);
      expect(idsOf(reopened.state)).toEqual(['a', 'b']);
      expect((await readFile(file, 'utf8')).split('\n')[0]).toBe('{"format":"mailroom-journal","version":2}');
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('a failed write', () => {
  it('refuses changes and shows only what the journal holds, never an empty state, while reloading fails and is retried', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mailroom-store-'));
    const file = join(dir, 'mailroom.jsonl');
    const reloadErrors: unknown[] = [];
    const refusals: string[] = [];
    const store = await openStore({
      dataDir: dir,
      now: () => NOW,
      dlqRetentionMs: RETENTION,
      onCompactionError: () => {},
      onRefusing: (refusal) => refusals.push(refusal.message),
      onReloadError: (error) => reloadErrors.push(error),
      retryMs: 10,
    });
    try {
      await store.commit({ type: 'messages.accepted', at: NOW, messages: [message('kept', 0)] });
      // The journal moved away, then its path taken by a directory: reloading fails both ways; the
      // next write fails too.
      await rename(file, `${file}.aside`);
      const handle = await open(join(dir, 'probe'), 'w');
      await handle.close();
      vi.spyOn(Object.getPrototypeOf(handle) as { datasync(): Promise<void> }, 'datasync').mockRejectedValueOnce(
        Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }),
      );
      const refused = store.commit({ type: 'messages.accepted', at: NOW, messages: [message('refused', 1)] });
      await expect(refused).rejects.toMatchObject({ status: 507 });
      expect(refusals).toEqual([expect.stringContaining('disk is full (ENOSPC)')]);
      await waitUntil(() => reloadErrors.length >= 3, 'the reload failed and was retried', 10_000);
      // A journal that is gone is not started again empty: that would show (and keep) nothing.
      expect(reloadErrors[0]).toMatchObject({ message: expect.stringMatching(/is gone/) });
      expect(store.state.pending.has('kept')).toBe(true);
      expect(existsSync(file)).toBe(false);
      await mkdir(file);
      const failedBefore = reloadErrors.length;
      await waitUntil(() => reloadErrors.length >= failedBefore + 3, 'reading a directory failed and was retried', 10_000);
      // Not emptied meanwhile: what was accepted before is still shown.
      expect(store.state.pending.has('kept')).toBe(true);
      await expect(store.commit({ type: 'messages.accepted', at: NOW, messages: [message('later', 2)] })).rejects.toMatchObject({
        status: 507,
      });
      // The journal readable again: reloaded, the refused change is gone, and changes are taken again.
      await rm(file, { recursive: true });
      await rename(`${file}.aside`, file);
      await expect(store.writable()).resolves.toBe(true);
      expect(idsOf(store.state)).toEqual(['kept']);
      await store.commit({ type: 'messages.accepted', at: NOW, messages: [message('after', 3)] });
      await store.close();
      const reopened = await openStore({ dataDir: dir, now: () => NOW, dlqRetentionMs: RETENTION, onCompactionError: () => {} });
      expect(idsOf(reopened.state)).toEqual(['kept', 'after']);
      await reopened.close();
    } finally {
      vi.restoreAllMocks();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
