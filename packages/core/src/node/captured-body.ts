import { RawBodyUnavailableError } from '../errors/body-errors';
import { declaredContentLength } from './body-limit';
import type { NodeRequest } from './node-request';

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
export function capturedRawBody(req: NodeRequest): Uint8Array | undefined {
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
export function bufferBody(req: NodeRequest): Uint8Array | undefined {
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
