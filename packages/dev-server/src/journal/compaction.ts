import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { encodeRecordLine, JOURNAL_HEADER_LINE } from './record-line';

// Automatic compaction in the background. The snapshot is written to the temporary file a slice at a
// time while appends go on to the journal as usual; then, at its turn among the appends, the lines
// appended since the snapshot (the tail) are copied over, the file is synced and renamed over the
// journal. Appends wait only for that last step: encoding and writing a snapshot of a few megabytes at
// once held every enqueue for a tenth of a second (docs/benchmarks.md, the scale section).

/**
 * Encoded bytes written per slice, between which the event loop runs. Counted in bytes, not records:
 * a `logs.restored` line can hold a hundred kilobytes, so 512 records could be the whole log in one
 * slice, holding every enqueue meanwhile (docs/benchmarks.md, the scale section's steady rows).
 */
const SLICE_BYTES = 256 * 1024;

/** A snapshot being written next to the journal. */
export interface BackgroundCompaction {
  /** Where the journal ended when the snapshot was taken: the tail starts here. */
  readonly tailStart: number;
  /** Appends made before the snapshot was taken, and the records it holds once written: the file's count afterwards. */
  readonly appendsAtStart: number;
  readonly records: number;
  /** Resolves once the snapshot is written (not synced); rejects when it could not be. */
  readonly written: Promise<void>;
  /** Stops writing, removes the temporary file, and resolves when both are done. */
  cancel(): Promise<void>;
  /** Copies `tail` (the journal's bytes since `tailStart`) after the snapshot, syncs and renames over `target`. */
  finish(tail: Buffer, target: string, sync: boolean): Promise<{ handle: FileHandle; snapshotBytes: number; size: number }>;
}

/**
 * Starts writing `records` to `tmp`, read as they are written. They must give the state as it was
 * when the snapshot was taken: the store captures whatever it changes in place.
 */
export function startBackgroundCompaction(
  tmp: string,
  records: Iterable<unknown>,
  tailStart: number,
  appendsAtStart: number,
): BackgroundCompaction {
  let handle: FileHandle | undefined;
  let cancelled = false;
  let size = 0;
  let count = 0;
  const written = (async () => {
    handle = await open(tmp, 'w');
    size = await writeAt(handle, Buffer.from(JOURNAL_HEADER_LINE), 0);
    const reader = records[Symbol.iterator]();
    let read = false;
    while (!read && !cancelled) {
      const lines: Buffer[] = [];
      for (let length = 0; length < SLICE_BYTES; ) {
        const next = reader.next();
        if (next.done) {
          read = true;
          break;
        }
        const line = encodeRecordLine(next.value);
        lines.push(line);
        length += line.length;
        count += 1;
      }
      if (lines.length > 0) size += await writeAt(handle, Buffer.concat(lines), size);
    }
    if (cancelled) throw new Error('compaction cancelled');
  })();
  const discard = async (): Promise<void> => {
    await handle?.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
  };
  // A failure is reported by whoever awaits `written`; this only keeps it from reading as unhandled.
  written.catch(() => {});
  return {
    tailStart,
    appendsAtStart,
    get records() {
      return count;
    },
    written,
    async cancel() {
      cancelled = true;
      await written.catch(() => undefined);
      await discard();
    },
    async finish(tail, target, sync) {
      try {
        await written;
        const snapshotBytes = size;
        size += await writeAt(handle!, tail, size);
        if (sync) await handle!.sync();
        await rename(tmp, target);
        return { handle: handle!, snapshotBytes, size };
      } catch (error) {
        await discard();
        throw error;
      }
    },
  };
}

/** Reads `[start, end)` of a file (the journal's own handle only appends). */
export async function readRange(file: string, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(end - start);
  const handle = await open(file, 'r');
  try {
    let read = 0;
    while (read < buffer.length) {
      const { bytesRead } = await handle.read(buffer, read, buffer.length - read, start + read);
      if (bytesRead === 0) throw new Error(`The journal ended at byte ${start + read}, before ${end}.`);
      read += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return buffer;
}

/** Writes the whole buffer at `position` (a single write may be short: a signal, a full disk); returns its length. */
export async function writeAt(handle: FileHandle, buffer: Buffer, position: number): Promise<number> {
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, position + written);
    if (bytesWritten === 0) throw new Error(`Writing the journal made no progress at byte ${position + written}.`);
    written += bytesWritten;
  }
  return buffer.length;
}

/**
 * Syncs a directory, so a file created, renamed or removed in it survives a power loss: the
 * file's own fsync covers its content, not the directory entry that names it.
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows, a few network filesystems) cannot sync a directory; their rename is
    // as durable as it gets there, so only a real I/O error is worth failing on.
    if (!isUnsupported(error)) throw error;
  } finally {
    await handle.close();
  }
}

/**
 * Writes `content` to `tmp`, syncs it (when `sync`) and renames it over `target`: a crash leaves the
 * old `target` or the new one, each complete. Returns the new file's handle, still open, so appends
 * continue on it. The caller syncs the directory to make the rename itself durable.
 */
export async function writeAndRename(tmp: string, target: string, content: Buffer, sync: boolean): Promise<FileHandle> {
  const handle = await open(tmp, 'w');
  try {
    await writeAt(handle, content, 0);
    if (sync) await handle.sync();
    await rename(tmp, target);
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}

function isUnsupported(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EISDIR' || code === 'EINVAL' || code === 'EPERM' || code === 'ENOTSUP';
}
