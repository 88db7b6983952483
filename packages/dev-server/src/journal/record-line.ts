import { crc32 } from 'node:zlib';

/**
 * One record per line: `<crc32 of the JSON, 8 lowercase hex digits> <JSON>\n`.
 *
 * JSON.stringify escapes every newline inside strings, so `\n` only ever ends a record, and the
 * checksum lets replay tell a complete line from one torn by a crash (or any other damage).
 */
const CHECKSUM_LENGTH = 8;
const SPACE = 0x20;

/** Sentinel for a line that does not decode; distinct from any JSON value. */
export const INVALID_LINE: unique symbol = Symbol('invalid journal line');

/** Encodes one record as a complete line; throws a `TypeError` for what JSON cannot represent. */
export function encodeRecordLine(record: unknown): string {
  const json = toJson(record);
  return `${crc32(json).toString(16).padStart(CHECKSUM_LENGTH, '0')} ${json}\n`;
}

/** Decodes one line (without its `\n`), or returns {@link INVALID_LINE}. */
export function decodeRecordLine(line: Buffer): unknown {
  if (line.length <= CHECKSUM_LENGTH + 1 || line[CHECKSUM_LENGTH] !== SPACE) return INVALID_LINE;
  const checksumText = line.toString('latin1', 0, CHECKSUM_LENGTH);
  if (!/^[0-9a-f]{8}$/.test(checksumText)) return INVALID_LINE;
  const json = line.subarray(CHECKSUM_LENGTH + 1);
  if (Number.parseInt(checksumText, 16) !== crc32(json)) return INVALID_LINE;
  try {
    return JSON.parse(json.toString('utf8'));
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
const JOURNAL_VERSION = 1;
export const JOURNAL_HEADER_LINE = `${JSON.stringify({ format: JOURNAL_FORMAT, version: JOURNAL_VERSION })}\n`;

/** Why a first line is not a header this code reads, or `undefined` when it is one. */
export function headerProblem(line: string): string | undefined {
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
  if (version !== JOURNAL_VERSION) {
    return (
      `the journal has format version ${String(version)}, this code reads version ${JOURNAL_VERSION} ` +
      '(was it written by a newer Mailroom?)'
    );
  }
  return undefined;
}
