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
// here without parsing the rest. A running server leaves a send due long from now so too, once its line
// is durable (store.ts), in the file the journal wrote it to, which a compaction may since have replaced.

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
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const scanned: StoredMessageLine = { kind: 'accepted', at: 0, id: '', seq: 0, dueAt: 0, tupleStart: 0, tupleEnd: 0 };

/**
 * Reads the line's JSON `line[start, end)` (checksum verified) when it is `{"type":"accepted","at":N,"m":[T]}`
 * or `{"type":"message.restored","message":T}` for a plain message's tuple T, and nothing else; any other
 * record (deduplicated, scheduled, several messages, a message with progress) is `undefined`, to parse.
 *
 * The tuple `[id, seq, url, body, sourceHeader, maxRetries, timeoutSeconds, created, delay, callerIp, rest?]`
 * (message-codec.ts) is read from both ends: the id and `seq` from its start, the due time from its end,
 * and the body between them not at all (walking it was most of this function's time). That relies on
 * what the encoder writes: the tuple last in either record, and `rest` always an object, so a tuple
 * ending in a string is one without it.
 */
export function scanStoredMessageLine(line: Buffer, start: number, end: number): StoredMessageLine | undefined {
  let at = 0;
  let position: number;
  let tupleEnd: number;
  if (startsWith(line, start, ACCEPTED)) {
    const time = readNumber(line, start + ACCEPTED.length, end);
    if (time === undefined || !startsWith(line, time.end, ACCEPTED_MESSAGES)) return undefined;
    at = time.value;
    position = time.end + ACCEPTED_MESSAGES.length;
    // `]}` closes the list of messages and the record.
    tupleEnd = end - 2;
    if (line[tupleEnd] !== CLOSE_BRACKET) return undefined;
    scanned.kind = 'accepted';
  } else if (startsWith(line, start, RESTORED)) {
    position = start + RESTORED.length;
    tupleEnd = end - 1;
    scanned.kind = 'restored';
  } else {
    return undefined;
  }
  // The tuple ends `"callerIp"]`: no `rest` after it, and no progress field after it in a restored one.
  if (line[end - 1] !== 0x7d || line[tupleEnd - 1] !== CLOSE_BRACKET || line[tupleEnd - 2] !== QUOTE || line[position] !== OPEN_BRACKET) {
    return undefined;
  }
  const idEnd = skipPlainString(line, position + 1, tupleEnd);
  const seq = idEnd !== undefined && line[idEnd] === COMMA ? readNumber(line, idEnd + 1, tupleEnd) : undefined;
  if (seq === undefined || line[seq.end] !== COMMA) return undefined;
  const seqValue = seq.value;
  const headEnd = seq.end;
  // From the end: `,created,delay,"callerIp"]`. The last quote before the closing one opens the string
  // when a comma is before it (an escaped one has a backslash).
  const ipStart = line.lastIndexOf(QUOTE, tupleEnd - 3);
  if (ipStart <= headEnd || line[ipStart - 1] !== COMMA) return undefined;
  const delay = readNumberBefore(line, ipStart - 1, headEnd);
  if (delay === undefined) return undefined;
  const { value: delayValue, end: delayStart } = delay;
  const created = readNumberBefore(line, delayStart - 1, headEnd);
  if (created === undefined) return undefined;
  // One message: the next of a batch would start `],["`, which no string holds (its quotes are escaped).
  if (scanned.kind === 'accepted') {
    for (
      let bracket = line.indexOf(CLOSE_BRACKET, headEnd);
      bracket !== -1 && bracket < ipStart;
      bracket = line.indexOf(CLOSE_BRACKET, bracket + 1)
    ) {
      if (line[bracket + 1] === COMMA && line[bracket + 2] === OPEN_BRACKET && line[bracket + 3] === QUOTE) return undefined;
    }
  }
  scanned.id = line.toString('latin1', position + 2, idEnd! - 1);
  scanned.seq = seqValue;
  scanned.dueAt = at + created.value + delayValue;
  scanned.at = at;
  scanned.tupleStart = position;
  scanned.tupleEnd = tupleEnd;
  return scanned;
}

function startsWith(line: Buffer, start: number, prefix: Buffer): boolean {
  for (let index = 0; index < prefix.length; index++) if (line[start + index] !== prefix[index]) return false;
  return true;
}

/** The end of the JSON string at `position` (after its closing quote) when it is printable ASCII without an escape: an id, read without decoding. */
function skipPlainString(line: Buffer, position: number, end: number): number | undefined {
  if (line[position] !== QUOTE) return undefined;
  for (let index = position + 1; index < end; index++) {
    const byte = line[index]!;
    if (byte === QUOTE) return index + 1;
    if (byte > 0x7e || byte < 0x20 || byte === BACKSLASH) return undefined;
  }
  return undefined;
}

const numberBefore = { value: 0, end: 0 };

/**
 * The JSON number that ends at `end` after a comma, found walking back no further than `floor`: its
 * value, and in `end` where it starts. Reused: read it at once.
 */
function readNumberBefore(line: Buffer, end: number, floor: number): typeof numberBefore | undefined {
  let start = end;
  while (start > floor + 1 && isNumberByte(line[start - 1]!)) start -= 1;
  if (start === end || line[start - 1] !== COMMA) return undefined;
  const read = readNumber(line, start, end);
  if (read === undefined || read.end !== end) return undefined;
  numberBefore.value = read.value;
  numberBefore.end = start;
  return numberBefore;
}

/** A byte a JSON number can have: a digit, a sign, a point or an exponent. */
const isNumberByte = (byte: number): boolean =>
  (byte >= 0x30 && byte <= 0x39) || byte === 0x2d || byte === 0x2b || byte === 0x2e || byte === 0x65 || byte === 0x45;

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

  constructor(
    readonly file: string,
    readonly generation: number,
  ) {
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

/** Where a journal line is: it starts at `start` of the bytes read, at `offset` in the `generation`-th file `file` of the journal. */
export interface StoredLine {
  start: number;
  offset: number;
  file: string;
  generation: number;
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
  /** While a journal is read or written: the file its messages are kept in. */
  private reading: number | undefined;

  /**
   * Keeps the message `scanned` for `slot`: its line starts at `line.start` of what was read, at
   * `line.offset` in `line.file`, the journal's `line.generation`-th file (one a compaction replaced
   * has the same name).
   */
  keep(slot: number, scanned: StoredMessageLine, line: StoredLine): void {
    let index = this.reading;
    const current = index === undefined ? undefined : this.files[index]!;
    if (index === undefined || current?.file !== line.file || current.generation !== line.generation) {
      // Opened before anything changes: a file that cannot be opened leaves the slot as it was.
      const opened = new JournalFile(line.file, line.generation);
      index = this.files.length;
      this.reading = index;
      this.files.push(opened);
      current?.closeIfUnused();
    }
    if (slot >= this.fileOf.length) this.grow(Math.max(1024, this.fileOf.length * 2, slot + 1));
    this.release(slot);
    this.fileOf[slot] = index;
    this.offsets[slot] = line.offset + (scanned.tupleStart - line.start);
    this.lengths[slot] = scanned.tupleEnd - scanned.tupleStart;
    this.times[slot] = scanned.at;
    this.files[index]!.kept += 1;
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
