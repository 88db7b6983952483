import { JournalCorruptError } from './errors';
import { INVALID_LINE, decodeRecordLine, headerProblem } from './record-line';

const NEWLINE = 0x0a;

/** A journal file's content, read back. */
export interface DecodedJournal<R> {
  records: R[];
  /** Bytes up to and including the last good line: where the next append goes. */
  validLength: number;
  /** Bytes after `validLength`: a final line torn by a crash. */
  tornBytes: number;
  /** Damaged lines skipped in the middle (only with `skipDamaged`), with their bytes. */
  damaged: Array<{ line: number; offset: number; bytes: Buffer }>;
  /** With damaged lines skipped: the file as it should be, every intact line in order. */
  repaired?: Buffer;
}

/**
 * Decodes a whole journal file.
 *
 * Only the final line may be bad: a crash mid-append tears at most the end of the file, because
 * appends are written in order and each one resolves only after its sync. That line (complete or
 * not: a line counts only with its `\n`, which is written with it) is reported as torn, to drop.
 * A bad line with anything after it is damage a crash cannot cause, so this throws a
 * {@link JournalCorruptError} rather than silently losing the records that follow it, unless
 * `skipDamaged` asks to skip such lines and keep every intact record around them.
 */
export function decodeJournal<R>(content: Buffer, file: string, skipDamaged = false): DecodedJournal<R> {
  const headerEnd = decodeHeader(content, file);
  let offset = headerEnd;
  const records: R[] = [];
  const damaged: DecodedJournal<R>['damaged'] = [];
  const kept: Buffer[] = [content.subarray(0, headerEnd)];
  const done = (tornBytes: number): DecodedJournal<R> => {
    if (damaged.length === 0) return { records, validLength: offset, tornBytes, damaged };
    const repaired = Buffer.concat(kept);
    return { records, validLength: repaired.length, tornBytes, damaged, repaired };
  };
  for (let line = 2; offset < content.length; line += 1) {
    const end = content.indexOf(NEWLINE, offset);
    if (end === -1) return done(content.length - offset);
    const record = decodeRecordLine(content.subarray(offset, end));
    if (record === INVALID_LINE) {
      if (end === content.length - 1) return done(content.length - offset);
      if (!skipDamaged) {
        throw new JournalCorruptError({
          file,
          line,
          offset,
          problem: 'the record is damaged (bad checksum or format) and more records follow it',
          hint:
            'Start with --repair-journal (startDevServer({ repairJournal: true })) to skip damaged records and keep every ' +
            `intact one (the skipped bytes are saved to ${file}.damaged), or move the file aside to start empty.`,
        });
      }
      damaged.push({ line, offset, bytes: content.subarray(offset, end + 1) });
    } else {
      records.push(record as R);
      kept.push(content.subarray(offset, end + 1));
    }
    offset = end + 1;
  }
  return done(0);
}

/** Checks the header line and returns the offset of the first record. */
function decodeHeader(content: Buffer, file: string): number {
  const end = content.indexOf(NEWLINE);
  // The header is written atomically with the file, so a missing or torn header is not a crash.
  const problem =
    end === -1
      ? 'the file has no complete header line (it is empty or was cut short outside of a crash)'
      : headerProblem(content.toString('utf8', 0, end));
  if (problem !== undefined) {
    throw new JournalCorruptError({ file, line: 1, offset: 0, problem, hint: 'Move the file aside to start empty.' });
  }
  return end + 1;
}
