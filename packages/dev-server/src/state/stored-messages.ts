import { closeSync, openSync, readSync } from 'node:fs';
import { JournalUnavailableError, readLinesOf } from '../journal';
import { decodeMessage } from './message-codec';
import type { MessageRecord } from './records';
import { scanPlainMessages, type StoredMessageLine } from './stored-message-lines';

// Pending messages kept as where their journal lines are, read from the file when something needs
// them. A restart with 100,000 pending messages then parses none of them and holds none in memory:
// JSON.parse, collecting what it made, and the memory of it were most of a replay (docs/benchmarks.md,
// the scale section). Only a plain message is kept so (stored-message-lines.ts says which lines hold
// one). A running server leaves a send due long from now so too, once its line is durable (store.ts),
// in the file the journal wrote it to. A compaction replaces that file; the message is then moved to
// its line in the new one ({@link followCompactions}), and the old file let go.

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
    // Opened before anything changes: a file that cannot be opened leaves the slot as it was.
    const index = this.follow(line.file, line.generation);
    if (slot >= this.fileOf.length) this.grow(Math.max(1024, this.fileOf.length * 2, slot + 1));
    this.release(slot);
    this.fileOf[slot] = index;
    this.offsets[slot] = line.offset + (scanned.tupleStart - line.start);
    this.lengths[slot] = scanned.tupleEnd - scanned.tupleStart;
    this.times[slot] = scanned.at;
    this.files[index]!.kept += 1;
  }

  /**
   * The index of the journal's `generation`-th file `file`, the one messages are kept in from now on:
   * opened now unless it is the one already. Call it while `file` is that file.
   */
  follow(file: string, generation: number): number {
    const current = this.reading === undefined ? undefined : this.files[this.reading]!;
    if (this.reading !== undefined && current?.file === file && current.generation === generation) return this.reading;
    const opened = new JournalFile(file, generation);
    this.reading = this.files.length;
    this.files.push(opened);
    current?.closeIfUnused();
    return this.reading;
  }

  /** The generation of the file the message in `slot` is kept in; -1 when it is not kept in one. */
  generationOf(slot: number): number {
    const index = slot < this.fileOf.length ? this.fileOf[slot]! : -1;
    return index < 0 ? -1 : this.files[index]!.generation;
  }

  /** Whether a message is kept in a file older than the journal's `generation`-th. */
  keepsOlderThan(generation: number): boolean {
    return this.files.some((file) => file.kept > 0 && file.generation < generation);
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

/** What follows a compaction's new file: the pending messages (pending-messages.ts). */
interface CompactionFollower {
  follow(file: string, generation: number): boolean;
  moveStored(scanned: StoredMessageLine, line: StoredLine): void;
}

/**
 * After each compaction of the journal, the messages left in its older files are found in the new one
 * (the snapshot restores each, or they are in the lines copied after it) and moved there, in the
 * background: each older file closes, and its bytes leave the disk, once none is left in it.
 * `pendingNow` is the pending set of the open store (`undefined` once closed); the moving stops when
 * that changes (closed, or replaced by a reload) or a newer compaction follows.
 */
export function followCompactions(pendingNow: () => CompactionFollower | undefined): (file: string, generation: number) => void {
  let newest = -1;
  return (file, generation) => {
    newest = generation;
    const pending = pendingNow();
    let fd: number;
    try {
      if (!pending?.follow(file, generation)) return;
      fd = openSync(file, 'r');
    } catch {
      // Not opened (no descriptor left): the messages stay where they are, still readable there.
      return;
    }
    const where = { start: 0, offset: 0, file, generation };
    const move = (scanned: StoredMessageLine) => pending.moveStored(scanned, where);
    void readLinesOf(fd, file, (line, start, end, offset) => {
      if (pendingNow() !== pending || newest !== generation) return false;
      where.start = start;
      where.offset = offset;
      scanPlainMessages(line, start, end, move);
      return true;
    })
      .catch(() => undefined)
      .finally(() => closeSync(fd));
  };
}
