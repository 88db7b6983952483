import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error';

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
