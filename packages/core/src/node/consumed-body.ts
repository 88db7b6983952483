import { RawBodyUnavailableError } from '../errors/body-errors';
import { declaredContentLength } from './body-limit';
import type { NodeRequest } from './node-request';

/** What an adapter tells its users when no hint specific to the framework is given. */
export const DEFAULT_CONSUMED_HINT =
  'let Mailroom read the request before any body parser runs, or keep the exact bytes on req.rawBody. ' +
  'Express: express.json({ verify: captureRawBody }) (captureRawBody from @mailroom/core), or mount the ' +
  'Mailroom route before express.json(). NestJS: NestFactory.create(AppModule, { rawBody: true }). ' +
  'Next.js Pages Router: export const config = { api: { bodyParser: false } } from the API route.';

/**
 * Why the request stream can no longer give us the body, or `undefined` while it is still unread.
 *
 * Only the stream's own state counts: Express 4's body-parser sets `req.body = {}` even for requests
 * it skips, so a parsed-looking `req.body` alone does not mean the bytes are gone.
 */
export function consumedBy(req: NodeRequest): string | undefined {
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
export function declaresBody(req: NodeRequest): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  return (declaredContentLength(req) ?? 0) > 0;
}

/** The fix-it error for a body some parser consumed without keeping its bytes. */
export function rawBodyUnavailable(req: NodeRequest, consumed: string, hint: string | undefined): RawBodyUnavailableError {
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
