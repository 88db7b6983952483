import { fstat, read } from 'node:fs';
import { crc32 } from 'node:zlib';
import { JournalCorruptError } from './types';

/**
 * One record per line: `<crc32 of the JSON, 8 lowercase hex digits> <JSON>\n`.
 *
 * JSON.stringify escapes every newline inside strings, so `\n` only ever ends a record, and the
 * checksum lets replay tell a complete line from one torn by a crash (or any other damage).
 */
const CHECKSUM_LENGTH = 8;
const SPACE = 0x20;
/** Where a line's JSON starts in it: after its checksum and a space. */
export const JSON_START_IN_LINE = CHECKSUM_LENGTH + 1;

/** Sentinel for a line that does not decode; distinct from any JSON value. */
const INVALID_LINE: unique symbol = Symbol('invalid journal line');

/**
 * Encodes one record as a complete line, the bytes written; throws a `TypeError` for what JSON cannot
 * represent. Encoded once, into the buffer written: a checksum over the string encoded it again, and
 * joining lines as strings copied a batch's 1,000 sends once more, on the collector's heap.
 */
export function encodeRecordLine(record: unknown): Buffer {
  const json = toJson(record);
  const length = Buffer.byteLength(json, 'utf8');
  const line = Buffer.allocUnsafe(JSON_START_IN_LINE + length + 1);
  line.write(json, JSON_START_IN_LINE, length, 'utf8');
  const checksum = crc32(line.subarray(JSON_START_IN_LINE, JSON_START_IN_LINE + length));
  line.write(checksum.toString(16).padStart(CHECKSUM_LENGTH, '0'), 0, CHECKSUM_LENGTH, 'latin1');
  line[CHECKSUM_LENGTH] = SPACE;
  line[line.length - 1] = NEWLINE;
  return line;
}

/** The checksum written in front of a line, or -1 when those 8 bytes are not lowercase hex digits. */
function writtenChecksum(content: Buffer, start: number): number {
  let value = 0;
  for (let index = start; index < start + CHECKSUM_LENGTH; index++) {
    const byte = content[index]!;
    // 0-9, a-f: read by hand, as a replay reads every line (a string and a regex per line cost more).
    const digit = byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** Whether the line `content[start, end)` (without its `\n`) is intact: its checksum is its JSON's. */
function intactLine(content: Buffer, start: number, end: number): boolean {
  if (end - start <= CHECKSUM_LENGTH + 1 || content[start + CHECKSUM_LENGTH] !== SPACE) return false;
  const checksum = writtenChecksum(content, start);
  const json = start + CHECKSUM_LENGTH + 1;
  // A plain view: a Buffer's subarray costs twice as much to make, once per line of a replay.
  return checksum >= 0 && checksum === crc32(new Uint8Array(content.buffer, content.byteOffset + json, end - json));
}

/** Decodes the line `content[start, end)` (without its `\n`; `intact`: checked already), or returns {@link INVALID_LINE}. */
function decodeRecordLine(content: Buffer, start: number, end: number, intact = intactLine(content, start, end)): unknown {
  if (!intact) return INVALID_LINE;
  try {
    return JSON.parse(content.toString('utf8', start + CHECKSUM_LENGTH + 1, end));
  } catch {
    // A matching checksum over bad JSON means the writer was broken, not the disk; still unusable.
    return INVALID_LINE;
  }
}

function toJson(record: unknown): string {
  let json: string | undefined;
  try {
    json = JSON.stringify(record);
  } catch (error) {
    throw new TypeError(`A journal record must be JSON-serialisable: ${(error as Error).message}`, { cause: error });
  }
  // undefined, functions and symbols stringify to undefined: nothing could be replayed.
  if (json === undefined) throw new TypeError(`A journal record must be JSON-serialisable, got ${typeof record}.`);
  return json;
}

/**
 * The first line of every journal file. A version lets a later format refuse old files clearly (or
 * migrate them) instead of misreading them. It carries no checksum: it is written once, atomically,
 * with the file.
 */
const JOURNAL_FORMAT = 'mailroom-journal';
/** 2: a `batch` record holds several (one action, one line). A version 1 file's records are a subset: it is read, then rewritten as 2. */
export const JOURNAL_VERSION = 2;
const OLDEST_READABLE_VERSION = 1;
export const JOURNAL_HEADER_LINE = `${JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION })}\n`;

/** Why a first line is not a header this code reads, or its format version when it is one. */
function readHeader(line: string): string | number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return 'this is not a Mailroom journal (the first line is not its header)';
  }
  if (typeof parsed !== 'object' || parsed === null || (parsed as { format?: unknown }).format !== JOURNAL_FORMAT) {
    return 'this is not a Mailroom journal (the first line is not its header)';
  }
  const version = (parsed as { version?: unknown }).version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < OLDEST_READABLE_VERSION || version > JOURNAL_VERSION) {
    return (
      `the journal has format version ${String(version)}, and this Mailroom reads versions ${OLDEST_READABLE_VERSION} to ${JOURNAL_VERSION} ` +
      '(a newer Mailroom wrote it); nothing in it was read or changed'
    );
  }
  return version;
}

export const NEWLINE = 0x0a;

/** A journal file's content, read back. */
export interface DecodedJournal<R> {
  /** The records, oldest first, unless they went to `onRecord` as they were read. */
  records: R[];
  /** Records read, wherever they went. */
  count: number;
  /** The file's format version (its header's). */
  version: number;
  /** Bytes up to and including the last good line: where the next append goes. */
  validLength: number;
  /** Bytes after `validLength`: a final line torn by a crash (it lacks its `\n`). */
  tornBytes: number;
  /** Damaged records skipped (only with `skipDamaged`), each with its bytes. */
  damaged: Array<{ line: number; offset: number; bytes: Buffer }>;
  /** With damaged records skipped: the file as it should be, every intact line in order. */
  repaired?: Buffer;
}

/** What {@link readJournal} reads from: a `FileHandle`, or a descriptor ({@link readLinesOf}). */
interface JournalSource {
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  stat(): Promise<{ size: number }>;
}

/** How {@link readJournal} reads. */
export interface ReadJournalOptions<R> {
  skipDamaged: boolean;
  isRecord: (value: unknown) => value is R;
  /** Given, each record goes to it as soon as its line is read, and none is kept: see `OpenJournalOptions.onRecord`. */
  onRecord: ((record: R) => void) | undefined;
  /** Given, each intact line's JSON goes to it first: see `OpenJournalOptions.onRecordBytes`. */
  onRecordBytes?: ((line: Buffer, start: number, end: number, offset: number, file: string) => boolean) | undefined;
}

// Where a record starts inside a line: its checksum, a space, and an object's first key. JSON.stringify
// writes no space before a `{`, and a `"` inside a string is always escaped, so this can only be the
// start of another record whose line break was damaged.
const RECORD_START = /[0-9a-f]{8} \{"/g;

/**
 * Bytes read at a time, into one buffer of two such chunks reused to the end (grown for a longer line):
 * a buffer the size of a 40 MB journal cost 0.1 s of page faults to fill, and stayed for the collector.
 */
const READ_CHUNK = 1 << 20;

/**
 * Reads a whole journal file from `handle`, a line at a time.
 *
 * Only a final line without its `\n` is a crash's doing: appends are written in order and each one
 * resolves only after its sync, and a line's `\n` is written with it. That line is reported as torn,
 * to drop. Anything else that does not decode (a bad checksum, bad JSON, a shape `isRecord` refuses,
 * a complete last line included) is damage a crash cannot cause, so this throws a
 * {@link JournalCorruptError} naming the line and byte rather than silently losing records, unless
 * `skipDamaged` asks to skip it. A damaged line that holds the start of another record (its line
 * break was hit) is split there: an intact record after the damage is kept, and each record lost is
 * counted. Records read before a damaged line may have gone to `onRecord` already.
 */
export async function readJournal<R>(handle: JournalSource, file: string, options: ReadJournalOptions<R>): Promise<DecodedJournal<R>> {
  const { skipDamaged, isRecord, onRecord, onRecordBytes } = options;
  // A repair keeps pieces of the file to write it again: the file is then read whole into one buffer
  // that is never reused, so those pieces stay valid.
  let buffer = Buffer.allocUnsafeSlow(skipDamaged ? (await handle.stat()).size + 1 : 2 * READ_CHUNK);
  /** The file offset of `buffer[0]`, the bytes of `buffer` read so far, and where the next line starts in it. */
  let bufferStart = 0;
  let filled = 0;
  let offset = 0;
  let version: number | undefined;
  const records: R[] = [];
  let count = 0;
  const damaged: DecodedJournal<R>['damaged'] = [];
  // Set once a damaged line is met: the intact lines, for the file to be rewritten from (even when
  // every damaged line was salvaged). Until then the intact lines are simply everything read so far.
  let kept: Buffer[] | undefined;
  const take = (record: R): void => {
    count += 1;
    if (onRecord) onRecord(record);
    else records.push(record);
  };
  const decode = (bytes: Buffer, start = 0, end = bytes.length, intact?: boolean): R | typeof INVALID_LINE => {
    const record = decodeRecordLine(bytes, start, end, intact);
    return record !== INVALID_LINE && isRecord(record) ? record : INVALID_LINE;
  };
  for (let line = 1; ; ) {
    // The next bytes are read into the buffer past these while these lines are decoded: the read waits
    // on the thread pool, the decoding runs here (a read at a time left a replay idle for a tenth of it).
    const ahead = skipDamaged ? undefined : readAhead();
    const content = buffer.subarray(0, filled);
    for (let end = content.indexOf(NEWLINE, offset); end !== -1; end = content.indexOf(NEWLINE, offset), line += 1) {
      if (version === undefined) version = decodeHeader(content.toString('utf8', offset, end), file);
      else if (!takeLine(content, offset, end)) {
        kept ??= [content.subarray(0, offset)];
        salvageLine(content, offset, end, line);
      }
      offset = end + 1;
    }
    if (skipDamaged && filled === buffer.length) {
      // The file grew since it was measured, which the lock rules out: read it as it is now.
      buffer = Buffer.concat([buffer, Buffer.allocUnsafeSlow(buffer.length)]);
    }
    const { bytesRead } = await (ahead ?? handle.read(buffer, filled, buffer.length - filled, bufferStart + filled));
    if (bytesRead > 0) {
      filled += bytesRead;
      continue;
    }
    // The header is written atomically with the file, so a missing or torn header is not a crash.
    if (version === undefined) decodeHeader(undefined, file);
    const validLength = bufferStart + offset;
    const tornBytes = filled - offset;
    if (!kept) return { records, count, version: version!, validLength, tornBytes, damaged };
    const repaired = Buffer.concat(kept);
    return { records, count, version: version!, validLength: repaired.length, tornBytes, damaged, repaired };
  }

  /**
   * Starts reading the next chunk past `filled`: first the lines done with are dropped (the line under
   * way moved to the front) when there is no room for it, and the buffer grown when that line fills it.
   */
  function readAhead(): Promise<{ bytesRead: number }> {
    if (buffer.length - filled < READ_CHUNK) {
      buffer.copy(buffer, 0, offset, filled);
      bufferStart += offset;
      filled -= offset;
      offset = 0;
      if (buffer.length - filled < READ_CHUNK) buffer = Buffer.concat([buffer.subarray(0, filled), Buffer.allocUnsafeSlow(buffer.length)]);
    }
    const read = handle.read(buffer, filled, READ_CHUNK, bufferStart + filled);
    // A damaged line refused meanwhile throws before this is awaited: its outcome then goes nowhere.
    read.catch(() => {});
    return read;
  }

  /** Takes the record of an intact line; false for a damaged one. */
  function takeLine(content: Buffer, start: number, end: number): boolean {
    const intact = intactLine(content, start, end);
    const json = start + CHECKSUM_LENGTH + 1;
    if (intact && onRecordBytes?.(content, json, end, bufferStart + json, file)) {
      count += 1;
      kept?.push(content.subarray(start, end + 1));
      return true;
    }
    const record = decode(content, start, end, intact);
    if (record === INVALID_LINE) return false;
    take(record);
    kept?.push(content.subarray(start, end + 1));
    return true;
  }

  /** Skips a damaged line (refused without `skipDamaged`), keeping the intact records inside it. */
  function salvageLine(content: Buffer, start: number, end: number, line: number): void {
    if (!skipDamaged) {
      throw new JournalCorruptError({
        file,
        line,
        offset: bufferStart + start,
        problem: 'the record is damaged (bad checksum, JSON or shape), which a crash cannot cause',
        hint:
          'Start with --repair-journal (startDevServer({ repairJournal: true })) to skip damaged records and keep every ' +
          `intact one (the skipped bytes are saved to ${file}.damaged), or move the file aside to start empty.`,
      });
    }
    const parts = splitAtRecordStarts(content, start, end);
    for (const part of parts) {
      const salvaged = parts.length === 1 ? undefined : salvage(content.subarray(part.start, part.end), part.end !== end, decode);
      if (salvaged === undefined) {
        damaged.push({ line, offset: part.start, bytes: content.subarray(part.start, part.end === end ? end + 1 : part.end) });
      } else {
        take(salvaged.record);
        kept!.push(Buffer.concat([salvaged.bytes, Buffer.from([NEWLINE])]));
      }
    }
  }
}

/**
 * A record out of one part of a damaged line: the part as it is, or, when another record follows it,
 * without its last byte (where the damaged line break was).
 */
function salvage<R>(
  bytes: Buffer,
  followed: boolean,
  decode: (bytes: Buffer) => R | typeof INVALID_LINE,
): { record: R; bytes: Buffer } | undefined {
  for (const candidate of followed ? [bytes, bytes.subarray(0, -1)] : [bytes]) {
    const record = decode(candidate);
    if (record !== INVALID_LINE) return { record, bytes: candidate };
  }
  return undefined;
}

/** A damaged line's parts, cut where another record starts inside it (a damaged line break). */
function splitAtRecordStarts(content: Buffer, start: number, end: number): Array<{ start: number; end: number }> {
  const text = content.toString('latin1', start, end);
  const starts = [0];
  for (const match of text.matchAll(RECORD_START)) if (match.index > 0) starts.push(match.index);
  return starts.map((at, index) => ({ start: start + at, end: index + 1 < starts.length ? start + starts[index + 1]! : end }));
}

/** Checks the header line (`undefined`: the file has none) and returns its format version. */
function decodeHeader(line: string | undefined, file: string): number {
  const read =
    line === undefined ? 'the file has no complete header line (it is empty or was cut short outside of a crash)' : readHeader(line);
  if (typeof read === 'string') {
    const hint = read.includes('format version')
      ? 'Run the Mailroom that wrote it on this data directory (its messages are kept), or start this one with another --data-dir.'
      : 'Move the file aside to start empty.';
    throw new JournalCorruptError({ file, line: 1, offset: 0, problem: read, hint });
  }
  return read;
}

/** Thrown by a line reader of {@link readLinesOf} to stop it: not damage. */
const STOPPED: unique symbol = Symbol('stopped');

/**
 * Reads the journal file open as `fd` again, a line at a time, giving each intact line's JSON to
 * `onLine` (as `OpenJournalOptions.onRecordBytes` gets it), for a reader that only looks at bytes;
 * nothing is parsed. Resolves at the end of what is written, at the first damaged line, or once
 * `onLine` returns false. The file may be appended to meanwhile: a line still being written is not read.
 */
export async function readLinesOf(
  fd: number,
  file: string,
  onLine: (line: Buffer, start: number, end: number, offset: number) => boolean,
): Promise<void> {
  const handle: JournalSource = {
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) =>
        read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve({ bytesRead }))),
      ),
    stat: () => new Promise((resolve, reject) => fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats)))),
  };
  try {
    await readJournal(handle, file, {
      skipDamaged: false,
      isRecord: (_value: unknown): _value is never => false,
      onRecord: () => {},
      onRecordBytes: (line, start, end, offset) => {
        if (!onLine(line, start, end, offset)) throw STOPPED;
        return true;
      },
    });
  } catch (error) {
    if (error !== STOPPED && !(error instanceof JournalCorruptError)) throw error;
  }
}
