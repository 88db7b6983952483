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
export function readInbound(req: IncomingMessage, options: ReadInboundOptions = {}): Promise<InboundRequest> {
  // Not an async function: the body read is the only thing to wait for, so its promise is the one
  // this returns (see readInboundNow).
  try {
    const inbound = readInboundNow(req, options);
    return inbound instanceof Promise ? inbound : Promise.resolve(inbound);
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link readInbound} without the promise when the bytes are already at hand (a parser captured
 * them); throws instead of rejecting for what is wrong before any reading. For core's Node bridge
 * (handleNodeRequest), not exported from the package.
 */
export function readInboundNow(req: IncomingMessage, options: ReadInboundOptions = {}): InboundRequest | Promise<InboundRequest> {
  assertIncomingMessage(req);
  const limit = resolveBodyLimit(options.maxBodyBytes);
  const method = req.method ?? 'GET';
  const url = options.url ?? req.url;
  const inbound = (rawBody: Uint8Array): InboundRequest => ({ method, url, headers: req.headers, rawBody });
  const rawBody = readRawBody(req, limit, options);
  if (!(rawBody instanceof Promise)) return inbound(rawBody);
  // Only a read from the stream waits. Its bytes are kept on the request, so a second call (a
  // guard, then a handler) gets the same bytes instead of a drained stream.
  return rawBody.then((bytes) => {
    (req as NodeRequest).rawBody = bytes;
    return inbound(bytes);
  });
}

function readRawBody(req: NodeRequest, limit: number, options: ReadInboundOptions): Uint8Array | Promise<Uint8Array> {
  const captured = capturedRawBody(req);
  if (captured) return withinLimit(captured, limit);
  const consumed = consumedBy(req);
  if (consumed === undefined) {
    // Refuse before reading a byte when the client announced too much.
    const declared = declaredContentLength(req);
    if (declared !== undefined && declared > limit) throw new BodyTooLargeError(limit);
    return readStream(req, { limit, ...(options.signal ? { signal: options.signal } : {}) });
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
  const candidate = req as Partial<IncomingMessage> | null;
  if (typeof candidate === 'object' && candidate !== null && typeof candidate.on === 'function' && typeof candidate.headers === 'object')
    return;
  // Only now the costlier question of what it is instead, for the message.
  if (typeof Request !== 'undefined' && req instanceof Request) {
    throw new ValidationError(
      'req',
      'readInbound expects a Node IncomingMessage, got a Web Request; hand a Web Request to the receiver directly (receiver.fetch).',
    );
  }
  throw new ValidationError(
    'req',
    `readInbound expects a Node IncomingMessage (a readable stream with headers), got ${candidate === null ? 'null' : typeof candidate}.`,
  );
}
