import type { Readable } from 'node:stream';
import { BodyReadError, BodyTooLargeError } from '../errors/body-errors';

export interface ReadStreamOptions {
  /** Largest accepted body in bytes; one byte more rejects with `BodyTooLargeError`. */
  limit: number;
  /** Aborting stops the read and rejects with `BodyReadError` (its `cause` is the signal's reason). */
  signal?: AbortSignal;
}

/**
 * Reads a stream to its end into one Buffer, counting bytes as they arrive so an oversized body is
 * refused after at most `limit` bytes plus one chunk, never buffered whole.
 *
 * On every outcome all listeners are removed. On a size rejection or an abort the stream is only
 * paused, not destroyed: destroying an `IncomingMessage` destroys its socket, and the caller still
 * has to send the 413 over that socket (`writeOutbound` then closes the connection).
 *
 * @example
 * const bytes = await readStream(req, { limit: 1_048_576 });
 */
export function readStream(stream: Readable, options: ReadStreamOptions): Promise<Buffer> {
  const { limit, signal } = options;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;

    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const succeed = (body: Buffer): void => {
      cleanup();
      resolve(body);
    };
    const fail = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const stopAndFail = (error: Error): void => {
      cleanup();
      stream.pause();
      reject(error);
    };

    function onData(chunk: Buffer | string): void {
      // Strings only arrive when someone called setEncoding(); turn them back into the same bytes.
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, stream.readableEncoding ?? 'utf8') : chunk;
      total += bytes.length;
      if (total > limit) {
        stopAndFail(new BodyTooLargeError(limit));
        return;
      }
      chunks.push(bytes);
    }
    function onEnd(): void {
      // A body that arrived in one chunk (the usual delivery) is that chunk: Node's HTTP parser hands
      // each chunk over as a Buffer of its own, so copying it would only cost an allocation.
      succeed(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    }
    function onError(error: unknown): void {
      fail(bodyReadError(error));
    }
    function onClose(): void {
      // 'close' before 'end': the connection went away without an error event reaching us.
      fail(
        new BodyReadError('The connection closed before the whole request body arrived (the client aborted or the connection was reset).'),
      );
    }
    function onAbort(): void {
      stopAndFail(abortError(signal));
    }

    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    if (stream.destroyed || stream.errored) {
      // A destroyed stream never emits again: listening would leave this promise pending forever.
      reject(bodyReadError(stream.errored ?? new Error('the request was destroyed before its body was read')));
      return;
    }
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
    // Adding a 'data' listener does not restart a stream someone paused explicitly.
    stream.resume();
  });
}

function bodyReadError(cause: unknown): BodyReadError {
  const code = (cause as { code?: unknown } | null)?.code;
  const detail = cause instanceof Error ? cause.message : String(cause);
  const suffix = typeof code === 'string' ? ` (${code})` : '';
  return new BodyReadError(
    `The request body could not be read: ${detail}${suffix}. The client most likely closed or reset the connection before sending all of it.`,
    { cause },
  );
}

function abortError(signal: AbortSignal | undefined): BodyReadError {
  const reason: unknown = signal?.reason;
  const detail = reason instanceof Error ? reason.message : String(reason);
  return new BodyReadError(`Reading the request body was aborted: ${detail}.`, { cause: reason });
}
