import type { IncomingMessage } from 'node:http';
import { BodyTooLargeError } from '../errors/body-errors';
import { ValidationError } from '../errors/validation-error';
import type { InboundRequest } from '../receive/inbound-request';
import { declaredContentLength, resolveBodyLimit } from './body-limit';
import { bufferBody, capturedRawBody } from './captured-body';
import { consumedBy, declaresBody, rawBodyUnavailable } from './consumed-body';
import type { NodeRequest } from './node-request';
import { readStream } from './read-stream';

export interface ReadInboundOptions {
  /** Largest accepted body in bytes. Default 1 MiB (1_048_576); `Infinity` disables the limit. */
  maxBodyBytes?: number;
  /** The URL to report instead of `req.url`; Express adapters pass `req.originalUrl` (keeps the mount path). */
  url?: string;
  /**
   * How to fix the app when a parser consumed the body, in the framework's own words; it ends the
   * `RawBodyUnavailableError` message after "Fix: ". Default: advice for Express, NestJS and Next.js.
   */
  consumedHint?: string;
  /** Aborting stops reading the stream and rejects with `BodyReadError`. */
  signal?: AbortSignal;
}

/**
 * Turns a Node `IncomingMessage` into the pipeline's `InboundRequest`, with the exact body bytes.
 *
 * The bytes come from, in order: `req.rawBody` a parser captured (a string is taken as UTF-8), the
 * unread request stream, a Buffer `req.body` (`express.raw()`). Bytes read from the stream are kept
 * on `req.rawBody`, so a second call (a guard, then a handler) gets the same bytes.
 *
 * Rejects with:
 * - `BodyTooLargeError` when Content-Length or the bytes counted while streaming exceed
 *   `maxBodyBytes` (a body of exactly `maxBodyBytes` is fine). The request is left paused, not
 *   destroyed, so the 413 can still be sent; `writeOutbound` then closes the connection.
 * - `RawBodyUnavailableError` when a parser consumed a body without keeping its bytes; the message
 *   ends with `consumedHint`. A request without a body (GET, `Content-Length: 0`) is not an error.
 * - `BodyReadError` when the client aborts or resets the connection mid-body, or `signal` aborts.
 * - `ValidationError` for a bad `maxBodyBytes` or something that is not an `IncomingMessage`.
 *
 * @example
 * const inbound = await readInbound(req, { maxBodyBytes: 256 * 1024, url: req.originalUrl });
 * writeOutbound(res, await receiver.handle(inbound));
 */
export async function readInbound(req: IncomingMessage, options: ReadInboundOptions = {}): Promise<InboundRequest> {
  assertIncomingMessage(req);
  const limit = resolveBodyLimit(options.maxBodyBytes);
  const rawBody = await readRawBody(req, limit, options);
  return { method: req.method ?? 'GET', url: options.url ?? req.url, headers: req.headers, rawBody };
}

async function readRawBody(req: NodeRequest, limit: number, options: ReadInboundOptions): Promise<Uint8Array> {
  const captured = capturedRawBody(req);
  if (captured) return withinLimit(captured, limit);

  const consumed = consumedBy(req);
  if (consumed === undefined) {
    // Refuse before reading a byte when the client announced too much.
    const declared = declaredContentLength(req);
    if (declared !== undefined && declared > limit) throw new BodyTooLargeError(limit);
    const bytes = await readStream(req, { limit, ...(options.signal ? { signal: options.signal } : {}) });
    req.rawBody = bytes;
    return bytes;
  }

  const buffered = bufferBody(req);
  if (buffered) return withinLimit(buffered, limit);
  if (!declaresBody(req)) return Buffer.alloc(0);
  throw rawBodyUnavailable(req, consumed, options.consumedHint);
}

// A parser's own limit may be higher than ours; the receiver's limit must hold whoever read the bytes.
function withinLimit(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.byteLength > limit) throw new BodyTooLargeError(limit);
  return bytes;
}

function assertIncomingMessage(req: unknown): asserts req is NodeRequest {
  if (typeof Request !== 'undefined' && req instanceof Request) {
    throw new ValidationError('req', 'readInbound expects a Node IncomingMessage, got a Web Request; hand a Web Request to the receiver directly (receiver.fetch).');
  }
  const candidate = req as Partial<IncomingMessage> | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.on !== 'function' || typeof candidate.headers !== 'object') {
    throw new ValidationError('req', `readInbound expects a Node IncomingMessage (a readable stream with headers), got ${candidate === null ? 'null' : typeof candidate}.`);
  }
}
