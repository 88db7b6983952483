import { BodyReadError, BodyTooLargeError, RawBodyUnavailableError, ValidationError } from '../errors';
import { resolveHeaderPrefix } from '../config';
import { headerNames } from '../wire';
import { resolveBodyLimit, type InboundRequest } from '../receive/receiver-options';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

/**
 * The declared body length, or `undefined` when the request is chunked or the header is unusable.
 * Node's parser has already rejected malformed and conflicting values, so a number here is the
 * exact length the body will have.
 */
function declaredContentLength(req: IncomingMessage): number | undefined {
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const raw = req.headers['content-length'];
  if (raw === undefined) return undefined;
  const length = Number(raw);
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}

/**
 * An `IncomingMessage` as frameworks leave it: parsers hang extra fields on the request, and these
 * are the ones that tell us where the body went.
 */
type NodeRequest = IncomingMessage & {
  /** Bytes a parser captured before consuming the stream (NestJS `rawBody: true`, `captureRawBody`). */
  rawBody?: unknown;
  /** What a parser produced: a Buffer (express.raw), a string (express.text), an object (express.json). */
  body?: unknown;
  /** body-parser's "I already read this stream" flag (Express 4 and 5). */
  _body?: unknown;
};

/**
 * The `verify` callback for `express.json()` and other body-parser parsers: keeps the exact bytes
 * on `req.rawBody` while the parser builds `req.body`, so apps with a global JSON parser can still
 * have signatures checked. `readInbound` looks there first.
 *
 * @example
 * import express from 'express';
 * import { captureRawBody } from '@mailroom/core';
 *
 * app.use(express.json({ verify: captureRawBody }));
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as NodeRequest).rawBody = buf;
}

/**
 * Wraps a Connect-style body parser (`express.json()`, `express.urlencoded()`, ...) so it runs for
 * every request except a signed delivery (one carrying `<P>-Signature`): Mailroom's routes read those
 * bytes as they arrived on the wire, and nothing unsigned is parsed, decompressed or size-checked by
 * the parser first. Your other routes keep their parsed `req.body`.
 *
 * @example
 * app.use(exceptDeliveries(express.json())); // from @mailroom/adapters/express
 */
export function exceptDeliveries<Req extends IncomingMessage, Res, Next extends (error?: unknown) => void>(
  parser: (req: Req, res: Res, next: Next) => void,
  options: { headerPrefix?: string | undefined } = {},
): (req: Req, res: Res, next: Next) => void {
  if (typeof parser !== 'function') {
    throw new ValidationError('parser', 'expected a body-parser middleware such as express.json()');
  }
  const signature = headerNames(resolveHeaderPrefix(options.headerPrefix)).signature.toLowerCase();
  return (req, res, next) => (req.headers[signature] === undefined ? parser(req, res, next) : next());
}

/**
 * The exact bytes a parser kept on `req.rawBody` before it consumed the stream (NestJS
 * `rawBody: true`, body-parser's `verify: captureRawBody`), or `undefined` when none was kept.
 *
 * A string is accepted as UTF-8 because `req.rawBody = buf.toString()` is a common idiom and is exact
 * for UTF-8 bodies, which is what the service sends. Where the string provably is not the bytes that
 * arrived (its UTF-8 length differs from Content-Length: a non-UTF-8 charset, a stripped byte-order
 * mark), this throws a fix-it error instead of letting the signature check fail mysteriously. Any
 * lossy decoding this cannot detect still fails closed: the body hash will not match.
 */
function capturedRawBody(req: NodeRequest): Uint8Array | undefined {
  const { rawBody } = req;
  if (rawBody instanceof Uint8Array) return rawBody;
  if (typeof rawBody === 'string') return stringRawBody(req, rawBody);
  return undefined;
}

/**
 * `req.body` when a raw parser left the bytes themselves there (`express.raw()`).
 *
 * A string body is deliberately not used: a text parser decoded it with the request's charset and
 * may have stripped a byte-order mark or replaced invalid sequences, so re-encoding it can give other
 * bytes than were signed. Unlike `req.rawBody`, nobody put it there to mean "the exact bytes".
 */
function bufferBody(req: NodeRequest): Uint8Array | undefined {
  return req.body instanceof Uint8Array ? req.body : undefined;
}

function stringRawBody(req: NodeRequest, text: string): Uint8Array {
  const bytes = Buffer.from(text, 'utf8');
  const declared = declaredContentLength(req);
  if (declared !== undefined && isIdentityEncoded(req) && declared !== bytes.byteLength) {
    throw new RawBodyUnavailableError(
      `req.rawBody is a string whose UTF-8 encoding is ${bytes.byteLength} bytes, but the request declared ` +
        `Content-Length: ${declared}, so it is not the exact body that was sent (it was probably decoded from a ` +
        `non-UTF-8 charset or lost a byte-order mark). Store the Buffer itself: req.rawBody = buf ` +
        `(captureRawBody from @mailroom/core does this).`,
    );
  }
  return bytes;
}

// Parsers inflate gzip/deflate bodies before `verify`, so Content-Length then counts other bytes.
function isIdentityEncoded(req: NodeRequest): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding === undefined || encoding.trim().toLowerCase() === 'identity';
}

/** What an adapter tells its users when no hint specific to the framework is given. */
export const DEFAULT_CONSUMED_HINT =
  'let Mailroom read the request before any body parser runs, or keep the exact bytes on req.rawBody. ' +
  'Express: app.use(mailroom.exceptDeliveries(express.json())) (@mailroom/adapters/express), or mount the ' +
  'Mailroom route before express.json(). NestJS: NestFactory.create(AppModule, { rawBody: true }). ' +
  'Next.js Pages Router: export const config = { api: { bodyParser: false } } from the API route.';

/**
 * Why the request stream can no longer give us the body, or `undefined` while it is still unread.
 *
 * Only the stream's own state counts: Express 4's body-parser sets `req.body = {}` even for requests
 * it skips, so a parsed-looking `req.body` alone does not mean the bytes are gone.
 */
function consumedBy(req: NodeRequest): string | undefined {
  if (req._body === true) return 'a body parser has already read the request stream (req._body is set)';
  if (req.readableDidRead || req.readableEnded) return 'the request stream has already been read';
  if (req.readableFlowing === true) return 'the request stream is already flowing to another reader';
  return undefined;
}

/**
 * Whether the request carries a body at all. HTTP/1.1 framing decides this from the headers alone
 * (RFC 9112 section 6.3): a body exists only with Transfer-Encoding or a Content-Length above zero.
 * This is what tells "a parser ate the body" apart from "there never was one", e.g. a GET, or a POST
 * with `Content-Length: 0` that express.json() turned into `{}`.
 */
function declaresBody(req: NodeRequest): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return (declaredContentLength(req) ?? 0) > 0;
}

/** The fix-it error for a body some parser consumed without keeping its bytes. */
function rawBodyUnavailable(req: NodeRequest, consumed: string, hint: string | undefined): RawBodyUnavailableError {
  return new RawBodyUnavailableError(
    `Mailroom cannot read the raw request body: ${consumed}${describeParsedBody(req.body)}. The signature covers ` +
      `the exact bytes that were sent, and re-serialising a parsed body does not reproduce them. ` +
      `Fix: ${hint ?? DEFAULT_CONSUMED_HINT}`,
  );
}

function describeParsedBody(body: unknown): string {
  if (typeof body === 'string') {
    return ' and req.body is decoded text, which can differ from the bytes (charset, byte-order mark)';
  }
  if (body !== null && typeof body === 'object') return ' and req.body holds the parsed result';
  return '';
}

interface ReadStreamOptions {
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
function readStream(stream: Readable, options: ReadStreamOptions): Promise<Buffer> {
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
 * writeOutbound(res, await endpoint.handle(inbound)); // endpoint: receiver.destination(...)
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
