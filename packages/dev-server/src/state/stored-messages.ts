import { closeSync, openSync, readSync } from 'node:fs';
import { JournalUnavailableError } from '../journal';
import { decodeMessage } from './message-codec';
import type { MessageRecord } from './records';

// Pending messages kept as where their journal lines are, read from the file when something needs
// them. A restart with 100,000 pending messages then parses none of them and holds none in memory:
// JSON.parse, collecting what it made, and the memory of it were most of a replay (docs/benchmarks.md,
// the scale section). Only a plain message is kept so: its journal tuple without the object of other
// fields (no queue, flow control, workflow, callback, origin), the form a burst of sends and their
// snapshot take. All a replay and the scheduler read of it is then in the tuple's first fields, read
// here without parsing the rest.

/** One journal line that is one plain message, as {@link scanStoredMessageLine} read it. Reused: copy what you keep. */
export interface StoredMessageLine {
  /** `accepted` (a send; `at` is its time) or `restored` (a snapshot's pending message, as it was accepted). */
  kind: 'accepted' | 'restored';
  at: number;
  id: string;
  seq: number;
  /** `notBefore`, which is also the first attempt's due time for a message never attempted. */
  dueAt: number;
  /** The message's tuple: `line[tupleStart, tupleEnd)`. */
  tupleStart: number;
  tupleEnd: number;
}

const ACCEPTED = Buffer.from('{"type":"accepted","at":');
const ACCEPTED_MESSAGES = Buffer.from(',"m":[');
const RESTORED = Buffer.from('{"type":"message.restored","message":');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const scanned: StoredMessageLine = { kind: 'accepted', at: 0, id: '', seq: 0, dueAt: 0, tupleStart: 0, tupleEnd: 0 };

/**
 * Reads the line's JSON `line[start, end)` (checksum verified) when it is `{"type":"accepted","at":N,"m":[T]}`
 * or `{"type":"message.restored","message":T}` for a plain message's tuple T, and nothing else; any other
 * record (deduplicated, scheduled, several messages, a message with progress) is `undefined`, to parse.
 */
export function scanStoredMessageLine(line: Buffer, start: number, end: number): StoredMessageLine | undefined {
  let at = 0;
  let position: number;
  if (startsWith(line, start, ACCEPTED)) {
    const time = readNumber(line, start + ACCEPTED.length, end);
    if (time === undefined || !startsWith(line, time.end, ACCEPTED_MESSAGES)) return undefined;
    at = time.value;
    position = time.end + ACCEPTED_MESSAGES.length;
    scanned.kind = 'accepted';
  } else if (startsWith(line, start, RESTORED)) {
    position = start + RESTORED.length;
    scanned.kind = 'restored';
  } else {
    return undefined;
  }
  const tupleEnd = scanTuple(line, position, end, at);
  if (tupleEnd === undefined) return undefined;
  // What closes the record: `]}` after an accepted one's only message, `}` after a restored one's.
  const closing = scanned.kind === 'accepted' ? 2 : 1;
  if (tupleEnd + closing !== end || (closing === 2 && line[tupleEnd] !== 0x5d) || line[end - 1] !== 0x7d) return undefined;
  scanned.at = at;
  scanned.tupleStart = position;
  scanned.tupleEnd = tupleEnd;
  return scanned;
}

/**
 * Reads the tuple `[id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp]`
 * (message-codec.ts) at `position` into `scanned`, and returns where it ends; `undefined` for any other value.
 */
function scanTuple(line: Buffer, position: number, end: number, at: number): number | undefined {
  if (line[position] !== 0x5b) return undefined;
  const idEnd = skipString(line, position + 1, end, true);
  if (idEnd === undefined) return undefined;
  const seq = readNumber(line, idEnd + 1, end);
  if (line[idEnd] !== COMMA || seq === undefined || line[seq.end] !== COMMA) return undefined;
  const seqValue = seq.value;
  const urlEnd = skipString(line, seq.end + 1, end, false);
  const bodyEnd = urlEnd !== undefined && line[urlEnd] === COMMA ? skipString(line, urlEnd + 1, end, false) : undefined;
  const headersEnd = bodyEnd !== undefined && line[bodyEnd] === COMMA ? skipObject(line, bodyEnd + 1, end) : undefined;
  if (headersEnd === undefined) return undefined;
  // maxRetries and timeoutSeconds, read to be skipped; then created and delay, which give the due time.
  const maxRetries = line[headersEnd] === COMMA ? readNumber(line, headersEnd + 1, end) : undefined;
  const timeout = maxRetries && line[maxRetries.end] === COMMA ? readNumber(line, maxRetries.end + 1, end) : undefined;
  const created = timeout && line[timeout.end] === COMMA ? readNumber(line, timeout.end + 1, end) : undefined;
  if (created === undefined) return undefined;
  const createdAt = at + created.value;
  const delay = line[created.end] === COMMA ? readNumber(line, created.end + 1, end) : undefined;
  if (delay === undefined) return undefined;
  const next = delay.end;
  const ipEnd = line[next] === COMMA ? skipString(line, next + 1, end, false) : undefined;
  // A tenth field closes the tuple: an eleventh (the message's other fields) is not a plain message.
  if (ipEnd === undefined || line[ipEnd] !== 0x5d) return undefined;
  scanned.id = line.toString('latin1', position + 2, idEnd - 1);
  scanned.seq = seqValue;
  scanned.dueAt = createdAt + delay.value;
  return ipEnd + 1;
}

function startsWith(line: Buffer, start: number, prefix: Buffer): boolean {
  for (let index = 0; index < prefix.length; index++) if (line[start + index] !== prefix[index]) return false;
  return true;
}

/**
 * The end of the JSON string at `position` (after its closing quote). `plain`: it must have no escape
 * and no byte past ASCII, so that its bytes are its characters (an id, read without decoding).
 */
function skipString(line: Buffer, position: number, end: number, plain: boolean): number | undefined {
  if (line[position] !== QUOTE) return undefined;
  // From quote to quote (memchr, not a byte at a time: a body is most of a line); one after an odd run
  // of backslashes is escaped, and the string goes on.
  for (let quote = line.indexOf(QUOTE, position + 1); quote !== -1 && quote < end; quote = line.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (line[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 1) continue;
    if (plain) {
      for (let index = position + 1; index < quote; index++) if (line[index]! > 0x7e || line[index] === BACKSLASH) return undefined;
    }
    return quote + 1;
  }
  return undefined;
}

/** The end of the JSON object at `position`, its strings skipped whole (a brace inside one is text). */
function skipObject(line: Buffer, position: number, end: number): number | undefined {
  if (line[position] !== 0x7b) return undefined;
  let depth = 0;
  for (let index = position; index < end; index++) {
    const byte = line[index]!;
    if (byte === QUOTE) {
      const after = skipString(line, index, end, false);
      if (after === undefined) return undefined;
      index = after - 1;
    } else if (byte === 0x7b || byte === 0x5b) {
      depth += 1;
    } else if ((byte === 0x7d || byte === 0x5d) && --depth === 0) {
      return index + 1;
    }
  }
  return undefined;
}

const number = { value: 0, end: 0 };

/** The JSON number at `position` (an integer read by hand; any other form by `Number`). Reused: read it at once. */
function readNumber(line: Buffer, position: number, end: number): typeof number | undefined {
  let index = position;
  let integer = true;
  while (index < end) {
    const byte = line[index]!;
    if (byte >= 0x30 && byte <= 0x39) index += 1;
    else if (byte === 0x2d && index === position) index += 1;
    else if (byte === 0x2e || byte === 0x65 || byte === 0x45 || byte === 0x2b || byte === 0x2d) {
      integer = false;
      index += 1;
    } else break;
  }
  if (index === position) return undefined;
  let value: number;
  if (integer && index - position < 16) {
    const negative = line[position] === 0x2d;
    value = 0;
    for (let digit = negative ? position + 1 : position; digit < index; digit++) value = value * 10 + (line[digit]! - 0x30);
    if (negative) value = -value;
    if (negative && index === position + 1) return undefined;
  } else {
    value = Number(line.toString('latin1', position, index));
  }
  if (!Number.isFinite(value)) return undefined;
  number.value = value;
  number.end = index;
  return number;
}

/** Bytes read from a journal file at a time, for the messages left in it. */
const BLOCK_BYTES = 64 * 1024;

/** A journal file messages are read back from: open while one of them is kept, or a snapshot will read one. */
class JournalFile {
  /** Messages kept in it, and snapshots that will read from it. */
  kept = 0;
  readers = 0;
  private fd: number | undefined;
  /** The bytes last read, from `blockStart`. */
  private block = Buffer.allocUnsafeSlow(BLOCK_BYTES);
  private blockStart = 0;
  private blockLength = 0;

  constructor(readonly file: string) {
    // Opened now, while it is the file the journal was read from: a compaction later renames another
    // over it, and this descriptor keeps the bytes the messages are in.
    this.fd = openSync(file, 'r');
  }

  read(offset: number, length: number, at: number): MessageRecord {
    if (this.fd === undefined) throw new JournalUnavailableError(`${this.file} was closed while a message was still kept in it.`);
    // A block at a time: messages are mostly read in the order they are in the file (a list or a bulk
    // action walks them all), and a read per message was most of such a walk.
    if (offset < this.blockStart || offset + length > this.blockStart + this.blockLength) {
      if (this.block.length < length) this.block = Buffer.allocUnsafeSlow(length);
      this.blockStart = offset;
      this.blockLength = readSync(this.fd, this.block, 0, this.block.length, offset);
      if (this.blockLength < length)
        throw new JournalUnavailableError(
          `${this.file} is shorter than a message kept in it (${this.blockLength} of ${length} bytes at ${offset}).`,
        );
    }
    const start = offset - this.blockStart;
    return decodeMessage(JSON.parse(this.block.toString('utf8', start, start + length)), at);
  }

  /** Closes the file once nothing is kept in it and no snapshot will read it. */
  closeIfUnused(): void {
    if (this.kept > 0 || this.readers > 0 || this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * The messages left in the journal, by the slot of their pending message: where each one's tuple is in the
 * journal file it was read from. Nothing of the message is held in memory until it is read.
 */
export class StoredMessages {
  private files: JournalFile[] = [];
  /** Per slot: its file (-1: none), the tuple's offset and length there, and the time it is relative to. */
  private fileOf = new Int32Array(0);
  private offsets = new Float64Array(0);
  private lengths = new Int32Array(0);
  private times = new Float64Array(0);
  /** While a journal is read: the file its messages are kept in. */
  private reading: number | undefined;

  /** Keeps the message `scanned` for `slot`: its line starts at `line.start` of what was read, at `line.offset` in `line.file`. */
  keep(slot: number, scanned: StoredMessageLine, line: { start: number; offset: number; file: string }): void {
    if (slot >= this.fileOf.length) this.grow(Math.max(1024, this.fileOf.length * 2, slot + 1));
    this.release(slot);
    if (this.reading === undefined || this.files[this.reading]!.file !== line.file) {
      this.reading = this.files.length;
      this.files.push(new JournalFile(line.file));
    }
    this.fileOf[slot] = this.reading;
    this.offsets[slot] = line.offset + (scanned.tupleStart - line.start);
    this.lengths[slot] = scanned.tupleEnd - scanned.tupleStart;
    this.times[slot] = scanned.at;
    this.files[this.reading]!.kept += 1;
  }

  /** The journal was read to its end: a file none of its messages is kept from is closed. */
  doneReading(): void {
    if (this.reading !== undefined) this.files[this.reading]!.closeIfUnused();
    this.reading = undefined;
  }

  /** The message in `slot` (left in the journal), read from its file. */
  read(slot: number): MessageRecord {
    return this.files[this.fileOf[slot]!]!.read(this.offsets[slot]!, this.lengths[slot]!, this.times[slot]!);
  }

  /**
   * Reads the message in `slot` (left in the journal) when called, once, even after the slot has let go of
   * it: its file stays open until then. A snapshot taken now and written later reads it so.
   */
  reader(slot: number): () => MessageRecord {
    const file = this.files[this.fileOf[slot]!]!;
    const offset = this.offsets[slot]!;
    const length = this.lengths[slot]!;
    const at = this.times[slot]!;
    file.readers += 1;
    let done = false;
    return () => {
      try {
        return file.read(offset, length, at);
      } finally {
        if (!done) {
          done = true;
          file.readers -= 1;
          if (this.reading === undefined || this.files[this.reading] !== file) file.closeIfUnused();
        }
      }
    };
  }

  /** Forgets where the message in `slot` was (read, replaced or gone). */
  release(slot: number): void {
    if (slot >= this.fileOf.length) return;
    const index = this.fileOf[slot]!;
    if (index < 0) return;
    this.fileOf[slot] = -1;
    const file = this.files[index]!;
    file.kept -= 1;
    // The file being read stays open: the next message kept is in it.
    if (index !== this.reading) file.closeIfUnused();
  }

  /** Closes every file (their messages are no longer wanted: the state they are in was dropped). */
  close(): void {
    for (const file of this.files) {
      file.kept = 0;
      file.readers = 0;
      file.closeIfUnused();
    }
    this.fileOf.fill(-1);
    this.reading = undefined;
  }

  private grow(capacity: number): void {
    const fileOf = new Int32Array(capacity).fill(-1);
    this.fileOf = grown(this.fileOf, fileOf);
    this.offsets = grown(this.offsets, new Float64Array(capacity));
    this.lengths = grown(this.lengths, new Int32Array(capacity));
    this.times = grown(this.times, new Float64Array(capacity));
  }
}

/** `to` (a larger array of per-slot values) with `from`'s values at its start. */
export function grown<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
