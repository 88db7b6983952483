import { closeSync, openSync, readSync } from 'node:fs';
import { appendFile, mkdir, open as openFile, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { waitUntil } from '../helpers/wait';
import { JournalCorruptError, JournalUnavailableError, openJournal, type Journal, type OpenJournalOptions } from '../../src/journal';
import { encodeRecordLine, readLinesOf } from '../../src/journal/record-line';
import { useTempDir } from './temp-dir';

interface Event {
  id: number;
  text?: string;
}

const tempDir = useTempDir();
const openHere: Journal<unknown>[] = [];

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(openHere.splice(0).map((journal) => journal.close()));
});

async function open(options: Partial<OpenJournalOptions<Event>> = {}) {
  const opened = await openJournal<Event>({ dir: tempDir(), ...options });
  openHere.push(opened.journal as Journal<unknown>);
  return opened;
}

async function reopen(journal: Journal<Event>, options: Partial<OpenJournalOptions<Event>> = {}) {
  await journal.close();
  return open(options);
}

const file = () => join(tempDir(), 'journal.jsonl');

/** Node's FileHandle class is not exported; any handle leads to its prototype, to make a call fail. */
async function fileHandlePrototype(): Promise<{ datasync(): Promise<void>; sync(): Promise<void> }> {
  const handle = await openFile(join(tempDir(), 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle) as { datasync(): Promise<void>; sync(): Promise<void> };
}

describe('append and replay', () => {
  it('replays every appended record, in order, after a reopen', async () => {
    const { journal, records, recovery } = await open();
    expect(records).toEqual([]);
    expect(recovery).toEqual({
      tornBytesDropped: 0,
      damagedRecordsSkipped: 0,
      damagedBytesSkipped: 0,
      damagedFile: undefined,
      file: file(),
    });
    const events: Event[] = [{ id: 1 }, { id: 2, text: 'line\nbreak and "quotes" ✉️' }, { id: 3, text: '' }];
    for (const event of events) await journal.append(event);
    const again = await reopen(journal);
    expect(again.records).toEqual(events);
    expect(again.recovery.tornBytesDropped).toBe(0);
  });

  it('writes a header line, then one checksummed JSON line per record', async () => {
    const { journal } = await open();
    await journal.append({ id: 7 });
    const lines = (await readFile(file(), 'utf8')).split('\n');
    expect(lines[0]).toBe('{"format":"mailroom-journal","version":2}');
    expect(lines[1]).toMatch(/^[0-9a-f]{8} \{"id":7\}$/);
    expect(lines[2]).toBe('');
  });

  it('syncs before an append resolves', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    expect(journal.stats()).toMatchObject({ appends: 1, batches: 1, syncs: 1, recordsInFile: 1 });
  });

  it('shares one write and one sync among 1,000 concurrent appends (group commit)', async () => {
    const { journal } = await open();
    const ids = Array.from({ length: 1000 }, (_, id) => id);
    await Promise.all(ids.map((id) => journal.append({ id })));
    const stats = journal.stats();
    expect(stats.appends).toBe(1000);
    expect(stats.syncs).toBeLessThanOrEqual(2);
    expect(stats.batches).toBe(stats.syncs);
    const again = await reopen(journal);
    expect(again.records.map((event) => event.id)).toEqual(ids);
  });

  it('batches appends that arrive while a sync is running', async () => {
    const { journal } = await open();
    const first = journal.append({ id: 0 });
    await new Promise((resolve) => setImmediate(resolve));
    // The first batch is being written now: these three must wait for it, then share the next sync.
    await Promise.all([first, journal.append({ id: 1 }), journal.append({ id: 2 }), journal.append({ id: 3 })]);
    expect(journal.stats()).toMatchObject({ appends: 4, batches: 2, syncs: 2 });
  });

  it('does not sync with fsync: false, and still replays', async () => {
    const { journal } = await open({ fsync: false });
    await Promise.all([journal.append({ id: 1 }), journal.append({ id: 2 })]);
    expect(journal.stats().syncs).toBe(0);
    expect((await reopen(journal)).records).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('rejects a record JSON cannot represent, and keeps working', async () => {
    const { journal } = await open();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(journal.append(undefined as unknown as Event)).rejects.toThrow(/JSON-serialisable, got undefined/);
    await expect(journal.append({ id: 1n } as unknown as Event)).rejects.toThrow(TypeError);
    await expect(journal.append(circular as unknown as Event)).rejects.toThrow(/JSON-serialisable/);
    await journal.append({ id: 1 });
    expect((await reopen(journal)).records).toEqual([{ id: 1 }]);
  });

  it('creates missing parent directories', async () => {
    const dir = join(tempDir(), 'a', 'b');
    const { journal } = await openJournal<Event>({ dir });
    await journal.append({ id: 1 });
    await journal.close();
    const again = await openJournal<Event>({ dir });
    await again.journal.close();
    expect(again.records).toEqual([{ id: 1 }]);
  });

  it('keeps journals with different names apart in one directory', async () => {
    const messages = await open({ name: 'messages' });
    const groups = await open({ name: 'url-groups' });
    await messages.journal.append({ id: 1 });
    await groups.journal.append({ id: 2 });
    expect(await readdir(tempDir())).toEqual(
      expect.arrayContaining(['messages.jsonl', 'messages.lock', 'url-groups.jsonl', 'url-groups.lock']),
    );
    expect((await reopen(groups.journal, { name: 'url-groups' })).records).toEqual([{ id: 2 }]);
  });

  it('refuses bad options', async () => {
    await expect(openJournal({ dir: '' })).rejects.toThrow(/needs `dir`/);
    await expect(openJournal({ dir: tempDir(), name: '../escape' })).rejects.toThrow(/journal name/);
    await expect(openJournal({ dir: tempDir(), compactAfterBytes: 10 })).rejects.toThrow(/needs `snapshot`/);
    await expect(openJournal({ dir: tempDir(), compactAfterBytes: 0, snapshot: () => [] })).rejects.toThrow(/positive integer/);
  });
});

describe('where a durable line is', () => {
  /** An `onDurable` that opens the file it is told of, as a reader keeping the line would, and notes what it was told. */
  function listener() {
    const told: Array<{ json: string; offset: number; generation: number; fd: number }> = [];
    const descriptors = new Map<number, number>();
    const onDurable = (line: Buffer, start: number, end: number, offset: number, path: string, generation: number) => {
      if (!descriptors.has(generation)) descriptors.set(generation, openSync(path, 'r'));
      told.push({ json: line.toString('utf8', start, end), offset, generation, fd: descriptors.get(generation)! });
    };
    /** The bytes at each told place of the file it was told of, read through the descriptor opened then. */
    const readBack = () =>
      told.map(({ json, offset, fd }) => {
        const bytes = Buffer.alloc(Buffer.byteLength(json));
        readSync(fd, bytes, 0, bytes.length, offset);
        return bytes.toString('utf8');
      });
    const close = () => {
      for (const fd of descriptors.values()) closeSync(fd);
    };
    return { told, onDurable, readBack, close };
  }

  it('tells an append that asks where its line is once durable, byte for byte, among appends that do not ask', async () => {
    const { journal } = await open();
    const seen = listener();
    // Text past ASCII before each asking line: offsets count bytes, not characters.
    const events: Event[] = Array.from({ length: 60 }, (_, id) => ({ id, text: id % 3 === 0 ? 'caf\u00e9 \u2709\ufe0f "q"' : `n${id}` }));
    await Promise.all(events.map((event) => journal.append(event, event.id % 2 === 1 ? seen.onDurable : undefined)));
    expect(journal.stats().batches).toBeLessThanOrEqual(2);
    expect(seen.told.map(({ json }) => JSON.parse(json))).toEqual(events.filter((event) => event.id % 2 === 1));
    expect(seen.readBack()).toEqual(seen.told.map(({ json }) => json));
    expect(seen.told.every(({ generation }) => generation === 0)).toBe(true);
    seen.close();
  });

  it('names the file a compaction wrote as the next generation, while the one before still reads from the replaced file', async () => {
    const { journal } = await open();
    const seen = listener();
    await journal.append({ id: 1, text: 'before' }, seen.onDurable);
    await journal.compact([{ id: 1, text: 'snapshot, longer than the line it replaces' }]);
    await journal.append({ id: 2, text: 'after' }, seen.onDurable);
    await journal.compact([]);
    await journal.append({ id: 3, text: 'after the second' }, seen.onDurable);
    expect(seen.told.map(({ generation }) => generation)).toEqual([0, 1, 2]);
    expect(seen.readBack().map((json) => JSON.parse(json))).toEqual([
      { id: 1, text: 'before' },
      { id: 2, text: 'after' },
      { id: 3, text: 'after the second' },
    ]);
    seen.close();
  });

  it('tells onCompacted of each file a compaction wrote, while it is that file, and reads its lines again from a descriptor', async () => {
    const told: Array<{ generation: number; lines: unknown[] }> = [];
    const reads: Array<Promise<void>> = [];
    const state = new Map<number, Event>();
    const onCompacted = (path: string, generation: number) => {
      // Opened now, as a reader that follows the file must: read later, after more appends and another compaction.
      const fd = openSync(path, 'r');
      const lines: unknown[] = [];
      told.push({ generation, lines });
      reads.push(
        new Promise((resolve) => setTimeout(resolve, 20))
          .then(() => readLinesOf(fd, path, (line, start, end) => lines.push(JSON.parse(line.toString('utf8', start, end))) < 3))
          .finally(() => closeSync(fd)),
      );
    };
    const { journal } = await open({ onCompacted, compactAfterBytes: 380, snapshot: () => [...state.values()] });
    await journal.compact([{ id: 1, text: 'snapshot' }, { id: 2 }, { id: 3 }, { id: 4 }]);
    // Past four times that snapshot's bytes: the next compaction is an automatic one.
    for (let n = 0; n < 30; n += 1) {
      const event = { id: n % 3, text: `version ${n}` };
      state.set(event.id, event);
      await journal.append(event);
    }
    await journal.close();
    await Promise.all(reads);
    expect(told.map(({ generation }) => generation)).toEqual([1, 2]);
    // The reader stops once it says so: three lines of the explicit snapshot, the automatic one's whole.
    expect(told[0]!.lines).toEqual([{ id: 1, text: 'snapshot' }, { id: 2 }, { id: 3 }]);
    expect(told[1]!.lines.length).toBeGreaterThanOrEqual(3);
  });

  it('resolves every append of the batch when one listener throws, and tells the others', async () => {
    const { journal } = await open();
    const seen = listener();
    const throwing = () => {
      throw new Error('a broken listener');
    };
    await Promise.all([journal.append({ id: 1 }, throwing), journal.append({ id: 2 }, seen.onDurable)]);
    expect(seen.told.map(({ json }) => json)).toEqual(['{"id":2}']);
    expect((await reopen(journal)).records).toEqual([{ id: 1 }, { id: 2 }]);
    seen.close();
  });
});

describe('recovery', () => {
  async function journalWithTwoRecords(): Promise<void> {
    const { journal } = await open();
    await journal.append({ id: 1 });
    await journal.append({ id: 2 });
    await journal.close();
  }

  it.each([
    ['half a line', '3f2a'],
    ['a whole line without its newline', encodeRecordLine({ id: 3 }).toString().trimEnd()],
    ['zeros a power loss left behind', '\0'.repeat(4096)],
  ])('drops a torn final line: %s', async (_name, tail) => {
    await journalWithTwoRecords();
    const intactSize = (await readFile(file())).length;
    await appendFile(file(), tail);
    const { journal, records, recovery } = await open();
    expect(records).toEqual([{ id: 1 }, { id: 2 }]);
    expect(recovery.tornBytesDropped).toBe(Buffer.byteLength(tail));
    expect((await readFile(file())).length).toBe(intactSize);
    await journal.append({ id: 4 });
    expect((await reopen(journal)).records).toEqual([{ id: 1 }, { id: 2 }, { id: 4 }]);
  });

  it('refuses a damaged line with records after it, saying where', async () => {
    await journalWithTwoRecords();
    const content = await readFile(file(), 'utf8');
    const [header, first, second] = content.split('\n');
    await writeFile(file(), `${header}\n${first?.replace('"id":1', '"id":9')}\n${second}\n`);
    const offset = Buffer.byteLength(`${header}\n`);
    const error = await openJournal({ dir: tempDir() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalCorruptError);
    expect(error).toMatchObject({ code: 'JOURNAL_CORRUPT', line: 2, offset, file: file() });
    expect((error as Error).message).toMatch(new RegExp(`line 2 \\(byte ${offset}\\).*--repair-journal.*keep every intact one`));
    // The failed open released its lock: the same error again, not "locked".
    await expect(openJournal({ dir: tempDir() })).rejects.toBeInstanceOf(JournalCorruptError);
  });

  it('with skipDamaged, skips damaged records in the middle, keeps every intact one and saves the skipped bytes', async () => {
    const { journal } = await open();
    for (let id = 1; id <= 5; id += 1) await journal.append({ id });
    await journal.close();
    const lines = (await readFile(file(), 'utf8')).split('\n');
    // Records 2 and 4 damaged (a flipped byte each): a crash cannot do this, a disk or an editor can.
    lines[2] = lines[2]!.replace('"id":2', '"id":7');
    lines[4] = lines[4]!.replace('"id":4', '"id":8');
    const damagedBytes = Buffer.byteLength(`${lines[2]}\n${lines[4]}\n`);
    await writeFile(file(), `${lines.join('\n')}00`);
    await expect(openJournal({ dir: tempDir() })).rejects.toBeInstanceOf(JournalCorruptError);
    const repaired = await openJournal<{ id: number }>({ dir: tempDir(), skipDamaged: true });
    expect(repaired.records).toEqual([{ id: 1 }, { id: 3 }, { id: 5 }]);
    expect(repaired.recovery).toMatchObject({
      damagedRecordsSkipped: 2,
      damagedBytesSkipped: damagedBytes,
      tornBytesDropped: 2,
      damagedFile: `${file()}.damaged`,
    });
    expect(await readFile(`${file()}.damaged`, 'utf8')).toBe(`${lines[2]}\n${lines[4]}\n`);
    await repaired.journal.append({ id: 6 });
    // Repaired on disk: the next open needs no flag.
    expect((await reopen(repaired.journal)).records).toEqual([{ id: 1 }, { id: 3 }, { id: 5 }, { id: 6 }]);
  });

  it('treats a complete last line with a bad checksum as damage, not a tear: refused, or saved aside', async () => {
    await journalWithTwoRecords();
    const line = `00000000 {"id":3}\n`;
    await appendFile(file(), line);
    const error = await openJournal({ dir: tempDir() }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JournalCorruptError);
    expect(error).toMatchObject({ line: 4 });
    const repaired = await open({ skipDamaged: true });
    expect(repaired.records).toEqual([{ id: 1 }, { id: 2 }]);
    expect(repaired.recovery).toMatchObject({ damagedRecordsSkipped: 1, damagedBytesSkipped: line.length, tornBytesDropped: 0 });
    expect(await readFile(`${file()}.damaged`, 'utf8')).toBe(line);
  });

  it('refuses a record whose checksum holds but whose shape the caller cannot apply, saying where', async () => {
    const isRecord = (value: unknown): value is Event => typeof (value as Event | null)?.id === 'number';
    await journalWithTwoRecords();
    const lines = (await readFile(file(), 'utf8')).split('\n');
    const impossible = encodeRecordLine({ id: null }).toString().trimEnd();
    await writeFile(file(), `${lines[0]}\n${lines[1]}\n${impossible}\n${lines[2]}\n`);
    const error = await openJournal({ dir: tempDir(), isRecord }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'JOURNAL_CORRUPT', line: 3, offset: Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`) });
    expect((error as Error).message).toMatch(/shape/);
    // The failed open released its lock: the same error again, not "locked".
    await expect(openJournal({ dir: tempDir(), isRecord })).rejects.toBeInstanceOf(JournalCorruptError);
    const repaired = await open({ skipDamaged: true, isRecord });
    expect(repaired.records).toEqual([{ id: 1 }, { id: 2 }]);
    expect(repaired.recovery).toMatchObject({ damagedRecordsSkipped: 1 });
    expect(await readFile(`${file()}.damaged`, 'utf8')).toBe(`${impossible}\n`);
  });

  it('counts and salvages records whose line break was damaged: each lost record counted, each intact one kept', async () => {
    const { journal } = await open();
    for (let id = 1; id <= 4; id += 1) await journal.append({ id, text: 'x'.repeat(20) });
    await journal.close();
    const lines = (await readFile(file(), 'utf8')).split('\n');
    // Damage across the boundary of records 1 and 2: the end of 1, its newline and a byte of 2's JSON.
    const one = lines[1]!;
    const two = lines[2]!;
    const merged = `${one.slice(0, -3)}##${two.slice(0, 12)}Q${two.slice(13)}`;
    // Only a newline lost between records 3 and 4: both intact, both kept.
    const joined = `${lines[3]}\u0000${lines[4]}`;
    await writeFile(file(), `${lines[0]}\n${merged}\n${joined}\n`);
    const repaired = await open({ skipDamaged: true });
    expect(repaired.records).toEqual([
      { id: 3, text: 'x'.repeat(20) },
      { id: 4, text: 'x'.repeat(20) },
    ]);
    expect(repaired.recovery.damagedRecordsSkipped).toBe(2);
    // Repaired on disk: every kept record on a line of its own.
    expect((await reopen(repaired.journal)).records.map((record) => record.id)).toEqual([3, 4]);
  });

  it.each([
    ['an empty file', '', /no complete header/],
    ['a file that is not a journal', 'hello\nworld\n', /not a Mailroom journal/],
    [
      'a newer format version, naming both versions and the file, and changing nothing',
      '{"format":"mailroom-journal","version":3}\n00000000 {"id":1}\n',
      /journal\.jsonl, line 1 \(byte 0\): the journal has format version 3, and this Mailroom reads versions 1 to 2 .*nothing in it was read or changed\. Run the Mailroom that wrote it/,
    ],
  ])('refuses %s', async (_name, content, message) => {
    await writeFile(file(), content);
    await expect(openJournal({ dir: tempDir() })).rejects.toThrow(message);
    expect(await readFile(file(), 'utf8')).toBe(content);
  });

  it('reads a file of the previous format version, and says which it was', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    await journal.close();
    const written = await readFile(file(), 'utf8');
    await writeFile(file(), written.replace('"version":2', '"version":1'));
    const reopened = await openJournal<{ id: number }>({ dir: tempDir() });
    expect([reopened.formatVersion, reopened.records]).toEqual([1, [{ id: 1 }]]);
    await reopened.journal.close();
  });
});

describe('reading a file larger than one read', () => {
  // The file is read a megabyte at a time into one buffer: lines cross reads, and one can be longer than a read.
  const MEGABYTE = 1 << 20;
  /** A file of `count` records of about `size` bytes each, written as lines directly (fast), and the records. */
  async function largeJournal(count: number, size: number): Promise<Event[]> {
    const events = Array.from({ length: count }, (_, index) => ({ id: index, text: `${index}:${'é'.repeat(size / 2)}` }));
    const header = (await readFile((await open()).recovery.file!)).toString();
    await Promise.all(openHere.splice(0).map((journal) => journal.close()));
    await writeFile(file(), header + events.map((event) => encodeRecordLine(event).toString()).join(''));
    return events;
  }

  it('replays every record in order across reads, and a record longer than a read', async () => {
    const events = await largeJournal(3000, 1000);
    const long = { id: -1, text: 'x'.repeat(3 * MEGABYTE) };
    await appendFile(file(), Buffer.concat([encodeRecordLine(long), encodeRecordLine({ id: -2 })]));
    expect((await readFile(file())).length).toBeGreaterThan(5 * MEGABYTE);
    const { journal, records, recovery } = await open();
    expect(records).toEqual([...events, long, { id: -2 }]);
    expect(recovery.tornBytesDropped).toBe(0);
    expect(journal.stats().recordsInFile).toBe(events.length + 2);
  });

  it('gives each record to onRecord as it is read, in order, and keeps none', async () => {
    const events = await largeJournal(3000, 1000);
    const seen: Event[] = [];
    const { journal, records } = await open({ onRecord: (record) => seen.push(record) });
    expect(records).toEqual([]);
    expect(seen).toEqual(events);
    expect(journal.stats().recordsInFile).toBe(events.length);
    // reopen() reads again, to the reader it is given this time.
    const again: Event[] = [];
    const reopened = await journal.reopen({ onRecord: (record) => again.push(record) });
    openHere.push(reopened.journal as Journal<unknown>);
    expect(again).toEqual(events);
    expect(seen).toHaveLength(events.length);
  });

  it('drops a torn final line that starts in an earlier read, and appends after the last good one', async () => {
    const events = await largeJournal(3000, 1000);
    const intactSize = (await readFile(file())).length;
    const torn = encodeRecordLine({ id: -1, text: 'y'.repeat(2 * MEGABYTE) })
      .toString()
      .slice(0, -100);
    await appendFile(file(), torn);
    const { journal, records, recovery } = await open();
    expect(records).toEqual(events);
    expect(recovery.tornBytesDropped).toBe(Buffer.byteLength(torn));
    expect((await readFile(file())).length).toBe(intactSize);
    await journal.append({ id: -3 });
    expect((await reopen(journal)).records).toEqual([...events, { id: -3 }]);
  });

  it('names the line and byte of damage past the first read', async () => {
    await largeJournal(3000, 1000);
    const content = await readFile(file());
    const lines = content.toString('utf8').split('\n');
    const line = 2500;
    const offset = Buffer.byteLength(lines.slice(0, line - 1).join('\n')) + 1;
    expect(offset).toBeGreaterThan(2 * MEGABYTE);
    // One byte of the record's JSON changed: its checksum no longer matches.
    content[offset + 20] = content[offset + 20] === 0x31 ? 0x32 : 0x31;
    await writeFile(file(), content);
    const seen: Event[] = [];
    const error = await open({ onRecord: (record) => seen.push(record) }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'JOURNAL_CORRUPT', line, offset });
    // What came before went to onRecord: the caller drops the state it built (the store does).
    expect(seen).toHaveLength(line - 2);
    // Repaired, every other record is kept, and the damaged one is saved aside.
    const repaired = await open({ skipDamaged: true });
    expect(repaired.records).toHaveLength(2999);
    expect(repaired.recovery).toMatchObject({ damagedRecordsSkipped: 1 });
    expect((await reopen(repaired.journal)).records).toHaveLength(2999);
  });
});

describe('compaction', () => {
  it('replaces the records with the snapshot and keeps appending after it', async () => {
    const { journal } = await open();
    for (let id = 1; id <= 5; id += 1) await journal.append({ id });
    await journal.compact([{ id: 4 }, { id: 5 }]);
    await journal.append({ id: 6 });
    expect(journal.stats()).toMatchObject({ compactions: 1, recordsInFile: 3 });
    expect(await readdir(tempDir())).toEqual(['journal.jsonl', 'journal.lock']);
    expect((await reopen(journal)).records).toEqual([{ id: 4 }, { id: 5 }, { id: 6 }]);
  });

  it('orders compaction with the appends around it', async () => {
    const { journal } = await open();
    const before = journal.append({ id: 1 });
    const compaction = journal.compact([{ id: 1, text: 'snapshot' }]);
    const after = journal.append({ id: 2 });
    await Promise.all([before, compaction, after]);
    expect((await reopen(journal)).records).toEqual([{ id: 1, text: 'snapshot' }, { id: 2 }]);
  });

  it('takes the snapshot at call time, not when the compaction runs', async () => {
    const { journal } = await open();
    const snapshot: Event[] = [{ id: 1 }];
    const compaction = journal.compact(snapshot);
    snapshot.push({ id: 2 });
    await compaction;
    expect((await reopen(journal)).records).toEqual([{ id: 1 }]);
  });

  it('rejects a snapshot JSON cannot represent and leaves the journal as it was', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    await expect(journal.compact([{ id: 2n } as unknown as Event])).rejects.toThrow(TypeError);
    await journal.append({ id: 2 });
    expect((await reopen(journal)).records).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('removes a temporary file a crash during compaction left behind', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    await journal.close();
    await writeFile(join(tempDir(), 'journal.jsonl.tmp'), '{"format":"mailroom-journal","version":1}\n0000');
    const { records } = await open();
    expect(records).toEqual([{ id: 1 }]);
    expect(await readdir(tempDir())).toEqual(['journal.jsonl', 'journal.lock']);
  });

  it('compacts automatically from the snapshot once enough records were appended', async () => {
    const state = new Map<number, Event>();
    // About ten lines: records `{"id":0,"text":"version 9"}` take 37 bytes, 38 from version 10 on.
    const options = { compactAfterBytes: 380, snapshot: () => [...state.values()] };
    const { journal } = await open(options);
    for (let n = 0; n < 30; n += 1) {
      const event = { id: n % 3, text: `version ${n}` };
      state.set(event.id, event);
      await journal.append(event);
    }
    await journal.close(); // waits for the compaction queued after the last batch
    // The first after 10 records (380 bytes); the second once 4x its 153-byte snapshot (17 lines) followed.
    expect(journal.stats()).toMatchObject({ appends: 30, compactions: 2 });
    expect(journal.stats().recordsInFile).toBeLessThan(10);
    const { records } = await open(options);
    const replayed = new Map(records.map((event) => [event.id, event]));
    expect(replayed).toEqual(state);
  });

  it('closes while an automatic compaction is still writing its snapshot, and keeps everything', async () => {
    // A snapshot of many records is written in slices: close() arrives while it is being written.
    const live = Array.from({ length: 20_000 }, (_, id) => ({ id, text: 'live' }));
    const { journal } = await open({ compactAfterBytes: 1, snapshot: () => live });
    // The state the snapshot reflects includes the append (the snapshot contract).
    live.push({ id: -1, text: 'appended' });
    await journal.append({ id: -1, text: 'appended' });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    await journal.close();
    const { records } = await open({ compactAfterBytes: 1, snapshot: () => live });
    expect(records).toHaveLength(20_001);
    expect(records).toContainEqual({ id: -1, text: 'appended' });
  });

  it('compacts again only after four times the bytes the last compaction kept were appended', async () => {
    // Counted in bytes: snapshot lines range from tens of bytes to kilobytes.
    const live = [1, 2, 3, 4, 5].map((id) => ({ id, text: 'live' }));
    const appended = { id: 100, text: 'appended' };
    const { journal } = await open({ compactAfterBytes: 1, snapshot: () => live });
    const append = async (count: number) => {
      for (let n = 0; n < count; n += 1) await journal.append(appended);
    };
    // A compaction is queued after the batch that crossed the threshold and runs on its own time:
    // wait for it rather than for a fixed delay a busy machine may not honour.
    const compactions = (count: number) => waitUntil(() => journal.stats().compactions === count, `compaction ${count}`, 20_000);
    await append(1);
    await compactions(1);
    expect(journal.stats()).toMatchObject({ compactions: 1, recordsInFile: 5 });
    const kept = journal.stats().bytesInFile;
    const needed = Math.ceil((4 * kept) / encodeRecordLine(appended).length);
    await append(needed - 1);
    // Below the threshold nothing is queued; a compaction that wrongly was would show by now.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(journal.stats().compactions).toBe(1);
    await append(1);
    await compactions(2);
    expect(journal.stats()).toMatchObject({ compactions: 2, recordsInFile: 5 });
    await journal.close();
  });

  it('writes an automatic snapshot in the background: appends made meanwhile resolve before it ends, and are kept after it', async () => {
    // A snapshot of 20,000 records takes many slices to write; appends keep resolving while it does.
    const live = Array.from({ length: 20_000 }, (_, id) => ({ id, text: 'live record '.repeat(4) }));
    let takeSnapshot = false;
    const { journal } = await open({ compactAfterBytes: 1, snapshot: () => (takeSnapshot ? live : []) });
    await journal.append({ id: -1 });
    takeSnapshot = true;
    // This append's batch crosses the threshold: the compaction is queued with the 20,000 records.
    await journal.append({ id: -2 });
    takeSnapshot = false;
    const during: number[] = [];
    for (let n = 0; n < 20; n += 1) {
      await journal.append({ id: 100_000 + n });
      during.push(journal.stats().compactions);
    }
    // Appends resolved while the snapshot was still being written (no compaction ended yet).
    expect(during[0]).toBe(0);
    await waitUntil(() => journal.stats().compactions >= 1, 'the background compaction', 20_000);
    const { records } = await reopen(journal);
    const ids = records.map((record) => (record as { id: number }).id);
    // The snapshot, then every append made since it was taken, each once.
    expect(ids.slice(0, 20_000)).toEqual(live.map((record) => record.id));
    expect(ids.slice(20_000).filter((id) => id >= 100_000)).toEqual(Array.from({ length: 20 }, (_, n) => 100_000 + n));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('reads and writes a snapshot of a few large records a slice of bytes at a time, not all in one turn of the event loop', async () => {
    // As a server's log lines are: 16 records of 300 KB, 4.8 MB in all, read as the snapshot is written.
    let readSinceTurn = 0;
    let mostInOneTurn = 0;
    function* big(): Generator<Event> {
      for (let id = 0; id < 16; id += 1) {
        readSinceTurn += 1;
        mostInOneTurn = Math.max(mostInOneTurn, readSinceTurn);
        yield { id, text: 'x'.repeat(300_000) };
      }
    }
    let turning = true;
    const turn = () => {
      readSinceTurn = 0;
      if (turning) setImmediate(turn);
    };
    turn();
    let takeSnapshot = false;
    const { journal } = await open({ compactAfterBytes: 1, snapshot: () => (takeSnapshot ? big() : []) });
    await journal.append({ id: -1 });
    takeSnapshot = true;
    await journal.append({ id: -2 });
    takeSnapshot = false;
    await waitUntil(() => journal.stats().compactions >= 1, 'the background compaction', 20_000);
    turning = false;
    // A slice is about 256 KB: one of these records each. Counted in records, all 16 went in one turn.
    expect(mostInOneTurn).toBe(1);
    expect(journal.stats().recordsInFile).toBe(16);
    const { records } = await reopen(journal);
    expect(records.map((record) => (record as Event).id)).toEqual([...Array(16).keys()]);
  });

  it('reports a failing automatic snapshot instead of throwing it at an append', async () => {
    const errors: unknown[] = [];
    const { journal } = await open({
      compactAfterBytes: 1,
      snapshot: () => {
        throw new Error('no snapshot today');
      },
      onCompactionError: (error) => errors.push(error),
    });
    await journal.append({ id: 1 });
    await journal.append({ id: 2 });
    const { records } = await reopen(journal);
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors[0]).toEqual(new Error('no snapshot today'));
    expect(records).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('I/O failures', () => {
  it('rejects the batch whose sync failed and every later append, keeping what was durable', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    vi.spyOn(await fileHandlePrototype(), 'datasync').mockRejectedValueOnce(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    const failed = await journal.append({ id: 2 }).catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(JournalUnavailableError);
    expect((failed as Error).message).toMatch(/failed \(EIO: i\/o error\); it accepts nothing more\. Reopen it/);
    expect((failed as Error).cause).toMatchObject({ code: 'EIO' });
    await expect(journal.append({ id: 3 })).rejects.toBe(failed);
    // The failed batch was truncated away, so a restart does not replay a record the caller saw fail.
    expect((await reopen(journal)).records).toEqual([{ id: 1 }]);
  });

  it('rejects only the compaction whose new file could not be synced, and keeps the old file', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    vi.spyOn(await fileHandlePrototype(), 'sync').mockRejectedValueOnce(new Error('ENOSPC: no space left on device'));
    await expect(journal.compact([{ id: 9 }])).rejects.toThrow(/ENOSPC/);
    await journal.append({ id: 2 });
    expect(await readdir(tempDir())).not.toContain('journal.jsonl.tmp');
    expect((await reopen(journal)).records).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('reopen after a failed write', () => {
  const eio = () => Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
  async function failedJournal() {
    const { journal } = await open();
    await journal.append({ id: 1 });
    vi.spyOn(await fileHandlePrototype(), 'datasync').mockRejectedValueOnce(eio());
    await expect(journal.append({ id: 2 })).rejects.toBeInstanceOf(JournalUnavailableError);
    return journal;
  }

  it('gives what is on disk and a journal that takes appends, never letting another open take the lock', async () => {
    const journal = await failedJournal();
    const reopened = await journal.reopen();
    openHere.push(reopened.journal as Journal<unknown>);
    expect(reopened.records).toEqual([{ id: 1 }]);
    await expect(openJournal<Event>({ dir: tempDir() })).rejects.toThrow(/locked/);
    // The old one handed its lock over: closing it does not let another process in.
    await journal.close();
    await expect(openJournal<Event>({ dir: tempDir() })).rejects.toThrow(/locked/);
    // Handed over: this one cannot open the file a second time beside the new one.
    await expect(journal.reopen()).rejects.toThrow(/closed or reopened already/);
    await reopened.journal.append({ id: 3 });
    await reopened.journal.close();
    expect((await open()).records).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('keeps the lock with the old journal when reopening fails, until that one is closed', async () => {
    const journal = await failedJournal();
    // The journal's path taken by a directory: reading it fails, as a failing disk's read would.
    await rename(file(), `${file()}.aside`);
    await mkdir(file());
    await expect(journal.reopen()).rejects.toThrow(/EISDIR/);
    await expect(openJournal<Event>({ dir: tempDir() })).rejects.toThrow(/locked/);
    await rm(file(), { recursive: true });
    await rename(`${file()}.aside`, file());
    // Tried again, it succeeds.
    const reopened = await journal.reopen();
    expect(reopened.records).toEqual([{ id: 1 }]);
    await reopened.journal.close();
    expect((await open()).records).toEqual([{ id: 1 }]);
  });

  it('refuses a file that is gone instead of starting an empty one, and reopens once it is back', async () => {
    const journal = await failedJournal();
    await rename(file(), `${file()}.aside`);
    await expect(journal.reopen()).rejects.toThrow(/is gone .*put the file back/);
    await expect(journal.reopen()).rejects.toBeInstanceOf(JournalUnavailableError);
    // Nothing was made in its place: putting the file back loses nothing.
    expect(await readdir(tempDir())).not.toContain('journal.jsonl');
    await rename(`${file()}.aside`, file());
    const reopened = await journal.reopen();
    expect(reopened.records).toEqual([{ id: 1 }]);
    await reopened.journal.close();
  });
});

describe('close', () => {
  it('waits for pending appends, then refuses new ones', async () => {
    const { journal } = await open();
    const pending = journal.append({ id: 1 });
    await journal.close();
    await expect(pending).resolves.toBeUndefined();
    await expect(journal.append({ id: 2 })).rejects.toBeInstanceOf(JournalUnavailableError);
    await expect(journal.compact([])).rejects.toThrow(/is closed/);
    await journal.close();
    expect((await open()).records).toEqual([{ id: 1 }]);
  });

  it('removes its lock file', async () => {
    const { journal } = await open();
    await journal.close();
    expect(await readdir(tempDir())).toEqual(['journal.jsonl']);
  });
});

describe('probe', () => {
  it('writes and syncs a file beside the journal and removes it, leaving the journal as it was', async () => {
    const { journal } = await open();
    await journal.append({ id: 1 });
    await journal.probe();
    expect((await readdir(tempDir())).sort()).toEqual(['journal.jsonl', 'journal.lock']);
    await journal.append({ id: 2 });
    const { records } = await reopen(journal);
    expect(records).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('rejects when the probe cannot be written', async () => {
    const { journal } = await open();
    // A directory where the probe file goes: opening it for writing fails, as a full disk's write would.
    await mkdir(join(tempDir(), 'journal.space-probe'));
    await expect(journal.probe()).rejects.toThrow(/EISDIR/);
  });
});
