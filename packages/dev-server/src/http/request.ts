import type { IncomingMessage } from 'node:http';
import { badRequest, ServiceError } from '../errors';

// The request a route handler sees, whatever carried it: its method, target, headers, caller, and a
// body read to a limit.

/** One request to the service. */
export interface ServiceRequest {
  method: string;
  /** Path and query exactly as sent. */
  target: string;
  /** Lower-case names; a repeated header's values joined with `, ` (Node's rule). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** `[name, value, ...]` as sent. */
  rawHeaders: readonly string[];
  /** The sender's address, without the IPv4-mapped IPv6 prefix Node reports on dual-stack sockets. */
  callerIp: string;
  /**
   * The whole body, refused beyond `limit` bytes with `tooLarge()`: a declared length over it before a
   * byte is read, and reading stops at the limit, so a huge body cannot exhaust memory.
   */
  body(limit: number, tooLarge: () => ServiceError): Promise<Buffer>;
}

/** A request that came over a socket. */
export function fromNode(req: IncomingMessage): ServiceRequest {
  return {
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    callerIp: (req.socket.remoteAddress ?? '').replace(/^::ffff:/, ''),
    body: (limit, tooLarge) => readNodeBody(req, limit, tooLarge),
  };
}

/** A JSON body (1 MiB at most), `undefined` when empty, or 400 naming what is wrong. */
export async function readJson(request: ServiceRequest): Promise<unknown> {
  const body = await request.body(1_048_576, () => badRequest('request body too large'));
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('request body is not valid JSON');
  }
}

function readNodeBody(req: IncomingMessage, limit: number, tooLarge: () => ServiceError): Promise<Buffer> {
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
      if (!failed) reject(new ServiceError(400, 'request body cut short: the client closed the connection'));
      failed = true;
    };
    req.on('error', cutShort);
    req.on('aborted', cutShort);
  });
}
