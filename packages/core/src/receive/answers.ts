import { BodyReadError, BodyTooLargeError, NonRetryableError, RawBodyUnavailableError, RetryAfterError } from '../errors';
import { ALREADY_HANDLED } from '../idempotency/guard';
import { ALREADY_HANDLED_HEADER, headerNames, NON_RETRYABLE_STATUS, SIGNATURE_REFUSED_HEADER } from '../wire';
import type { InboundRequest, OutboundResponse, ReceiveStage } from './receiver-options';

/** What a crashed handler answers, in every adapter. */
const HANDLER_FAILED_BODY = '{"error":"handler failed"}';

function textResponse(status: number, body: string, headers: Record<string, string> = {}): OutboundResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

/** The fields our error classes carry; read by `code`, not `instanceof`, see below. */
interface CodedError {
  code?: unknown;
  message?: unknown;
  allowed?: unknown;
  seconds?: unknown;
  status?: unknown;
  reason?: unknown;
}

/**
 * The one place that turns a failure into what the service sees. Bodies stay short and generic where
 * detail would help an attacker (signatures) or leak internals (handler errors); the detail goes to
 * `onError` instead.
 *
 * Errors are recognised by their `code`, not `instanceof`: an app that loads core twice (its ESM and
 * CJS builds side by side) would otherwise turn a NonRetryableError into a 500 and retry it for a day.
 */
export function errorResponse(
  error: unknown,
  headerPrefix: string,
  nameRefusals = false,
): { response: OutboundResponse; stage: ReceiveStage } {
  const coded = (typeof error === 'object' && error !== null ? error : {}) as CodedError;
  const nonRetryable = { [headerNames(headerPrefix).nonRetryableError]: 'true' };
  switch (coded.code) {
    case 'METHOD_NOT_ALLOWED': {
      const allowed = Array.isArray(coded.allowed) ? coded.allowed.join(', ') : 'POST';
      return { stage: 'method', response: textResponse(405, 'Method not allowed', { allow: allowed }) };
    }
    case 'BODY_TOO_LARGE':
      return { stage: 'body', response: textResponse(413, 'Payload too large') };
    case 'BODY_READ':
      return { stage: 'body', response: textResponse(400, 'Incomplete request body') };
    case 'RAW_BODY_UNAVAILABLE':
    case 'CONFIG':
      // Both are the app's own misconfiguration and the message says how to fix it: show it.
      return { stage: 'config', response: textResponse(500, String(coded.message)) };
    case 'SIGNATURE': {
      // Which check failed, outside production: a code only (no claim, key or expected value).
      const named: Record<string, string> =
        nameRefusals && typeof coded.reason === 'string' ? { [SIGNATURE_REFUSED_HEADER]: coded.reason } : {};
      return { stage: 'signature', response: textResponse(401, 'Invalid signature', named) };
    }
    case 'INVALID_BODY':
      return { stage: 'parse', response: textResponse(NON_RETRYABLE_STATUS, 'Invalid JSON body', nonRetryable) };
    case 'SCHEMA_VALIDATION':
      return { stage: 'schema', response: textResponse(NON_RETRYABLE_STATUS, 'Body does not match the schema', nonRetryable) };
    case 'IDEMPOTENCY_STORE':
      // The handler never ran: the service retries, and the store's own words go to onError.
      return { stage: 'store', response: textResponse(503, 'Idempotency store unavailable', { 'retry-after': '5' }) };
    case 'NON_RETRYABLE':
      return { stage: 'handler', response: textResponse(NON_RETRYABLE_STATUS, 'Not retryable', nonRetryable) };
    case 'RETRY_AFTER': {
      const status = typeof coded.status === 'number' ? coded.status : 503;
      return { stage: 'handler', response: textResponse(status, 'Retry later', { 'retry-after': String(coded.seconds) }) };
    }
    default:
      // A small fixed JSON body: the service stores it as the DLQ entry's responseBody, shown to anyone
      // with the token, so no message, stack or framework error page may reach it.
      return { stage: 'handler', response: { status: 500, headers: { 'content-type': 'application/json' }, body: HANDLER_FAILED_BODY } };
  }
}

/**
 * Turns a Web `Request` into the pipeline's input, reading the body once and stopping as soon as it
 * passes the limit, so an oversized body is never buffered whole.
 */
export async function readWebRequest(request: Request, maxBodyBytes: number, context?: unknown): Promise<InboundRequest> {
  // Read before the endpoint (`await request.json()` in a router or middleware): the bytes are gone.
  if (request.bodyUsed) {
    throw new RawBodyUnavailableError(
      "The request's body was read before the Mailroom endpoint got it, so its exact bytes cannot be checked. " +
        'Hand the endpoint the Request as the server gave it, before anything calls request.json(), text() or arrayBuffer() ' +
        '(in Elysia: register the route before any onParse hook, and give it no body schema).',
    );
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBodyBytes) throw new BodyTooLargeError(maxBodyBytes);
  const rawBody = await readLimited(request, maxBodyBytes, declared);
  // One object shape for every request, with a context or without: a property added afterwards
  // would show the pipeline's functions two shapes.
  return { method: request.method, url: request.url, headers: request.headers, rawBody, context };
}

async function readLimited(request: Request, limit: number, declared: number): Promise<Uint8Array> {
  // A declared length within the limit is read in one go: HTTP framing holds the body to it, and
  // servers such as @hono/node-server answer arrayBuffer() from the socket without building a stream
  // (reading `request.body` first would build it: 2.6x slower there).
  if (Number.isSafeInteger(declared) && declared >= 0) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await request.arrayBuffer());
    } catch (error) {
      throw new BodyReadError('The request body could not be read to the end.', { cause: error });
    }
    if (bytes.byteLength > limit) throw new BodyTooLargeError(limit);
    return bytes;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => {});
        throw new BodyTooLargeError(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw error;
    throw new BodyReadError('The request body could not be read to the end.', { cause: error });
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** Copies the pipeline's answer into a Web `Response`. */
export function toWebResponse(out: { status: number; headers: Record<string, string>; body: string }): Response {
  // 204/304 and friends must not carry a body; everything else gets ours. An empty body is passed as
  // null: a string, even '', makes the Response build a ReadableStream for nothing and adds a
  // text/plain content type, which the Node path never sends.
  const body = out.status === 204 || out.status === 304 || out.body === '' ? null : out.body;
  // No headers at all for the plain 200: an empty record still makes the Response fill a Headers
  // object from it (over half again the cost of the Response itself).
  return new Response(body, hasAny(out.headers) ? { status: out.status, headers: out.headers } : { status: out.status });
}

function hasAny(record: Record<string, string>): boolean {
  for (const _name in record) return true;
  return false;
}

/** What `onError` does when not given: one `console.warn` line per refusal, one `console.error` line per handler failure. */
export function defaultOnError(error: unknown, { stage, request }: { stage: ReceiveStage; request?: InboundRequest }): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (!request) console.warn(`[mailroom] ${message}`);
  // A handler that gives up or asks for later decided so: that is an answer, not a failure.
  else if (error instanceof NonRetryableError) console.warn(`[mailroom] handler gave up on the message (489, no retry): ${message}`);
  else if (error instanceof RetryAfterError) console.warn(`[mailroom] handler asked for a retry in ${error.seconds} s: ${message}`);
  else if (stage === 'handler') console.error(`[mailroom] handler failed: ${message}`);
  else console.warn(`[mailroom] request refused at ${stage}: ${message}`);
}

/** Nothing means 200; a string is sent as text; anything else as JSON. */
export function resultResponse(result: unknown): OutboundResponse {
  if (result === undefined || result === null) return { status: 200, headers: {}, body: '' };
  if (result === ALREADY_HANDLED) return { status: 200, headers: { [ALREADY_HANDLED_HEADER.toLowerCase()]: 'true' }, body: '' };
  if (typeof result === 'string') return textResponse(200, result);
  return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result) };
}
