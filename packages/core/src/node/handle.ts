import type { Endpoint } from '../receive/create-receiver';
import type { InboundRequest, OutboundResponse } from '../receive/receiver-options';
import type { MaybePromise } from '../maybe-promise';
import { readInboundNow } from './read';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How a Node framework names the request URL and explains a body its parser already consumed. */
export interface HandleNodeRequestOptions {
  /** The URL as the app sees it, mount path included (Express: `req.originalUrl`). Default `req.url`. */
  url?: string;
  /** The framework's own fix when a parser ate the body (ends the 500's message). */
  consumedHint?: string;
  /** Handed to the handler as its second argument (Fastify: `{ request, reply }`). */
  context?: unknown;
}

/**
 * The whole Node side of one delivery: exact bytes in as `readInbound` reads them (limit enforced while
 * streaming), the endpoint's pipeline, and one answer. A failure while reading maps to the same
 * statuses as failures inside the pipeline, so 413, 400 and the fix-it 500 read alike in every adapter.
 *
 * @example
 * const out = await handleNodeRequest(endpoint, req, { url: req.originalUrl });
 * writeOutbound(res, out);
 */
export function handleNodeRequest(
  endpoint: Endpoint,
  req: IncomingMessage,
  options: HandleNodeRequestOptions = {},
): Promise<OutboundResponse> {
  return Promise.resolve(respondToNodeRequest(endpoint, req, options));
}

/** What to do with a crashed handler's error instead of answering 500 (Express: its `next`). */
export interface ServeNodeRequestOptions extends HandleNodeRequestOptions {
  /** Called with the handler's error, and nothing is written: the framework's error path answers. */
  forwardError?: ((error: unknown) => void) | undefined;
}

/**
 * {@link handleNodeRequest} and {@link writeOutbound} in one: reads, runs the pipeline and writes the
 * answer. It returns a promise only when something had to wait (the body still streaming in, an async
 * handler), so a delivery whose every step is synchronous is answered in the tick its body arrived.
 * Never rejects for the delivery's own failures (they are answers); a throw or rejection means
 * writing to `res` itself failed, which the framework should handle as any other error.
 *
 * @example
 * app.post('/orders', (req, res, next) => serveNodeRequest(endpoint, req, res, { url: req.originalUrl })?.catch(next));
 */
export function serveNodeRequest(
  endpoint: Endpoint,
  req: IncomingMessage,
  res: ServerResponse,
  options: ServeNodeRequestOptions = {},
): Promise<void> | undefined {
  const { forwardError } = options;
  const answer = (out: OutboundResponse): void => {
    if (forwardError && out.error) forwardError(out.error);
    else writeOutbound(res, out);
  };
  const out = respondToNodeRequest(endpoint, req, options);
  if (out instanceof Promise) return out.then(answer);
  answer(out);
  return undefined;
}

function respondToNodeRequest(endpoint: Endpoint, req: IncomingMessage, options: HandleNodeRequestOptions): MaybePromise<OutboundResponse> {
  const url = options.url ?? req.url;
  const readFailed = (error: unknown): OutboundResponse =>
    endpoint.errorResponse(error, {
      method: req.method ?? 'GET',
      ...(url !== undefined ? { url } : {}),
      headers: req.headers,
      rawBody: new Uint8Array(0),
    });
  let read: MaybePromise<InboundRequest>;
  try {
    read = readInboundNow(req, { maxBodyBytes: endpoint.maxBodyBytes, url, consumedHint: options.consumedHint });
  } catch (error) {
    return readFailed(error);
  }
  const respond = (input: InboundRequest): MaybePromise<OutboundResponse> => {
    if (options.context !== undefined) input.context = options.context;
    return endpoint.respond(input);
  };
  return read instanceof Promise ? read.then(respond, readFailed) : respond(read);
}

/**
 * Copies the pipeline's answer onto a Node `ServerResponse`: status, headers, and the body as UTF-8
 * with a `Content-Length` of its byte length. Safe to call late or twice: once headers are out it
 * only ends the response, and an ended or destroyed response is left alone.
 *
 * When the request body was not read to its end (a 413 answered mid-stream or from Content-Length),
 * it also sends `Connection: close`: the rest of the body is still on the wire, so the connection
 * cannot carry another request, and Node closes it once this response is flushed.
 *
 * @example
 * writeOutbound(res, { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
 */
export function writeOutbound(res: ServerResponse, out: OutboundResponse): void {
  if (res.writableEnded || res.destroyed) return;
  if (res.headersSent) {
    res.end();
    return;
  }
  res.statusCode = out.status;
  const { headers } = out;
  for (const name in headers) res.setHeader(name, headers[name]!);
  if (bodyLeftUnread(res.req)) res.setHeader('Connection', 'close');
  if (!statusAllowsBody(out.status)) {
    // RFC 9110: 1xx, 204 and 304 carry no content, and 204 must not send Content-Length.
    res.removeHeader('Content-Length');
    res.end();
    return;
  }
  if (out.body === '') {
    // No chunk at all: Node then writes `Content-Length: 0` itself, with the head, in one plain write
    // (a chunk, even empty, goes through writev; a hand-set length makes Node re-check every header).
    // So it is set only to overwrite a wrong length given in the headers, and for HEAD.
    if (res.hasHeader('content-length') || res.req?.method === 'HEAD') res.setHeader('Content-Length', 0);
    res.end();
    return;
  }
  // Counted in bytes, never from the string length: a multi-byte character would truncate the body.
  // The string itself is handed over (not a Buffer) so Node writes it in the same chunk as the head.
  res.setHeader('Content-Length', Buffer.byteLength(out.body, 'utf8'));
  res.end(out.body, 'utf8');
}

function statusAllowsBody(status: number): boolean {
  return status >= 200 && status !== 204 && status !== 304;
}

// Someone started reading but stopped (size limit, abort), or the body has not fully arrived yet.
function bodyLeftUnread(req: IncomingMessage | undefined): boolean {
  if (!req || req.readableEnded) return false;
  return req.readableDidRead || !req.complete;
}
