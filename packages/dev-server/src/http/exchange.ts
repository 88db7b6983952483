// What a route handler trades with the HTTP layer: the request body it reads, the reply it returns,
// and the HttpError it throws, each written once as the service writes them.
import type { ServerResponse, IncomingMessage } from 'node:http';

/**
 * An answer other than success, thrown from anywhere in a handler and written once as the service
 * writes errors: `{"error": "<message>"}` with the status of service-facts (400, 401, 403, 404, 412).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.headers = headers;
  }
}

/** 400 with a message. */
export const badRequest = (message: string): HttpError => new HttpError(400, message);
/** 404 with a message. */
export const notFound = (message: string): HttpError => new HttpError(404, message);
/** 412: a plan limit is exceeded. */
export const planLimit = (message: string): HttpError => new HttpError(412, message);

/** What a handler answers: a JSON value, or nothing (200 with an empty body, as the service does for writes). */
export interface Reply {
  status?: number;
  json?: unknown;
  headers?: Record<string, string>;
}

/** A 200 with a JSON body. */
export const json = (value: unknown): Reply => ({ json: value });
/** A 200 with an empty body. */
export const empty = (): Reply => ({});

/** Writes a reply. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const body = reply.json === undefined ? '' : JSON.stringify(reply.json);
  // Built by assignment rather than spreads: this runs for every enqueue.
  const headers: Record<string, string> = {};
  if (reply.json !== undefined) headers['Content-Type'] = 'application/json';
  headers['Content-Length'] = String(Buffer.byteLength(body));
  if (reply.headers) Object.assign(headers, reply.headers);
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

/** Writes `{"error": message}` with `status`. */
export function writeError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  writeReply(res, { status, json: { error: message }, headers });
}

/**
 * The whole request body, refusing more than `limit` bytes with `status` (412 where the limit is
 * the plan's message size). Reading stops at the limit, so a huge body cannot exhaust memory.
 */
export function readBody(req: IncomingMessage, limit: number, tooLarge: () => HttpError): Promise<Buffer> {
  // A declared length over the limit is refused before a byte is read.
  if (Number(req.headers['content-length']) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    // A client that goes away mid-upload is its own failure, not the server's: a 400 nobody reads.
    const cutShort = () => {
      if (!failed) reject(new HttpError(400, 'request body cut short: the client closed the connection'));
      failed = true;
    };
    req.on('error', cutShort);
    req.on('aborted', cutShort);
  });
}

/** A JSON body (1 MiB at most), or 400 naming what is wrong. */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const body = await readBody(req, 1_048_576, () => new HttpError(400, 'request body too large'));
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new HttpError(400, 'request body is not valid JSON');
  }
}
