import { readdirSync, readlinkSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { messageRecord, NOW } from './helpers/message-record';
import { waitUntil } from './helpers/wait';
import { createEmptyState, type DevState, LOG_LIMIT, loggedMessage } from '../src/state/dev-state';
import { decodeRecord, type EncodedRecord, encodeRecord } from '../src/state/message-codec';
import { PendingMessages } from '../src/state/pending-messages';
import type { DevRecord, MessageRecord } from '../src/state/records';
import { reduce } from '../src/state/reduce';
import { openStore, type Store } from '../src/state/store';
import { forEachBatchRecord, scanStoredBatchLine, scanStoredMessageLine } from '../src/state/stored-message-lines';

// A restart keeps a plain message as where its journal line is, and reads it when wanted
// (stored-messages.ts). What a user can see must not tell: the state after a restart is the state a
// replay that parses every line gives, before and after the messages are read, taken out, logged,
// snapshotted and restarted again.

const RETENTION = 259_200_000;

/** A message whose journal form is the tuple alone: no queue, nothing but the tuple's fields. */
function plain(id: string, seq: number, extra: Partial<MessageRecord> = {}): MessageRecord {
  const { queue: _queue, ...message } = messageRecord(id, seq, extra);
  return message;
}

/** The state a restart gives by parsing every record: encoded, through JSON, decoded and reduced. */
function parsedReplay(records: readonly DevRecord[]): DevState {
  const state = createEmptyState();
  for (const record of records) reduce(state, decodeRecord(JSON.parse(JSON.stringify(encodeRecord(record))) as EncodedRecord));
  return state;
}

/** What a user can see of a state: the pending messages with their progress, the log with its messages, the counters. */
function seen(state: DevState) {
  return {
    pending: [...state.pending.values()].map((record) => ({
      record,
      retried: state.pending.retried(record.id),
      dueAt: state.pending.dueAt(record.id),
      started: state.pending.started(record.id),
    })),
    logs: state.logs,
    logged: state.logs.map((_, index) => loggedMessage(state, index)),
    nextSeq: state.nextSeq,
    nextLogOrder: state.nextLogOrder,
    stats: [...state.stats],
    dedup: [...state.dedup],
  };
}

/** A seeded history: plain sends (some with a body past ASCII or a deduplication key), sends to a queue, attempts and cancellations. */
function history(steps: number, seed: number): DevRecord[] {
  let next = seed;
  const random = () => (next = (next * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const model = createEmptyState();
  const records: DevRecord[] = [];
  for (let step = 0; step < steps; step++) {
    const at = NOW + step;
    const pending = [...model.pending.values()].map((record) => record.id);
    const choice = random();
    let record: DevRecord;
    if (choice < 0.08) {
      // A `/v2/batch` of plain sends, now and then with a send to a queue among them.
      const count = 2 + Math.floor(random() * 3);
      record = {
        type: 'batch',
        records: Array.from({ length: count }, (_, index): DevRecord => {
          const id = `msg_${step}_${index}`;
          const message =
            random() < 0.1
              ? messageRecord(id, model.nextSeq + index, { createdAt: at })
              : plain(id, model.nextSeq + index, { body: `{"batch":${index}}`, createdAt: at, notBefore: at + 60_000, dueAt: at + 60_000 });
          return { type: 'messages.accepted', at, messages: [message] };
        }),
      };
    } else if (choice < 0.55 || pending.length === 0) {
      const body = random() < 0.2 ? 'caf\u00e9 "quoted" \\ \u00ff]}' : `{"n":${step}}`;
      // Most sends name their content type; some carry a label: fields a message waiting in the journal keeps there.
      const neutral = random() < 0.5 ? { contentType: 'application/json', ...(random() < 0.3 ? { label: `label-${step % 4}` } : {}) } : {};
      record = {
        type: 'messages.accepted',
        at,
        messages: [plain(`msg_${step}`, model.nextSeq, { body, createdAt: at, notBefore: at + 60_000, dueAt: at + 60_000, ...neutral })],
      };
      if (random() < 0.1) record.dedupKeys = [`key-${step}`];
    } else if (choice < 0.65) {
      record = { type: 'messages.accepted', at, messages: [messageRecord(`msg_${step}`, model.nextSeq, { createdAt: at })] };
    } else if (choice < 0.85) {
      const id = pending[Math.floor(random() * pending.length)]!;
      const outcome = random() < 0.5 ? 'delivered' : 'retry';
      record = {
        type: 'attempt',
        id,
        at,
        retried: model.pending.retried(id),
        outcome,
        startedAt: at - 1,
        dueAt: at + 10,
        bytes: 1,
        spawned: [],
      };
    } else {
      record = { type: 'messages.cancelled', at, ids: [pending[Math.floor(random() * pending.length)]!] };
    }
    records.push(record);
    reduce(model, record);
  }
  return records;
}

/**
 * Cancels two pending messages of `state` and makes attempts of two others: changes to messages read back
 * as bytes. The newest still have their log entries (which must then show the message), the oldest not.
 */
function laterChanges(state: DevState, at: number): DevRecord[] {
  const ids = [...state.pending.values()].filter((record) => record.queue === undefined).map((record) => record.id);
  return [
    { type: 'messages.cancelled', at, ids: [ids[0]!, ids.at(-1)!] },
    { type: 'attempt', id: ids.at(-2)!, at: at + 1, retried: 0, outcome: 'delivered', startedAt: at, bytes: 1, spawned: [] },
    {
      type: 'attempt',
      id: ids.at(-3)!,
      at: at + 2,
      retried: 0,
      outcome: 'retry',
      startedAt: at + 1,
      dueAt: at + 100,
      bytes: 1,
      spawned: [],
    },
  ];
}

let dir: string;
const open = (dataDir: string): Promise<Store> =>
  openStore({ dataDir, now: () => NOW, dlqRetentionMs: RETENTION, onCompactionError: () => {} });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-stored-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('messages left in the journal on a restart', () => {
  it('give the state a parsing replay gives: from sends, from a snapshot, after changes, and across another restart', async () => {
    // Past the log's limit, so entries that name a message by its id are dropped too.
    const records = history(LOG_LIMIT + 2_000, 11);
    const first = await open(join(dir, 'first'));
    await Promise.all(records.map((record) => first.commit(record)));
    const changes = laterChanges(parsedReplay(records), NOW + 1_000_000);
    const expected = parsedReplay([...records, ...changes]);
    // The journal as a crash leaves it (a line per send), and as a close leaves it (a snapshot).
    const journals = { crashed: join(dir, 'crashed.jsonl'), closed: join(dir, 'closed.jsonl') };
    await copyFile(join(dir, 'first', 'mailroom.jsonl'), journals.crashed);
    await first.close();
    await copyFile(join(dir, 'first', 'mailroom.jsonl'), journals.closed);

    for (const [name, journal] of Object.entries(journals)) {
      const as = async (copy: string) => {
        await mkdir(join(dir, copy));
        await copyFile(journal, join(dir, copy, 'mailroom.jsonl'));
        return open(join(dir, copy));
      };
      const read = await as(`${name}-read`);
      // Kept as bytes until read: every plain message never attempted (over a thousand here).
      const plainIds = [...parsedReplay(records).pending.values()]
        .filter((record) => record.queue === undefined)
        .map((record) => record.id);
      const keptAsBytes = plainIds.filter((id) => read.state.pending.held(id) === undefined);
      expect(keptAsBytes.length).toBeGreaterThan(1_000);
      // Sends of a batch whose every record is a plain send too, when the journal still has that line.
      if (name === 'crashed') {
        const batched = records.flatMap((record) =>
          record.type === 'batch' &&
          record.records.every((inner) => inner.type === 'messages.accepted' && inner.messages[0]!.queue === undefined)
            ? record.records.flatMap((inner) => (inner.type === 'messages.accepted' ? inner.messages.map((message) => message.id) : []))
            : [],
        );
        const attempted = new Set(records.flatMap((record) => (record.type === 'attempt' ? [record.id] : [])));
        const stillPlain = batched.filter((id) => plainIds.includes(id) && !attempted.has(id));
        expect(stillPlain.length).toBeGreaterThan(50);
        for (const id of stillPlain) expect(read.state.pending.held(id), id).toBeUndefined();
      }
      expect(seen(read.state)).toEqual(seen(parsedReplay(records)));
      await read.close();
      // Changed before anything is read: a message taken out gives its log entries its record.
      const changed = await as(`${name}-changed`);
      for (const change of changes) await changed.commit(change);
      expect(seen(changed.state)).toEqual(seen(expected));
      await changed.close();
      // The snapshot that close wrote read each message still left in the journal: the next start has them all.
      const again = await open(join(dir, `${name}-changed`));
      expect(seen(again.state)).toEqual(seen(expected));
      await again.close();
    }
  });

  it('are walked in the order they came before any is read by id, and a message on two lines is the later one', async () => {
    const file = join(dir, 'journal.jsonl');
    const later = { notBefore: NOW + 9_000, dueAt: NOW + 9_000 };
    const sent = [plain('msg_a', 1), plain('msg_b', 2), plain('msg_c', 3), plain('msg_b', 4, { body: 'again', ...later })];
    const lines = sent.map((message) => JSON.stringify(encodeRecord({ type: 'messages.accepted', at: NOW, messages: [message] })));
    await writeFile(file, `${lines.join('\n')}\n`);
    const pending = new PendingMessages();
    let offset = 0;
    for (const text of lines) {
      const line = Buffer.from(text);
      pending.putStored(scanStoredMessageLine(line, 0, line.length)!, { start: 0, offset, file, generation: 0 });
      offset += line.length + 1;
    }
    pending.doneReading();
    // What a restart's first answers walk: every message in the order it came, no queue among them.
    const walked: string[] = [];
    pending.forEachDueInAcceptanceOrder((id, dueAt, started, held) => {
      walked.push(`${id} ${dueAt - NOW} ${started} ${held === undefined}`);
    });
    expect(walked).toEqual(['msg_a 0 false true', 'msg_b 0 false true', 'msg_c 0 false true', 'msg_b 9000 false true']);
    expect(pending.countPerQueue()).toEqual(new Map());
    // Read by id: the later line's copy, in the place it came; every other message as sent.
    expect(pending.get('msg_b')).toEqual(sent[3]);
    expect(pending.get('msg_a')).toEqual(sent[0]);
    expect(pending.size).toBe(3);
    expect([...pending.values()].map((message) => message.seq)).toEqual([1, 3, 4]);
    expect(pending.delete('msg_c')).toEqual(sent[2]);
    expect([...pending.values()].map((message) => message.id)).toEqual(['msg_a', 'msg_b']);
    pending.close();
  });

  it('are read from the file they were in, even once a compaction renamed another over it', async () => {
    const file = join(dir, 'journal.jsonl');
    const message = plain('msg_kept', 7, { body: 'the bytes \u00e9', notBefore: NOW + 5, dueAt: NOW + 5 });
    const json = JSON.stringify(encodeRecord({ type: 'message.restored', message, retried: 0, dueAt: message.dueAt, started: false }));
    await writeFile(file, `${json}\n`);
    const line = Buffer.from(json);
    const scanned = scanStoredMessageLine(line, 0, line.length);
    expect(scanned).toMatchObject({ kind: 'restored', id: 'msg_kept', seq: 7, dueAt: NOW + 5 });
    const pending = new PendingMessages();
    pending.putStored(scanned!, { start: 0, offset: 0, file, generation: 0 });
    pending.doneReading();
    expect(pending.held('msg_kept')).toBeUndefined();
    expect(pending.dueAt('msg_kept')).toBe(NOW + 5);
    const snapshotReads: MessageRecord[] = [];
    pending.forEachToSnapshot((record) => snapshotReads.push(typeof record === 'function' ? record() : record));

    await writeFile(join(dir, 'other.jsonl'), 'x'.repeat(json.length));
    await rename(join(dir, 'other.jsonl'), file);
    expect(pending.get('msg_kept')).toEqual(message);
    expect(pending.held('msg_kept')).toEqual(message);
    expect(snapshotReads).toEqual([message]);
    expect(await readFile(file, 'utf8')).not.toContain('msg_kept');
    pending.close();
  });
});

describe('messages left in the journal once their send is durable', () => {
  /** The plain sends of `records` left never attempted, with nothing in their record but the message: those a store leaves in the journal. */
  function leftAside(records: readonly DevRecord[]): string[] {
    const touched = new Set<string>();
    for (const record of records) if (record.type === 'attempt') touched.add(record.id);
    const end = parsedReplay(records);
    return records
      .flatMap((record) => (record.type === 'batch' ? record.records : [record]))
      .flatMap((record) =>
        record.type === 'messages.accepted' && record.dedupKeys === undefined && record.messages[0]!.queue === undefined
          ? record.messages.map((message) => message.id).filter((id) => end.pending.has(id) && !touched.has(id))
          : [],
      );
  }

  it('leave every plain send due 30 s or more from now, never attempted, and change nothing a user sees', async () => {
    const records = history(3_000, 5);
    const store = await open(join(dir, 'live'));
    await Promise.all(records.map((record) => store.commit(record)));
    const aside = leftAside(records);
    expect(aside.length).toBeGreaterThan(500);
    const held = [...parsedReplay(records).pending.values()].map((record) => record.id).filter((id) => store.state.pending.held(id));
    expect(held.length + aside.length).toBe(store.state.pending.size);
    for (const id of aside) expect(store.state.pending.held(id)).toBeUndefined();
    // Their log entries name them by id, as a restart's do: the log does not keep their records alive.
    const asideSet = new Set(aside);
    const logged = store.state.logs.flatMap((entry, index) => (asideSet.has(entry.messageId) ? [store.state.logMessages[index]] : []));
    expect(logged.length).toBeGreaterThan(100);
    for (const message of logged) expect(typeof message).toBe('string');
    // Deleting a queue looks for its messages among those held: none left in the journal is read for it.
    const queued = [...parsedReplay(records).pending.values()].filter((record) => record.queue === 'q').map((record) => record.id);
    expect(queued.length).toBeGreaterThan(50);
    expect(store.state.pending.heldIdsWhere((record) => record.queue === 'q')).toEqual(queued);
    for (const id of aside) expect(store.state.pending.held(id)).toBeUndefined();
    // The journal as a crash leaves it, before anything left aside is read: its restart sees what a parsing replay does.
    await copyFile(join(dir, 'live', 'mailroom.jsonl'), join(dir, 'crashed.jsonl'));
    const changes = laterChanges(parsedReplay(records), NOW + 1_000_000);
    for (const change of changes) await store.commit(change);
    const expected = parsedReplay([...records, ...changes]);
    // Closed with messages still aside: the snapshot reads each from the journal it is in.
    await store.close();
    const again = await open(join(dir, 'live'));
    expect(seen(again.state)).toEqual(seen(expected));
    await again.close();
    await mkdir(join(dir, 'crashed'));
    await copyFile(join(dir, 'crashed.jsonl'), join(dir, 'crashed', 'mailroom.jsonl'));
    const crashed = await open(join(dir, 'crashed'));
    expect(seen(crashed.state)).toEqual(seen(parsedReplay(records)));
    await crashed.close();
  });

  it('read back as they were sent, once read held again, and shown as a parsing replay shows them', async () => {
    const records = history(1_500, 8);
    const store = await open(join(dir, 'live'));
    await Promise.all(records.map((record) => store.commit(record)));
    const aside = leftAside(records);
    expect(aside.length).toBeGreaterThan(200);
    const expected = parsedReplay(records);
    expect(seen(store.state)).toEqual(seen(expected));
    for (const id of aside) expect(store.state.pending.held(id)).toEqual(expected.pending.get(id));
    await store.close();
  });

  it('keep a send due sooner, one changed before it was durable, and every one of the in-memory store', async () => {
    const send = (id: string, seq: number, dueIn: number): DevRecord => ({
      type: 'messages.accepted',
      at: NOW,
      messages: [plain(id, seq, { notBefore: NOW + dueIn, dueAt: NOW + dueIn })],
    });
    const store = await open(join(dir, 'live'));
    const durable = [store.commit(send('msg_soon', 1, 29_999)), store.commit(send('msg_later', 2, 30_000))];
    durable.push(store.commit(send('msg_tried', 3, 60_000)));
    // Attempted before its send was written: it stays held as the attempt left it.
    const attempt: DevRecord = {
      type: 'attempt',
      id: 'msg_tried',
      at: NOW,
      retried: 0,
      outcome: 'retry',
      dueAt: NOW + 90_000,
      bytes: 1,
      spawned: [],
    };
    durable.push(store.commit(attempt));
    await Promise.all(durable);
    expect(store.state.pending.held('msg_soon')).toBeDefined();
    expect(store.state.pending.held('msg_later')).toBeUndefined();
    expect(store.state.pending.held('msg_tried')).toBeDefined();
    expect(store.state.pending.retried('msg_tried')).toBe(1);
    expect(store.state.pending.dueAt('msg_tried')).toBe(NOW + 90_000);
    await store.close();
    const memory = await openStore({ dataDir: undefined, now: () => NOW, dlqRetentionMs: RETENTION, onCompactionError: () => {} });
    await memory.commit(send('msg_later', 1, 3_600_000));
    expect(memory.state.pending.held('msg_later')).toBeDefined();
    await memory.close();
  });

  it('are read from the file they were written to, when a compaction renamed the next one over it', async () => {
    const file = join(dir, 'journal.jsonl');
    const lineOf = (message: MessageRecord) => JSON.stringify(encodeRecord({ type: 'messages.accepted', at: NOW, messages: [message] }));
    const first = plain('msg_first', 1, { body: 'first', notBefore: NOW + 60_000, dueAt: NOW + 60_000 });
    const second = plain('msg_second', 2, { body: 'second \u00e9', notBefore: NOW + 60_000, dueAt: NOW + 60_000 });
    const pending = new PendingMessages();
    const putAside = async (message: MessageRecord, generation: number, padding: string) => {
      const json = lineOf(message);
      await writeFile(join(dir, 'next.jsonl'), `${padding}${json}\n`);
      await rename(join(dir, 'next.jsonl'), file);
      const line = Buffer.from(json);
      pending.put(message);
      pending.putAside(message, scanStoredMessageLine(line, 0, line.length)!, {
        start: 0,
        offset: Buffer.byteLength(padding),
        file,
        generation,
      });
    };
    await putAside(first, 0, '');
    await putAside(second, 1, 'a longer line the next file starts with\n');
    expect(pending.held('msg_first')).toBeUndefined();
    expect(pending.held('msg_second')).toBeUndefined();
    expect(pending.get('msg_second')).toEqual(second);
    expect(pending.get('msg_first')).toEqual(first);
    // A file that cannot be opened (gone, or no descriptor left) leaves the message held.
    const third = plain('msg_third', 3, { notBefore: NOW + 60_000, dueAt: NOW + 60_000 });
    const line = Buffer.from(lineOf(third));
    pending.put(third);
    const gone = { start: 0, offset: 0, file: join(dir, 'gone.jsonl'), generation: 2 };
    expect(() => pending.putAside(third, scanStoredMessageLine(line, 0, line.length)!, gone)).toThrow(/ENOENT/);
    expect(pending.held('msg_third')).toBe(third);
    pending.close();
  });
});

/** How many of this process's descriptors hold a file under `folder` that is gone from it (renamed over or removed). */
function goneFilesHeld(folder: string): number {
  return readdirSync('/proc/self/fd')
    .map((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        return '';
      }
    })
    .filter((target) => target.startsWith(folder) && target.endsWith(' (deleted)')).length;
}

// A compaction writes every pending message into the new file: a message left in an older file is
// moved to its line there, so the older file is closed and its bytes leave the disk. Read through
// /proc, so on Linux only.
describe.runIf(process.platform === 'linux')('messages left in a journal file a compaction replaced', () => {
  it('are moved to their lines in the new file, and the old file is let go', async () => {
    const file = join(dir, 'journal.jsonl');
    const message = plain('msg_a', 1, { body: 'caf\u00e9', contentType: 'text/plain', notBefore: NOW + 60_000, dueAt: NOW + 60_000 });
    const other = plain('msg_b', 2, { notBefore: NOW + 60_000, dueAt: NOW + 60_000 });
    const sends = [message, other].map((sent) => JSON.stringify(encodeRecord({ type: 'messages.accepted', at: NOW, messages: [sent] })));
    await writeFile(file, `${sends.join('\n')}\n`);
    const pending = new PendingMessages();
    let offset = 0;
    for (const [index, sent] of [message, other].entries()) {
      const line = Buffer.from(sends[index]!);
      pending.put(sent);
      pending.putAside(sent, scanStoredMessageLine(line, 0, line.length)!, { start: 0, offset, file, generation: 0 });
      offset += line.length + 1;
    }
    // The compaction's file: its snapshot restores both, after a first line of another kind.
    const restored = [message, other].map((sent) =>
      JSON.stringify(encodeRecord({ type: 'message.restored', message: sent, retried: 0, dueAt: sent.dueAt, started: false })),
    );
    const header = '{"type":"counters.restored"}';
    await writeFile(join(dir, 'next.jsonl'), `${header}\n${restored.join('\n')}\n`);
    await rename(join(dir, 'next.jsonl'), file);
    expect(goneFilesHeld(dir)).toBe(1);
    expect(pending.follow(file, 1)).toBe(true);
    // One of them was read (and is held) before its line in the new file was found: it is not moved.
    expect(pending.get('msg_b')).toEqual(other);
    let at = header.length + 1;
    for (const text of restored) {
      const line = Buffer.from(text);
      pending.moveStored(scanStoredMessageLine(line, 0, line.length)!, { start: 0, offset: at, file, generation: 1 });
      at += line.length + 1;
    }
    expect(goneFilesHeld(dir)).toBe(0);
    expect(pending.held('msg_a')).toBeUndefined();
    expect(pending.get('msg_a')).toEqual(message);
    // Nothing is left in an older file now: a later compaction opens nothing for it.
    expect(pending.follow(file, 2)).toBe(false);
    pending.close();
  });

  it('let go of the old file once a store compacted its journal by itself, and read back as they were sent', async () => {
    const live = join(dir, 'live');
    const store = await open(live);
    // Past the 16 MB after which a journal compacts, in sends due an hour from now: each is left in the journal.
    const body = 'x'.repeat(4_000);
    const sent = Array.from({ length: 4_500 }, (_, index) =>
      plain(`msg_${index}`, index + 1, { body: `${index}${body}`, notBefore: NOW + 3_600_000, dueAt: NOW + 3_600_000 }),
    );
    await Promise.all(sent.map((message) => store.commit({ type: 'messages.accepted', at: NOW, messages: [message] })));
    // The journal compacts in the background, then the messages are moved to the new file's lines.
    const { ino } = await stat(join(live, 'mailroom.jsonl'));
    await waitUntil(async () => (await stat(join(live, 'mailroom.jsonl'))).ino !== ino, 'the journal to compact', 45_000);
    await waitUntil(() => goneFilesHeld(live) === 0, 'the replaced file to be let go', 45_000);
    for (const message of sent.slice(0, 50)) expect(store.state.pending.held(message.id)).toBeUndefined();
    for (const message of sent) expect(store.state.pending.get(message.id)).toEqual(message);
    await store.close();
    const again = await open(live);
    expect([...again.state.pending.values()]).toEqual(sent);
    await again.close();
  }, 120_000);
});

describe('which journal lines are read as a plain message', () => {
  const at = NOW + 3;
  const lineOf = (record: DevRecord) => Buffer.from(JSON.stringify(encodeRecord(record)));
  const scan = (record: DevRecord) => {
    const line = lineOf(record);
    return scanStoredMessageLine(line, 0, line.length);
  };
  /** The plain messages of a batch line as read (ids, order, due time), or `undefined` when it is parsed whole; a prefix before it in the buffer. */
  const scanBatch = (record: DevRecord, before = '') => {
    const line = Buffer.concat([Buffer.from(before), lineOf(record)]);
    const read: Array<{ id: string; seq: number; dueAt: number; tuple: unknown }> = [];
    const taken = scanStoredBatchLine(line, before.length, line.length, (scanned) =>
      read.push({ ...scanned, tuple: JSON.parse(line.toString('utf8', scanned.tupleStart, scanned.tupleEnd)) }),
    );
    if (taken) return read.map(({ id, seq, dueAt, tuple }) => ({ id, seq, dueAt, tuple }));
    expect(read).toEqual([]);
    return undefined;
  };

  it('reads every send of a batch (`/v2/batch`) when each is a plain one, and none otherwise', () => {
    const bodies = ['', '"]}', '\\"', '"},{"type":"accepted","at":1,"m":[', 'caf\u00e9 \\\\', '{"a":[1,{"b":"]"}]}', '],["msg_b",2,'];
    const sends = bodies.map((body, index) =>
      plain(`msg_${index}`, index + 1, { body, createdAt: at, notBefore: at + index, dueAt: at + index }),
    );
    const batch: DevRecord = { type: 'batch', records: sends.map((message) => ({ type: 'messages.accepted', at, messages: [message] })) };
    const expected = sends.map((message) => ({
      id: message.id,
      seq: message.seq,
      dueAt: message.dueAt,
      tuple: (encodeRecord({ type: 'messages.accepted', at, messages: [message] }) as unknown as { m: unknown[] }).m[0],
    }));
    expect(scanBatch(batch)).toEqual(expected);
    expect(scanBatch(batch, '{"type":"batch","records":[')).toEqual(expected);
    // One record of another kind (a queue made by the batch, a deduplicated send, a send to a queue): parsed whole.
    const others: DevRecord[] = [
      { type: 'queue.updated', name: 'q', queue: null },
      { type: 'messages.accepted', at, messages: [sends[0]!], dedupKeys: ['k'] },
      { type: 'messages.accepted', at, messages: [messageRecord('msg_q', 9, { createdAt: at })] },
    ];
    for (const other of others) {
      for (const place of [0, 3, sends.length]) {
        const records = [...batch.records];
        records.splice(place, 0, other);
        expect(scanBatch({ type: 'batch', records }), JSON.stringify(other)).toBeUndefined();
      }
    }
    expect(scanBatch({ type: 'batch', records: [] })).toEqual([]);
    expect(scanBatch({ type: 'messages.accepted', at, messages: [sends[0]!] })).toBeUndefined();
    // Cut short anywhere, a batch line is not read.
    const line = lineOf(batch);
    for (let end = 1; end < line.length; end++) expect(scanStoredBatchLine(line, 0, end, () => {})).toBe(false);
  });

  it('reads the id, order and due time of a send, or of a snapshot restoring one never attempted, whatever its body', () => {
    const bodies = ['', 'x', '"]}', '\\"', 'caf\u00e9 \u00ff', '{"a":[1,{"b":"]"}]}', '\u0000\u001f', '],["msg_b",2,', '",5,7,0,0,"::1"]'];
    // Fields nothing reads while a message waits, in its `rest`: such a send is read too.
    const neutral: Array<Partial<MessageRecord>> = [
      {},
      { contentType: 'application/json' },
      { label: 'a "label"},{' },
      { method: 'PUT', forwardHeaders: { 'X-A': '"]}' }, retryDelay: '1000 * retried' },
      { redact: { body: true, headers: true }, contentType: 'text/plain' },
    ];
    for (const [index, body] of bodies.entries()) {
      const message = plain('msg_a', 41, {
        body,
        createdAt: at,
        notBefore: at + 1_500,
        dueAt: at + 1_500,
        ...neutral[index % neutral.length],
      });
      expect(scan({ type: 'messages.accepted', at, messages: [message] })).toMatchObject({
        kind: 'accepted',
        at,
        id: 'msg_a',
        seq: 41,
        dueAt: at + 1_500,
      });
      expect(scan({ type: 'message.restored', message, retried: 0, dueAt: message.dueAt, started: false })).toMatchObject({
        kind: 'restored',
        id: 'msg_a',
        seq: 41,
        dueAt: at + 1_500,
      });
    }
  });

  it('reads each of a run of sends as itself, whatever `rest` the send before it had', () => {
    // The last neutral `rest` is compared first (most sends repeat one): a send whose `rest` or caller
    // address ends in that text, or whose `rest` is not neutral, is still read (or refused) as itself.
    const rests: Array<Partial<MessageRecord>> = [
      { contentType: 'application/json' },
      { label: 'x', contentType: 'application/json' },
      { queue: 'q', contentType: 'application/json' },
      { flowControl: { key: 'k' }, contentType: 'application/json' } as Partial<MessageRecord>,
      { forwardHeaders: { 'X-A': '{"contentType":"application/json"}' } },
      {},
    ];
    const callerIps = ['127.0.0.1', '",{"contentType":"application/json"}', 'a",{"contentType":"application/json"}]', '\\'];
    let next = 7;
    const random = () => (next = (next * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 400; step++) {
      const rest = rests[Math.floor(random() * rests.length)]!;
      const callerIp = callerIps[Math.floor(random() * callerIps.length)]!;
      const { queue: _queue, ...base } = messageRecord(`msg_${step}`, step + 1, {
        createdAt: at,
        notBefore: at + step,
        dueAt: at + step,
        callerIp,
      });
      const message = { ...base, ...rest } as MessageRecord;
      const record: DevRecord = { type: 'messages.accepted', at, messages: [message] };
      const line = lineOf(record);
      const read = scanStoredMessageLine(line, 0, line.length);
      const neutral = rest.queue === undefined && !('flowControl' in rest);
      // A caller address with quotes in it may make a neutral send be parsed instead; never misread.
      if (!neutral) expect(read, JSON.stringify(encodeRecord(record))).toBeUndefined();
      else if (callerIp === '127.0.0.1') expect(read, JSON.stringify(encodeRecord(record))).toBeDefined();
      if (!read) continue;
      expect(read).toMatchObject({ id: message.id, seq: message.seq, dueAt: message.dueAt });
      expect(JSON.parse(line.toString('utf8', read.tupleStart, read.tupleEnd))).toEqual(
        (encodeRecord(record) as unknown as { m: unknown[] }).m[0],
      );
    }
  });

  it('finds each record of a batch, a nested batch and records of other kinds among them', () => {
    const send = (id: string, body: string) =>
      ({ type: 'messages.accepted', at, messages: [plain(id, 1, { body, createdAt: at })] }) as DevRecord;
    const records: DevRecord[] = [
      send('msg_a', '},{"type":"accepted","at":1,"m":[[]]}'),
      { type: 'batch', records: [send('msg_b', 'x'), { type: 'queue.updated', name: 'q', queue: null }, send('msg_c', ']}')] },
      { type: 'messages.cancelled', at, ids: ['msg_z'] },
      send('msg_d', '\\'),
      { type: 'batch', records: [] },
    ];
    const line = lineOf({ type: 'batch', records });
    const pieces: unknown[] = [];
    expect(
      forEachBatchRecord(line, 0, line.length, (_index, start, end) => pieces.push(JSON.parse(line.toString('utf8', start, end)))),
    ).toBe(true);
    expect(pieces).toEqual(records.map((record) => JSON.parse(JSON.stringify(encodeRecord(record)))));
    expect(scanBatch({ type: 'batch', records })).toBeUndefined();
  });

  it('leaves every other record to be parsed', () => {
    const message = plain('msg_a', 1, { createdAt: at });
    const refused: DevRecord[] = [
      { type: 'messages.accepted', at, messages: [message], dedupKeys: ['k'] },
      { type: 'messages.accepted', at, messages: [message], schedule: { id: 's', time: at } },
      { type: 'messages.accepted', at, messages: [message, plain('msg_b', 2, { createdAt: at })] },
      { type: 'messages.accepted', at, messages: [messageRecord('msg_q', 1, { createdAt: at }), message] },
      { type: 'messages.accepted', at, messages: [message, messageRecord('msg_q', 2, { createdAt: at })] },
      { type: 'messages.accepted', at, messages: [messageRecord('msg_q', 1, { createdAt: at })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, label: 'l', workflow: { runId: 'r' } as never })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, contentType: 'a/b', flowControl: { key: 'k' } })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, scheduleId: 's' })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, resentFrom: 'msg_z' })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, sourceMessageId: 'msg_z', kind: 'callback' })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, dueAt: at + 7 })] },
      { type: 'messages.accepted', at, messages: [plain('msg_a', 1, { createdAt: at, callback: { url: 'http://x/"]}' } as never })] },
      { type: 'messages.accepted', at, messages: [plain('msg_\u00e9', 1, { createdAt: at })] },
      { type: 'messages.accepted', at, messages: [plain('msg_"', 1, { createdAt: at })] },
      { type: 'message.restored', message: messageRecord('msg_q', 1, { createdAt: at }), retried: 0, dueAt: at, started: false },
      { type: 'message.restored', message, retried: 1, dueAt: message.dueAt, started: false },
      { type: 'message.restored', message, retried: 0, dueAt: message.dueAt + 1, started: false },
      { type: 'message.restored', message, retried: 0, dueAt: message.dueAt, started: true },
      { type: 'batch', records: [{ type: 'messages.accepted', at, messages: [message] }] },
      { type: 'messages.cancelled', at, ids: ['msg_a'] },
    ];
    for (const record of refused) expect(scan(record), JSON.stringify(encodeRecord(record))).toBeUndefined();
    expect(scanBatch({ type: 'batch', records: [{ type: 'messages.accepted', at, messages: [message] }] })).toHaveLength(1);
    // The due time is read from the tuple's end: a caller address that looks like that end is not misread.
    for (const callerIp of ['a",1,2,"b', 'a\\', '\\"', ',"', '",{"a":1}']) {
      for (const extra of [{}, { contentType: 'a/b' }]) {
        const odd = plain('msg_a', 1, { createdAt: at, notBefore: at + 5, dueAt: at + 5, callerIp, ...extra });
        const read = scan({ type: 'messages.accepted', at, messages: [odd] });
        if (read !== undefined) expect(read).toMatchObject({ id: 'msg_a', seq: 1, dueAt: at + 5 });
      }
    }
    // Cut short or changed anywhere in its tuple, a line is not read either.
    const line = lineOf({ type: 'messages.accepted', at, messages: [message] });
    for (let end = 1; end < line.length; end++) expect(scanStoredMessageLine(line, 0, end)).toBeUndefined();
    const withRest = lineOf({
      type: 'messages.accepted',
      at,
      messages: [plain('msg_a', 1, { createdAt: at, contentType: 'a/b', label: '"}' })],
    });
    expect(scanStoredMessageLine(withRest, 0, withRest.length)).toMatchObject({ id: 'msg_a', seq: 1 });
    for (let end = 1; end < withRest.length; end++) expect(scanStoredMessageLine(withRest, 0, end)).toBeUndefined();
    const changed = Buffer.from(line.toString('latin1').replace('"msg_a",1,', '"msg_a",x,'), 'latin1');
    expect(scanStoredMessageLine(changed, 0, changed.length)).toBeUndefined();
  });
});

describe('a message that leaves the pending ones', () => {
  it('leaves through takePending alone, which gives the log entries that named it by id its record', async () => {
    const source = fileURLToPath(new URL('../src', import.meta.url));
    const files = (await readdir(source, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const deleting: string[] = [];
    for (const file of files) if (/pending\.delete\(/.test(await readFile(join(source, file), 'utf8'))) deleting.push(file);
    expect(deleting).toEqual([join('state', 'message-index.ts')]);
  });
});
