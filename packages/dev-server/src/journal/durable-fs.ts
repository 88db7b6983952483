import { open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

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

/** Writes the whole buffer at `position`; a single write may be short (a signal, a full disk). */
export async function writeFully(handle: FileHandle, buffer: Buffer, position: number): Promise<void> {
  let written = 0;
  while (written < buffer.length) {
    const { bytesWritten } = await handle.write(buffer, written, buffer.length - written, position + written);
    if (bytesWritten === 0) throw new Error(`Writing the journal made no progress at byte ${position + written}.`);
    written += bytesWritten;
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
    await writeFully(handle, content, 0);
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
