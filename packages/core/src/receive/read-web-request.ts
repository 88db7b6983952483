import { BodyReadError, BodyTooLargeError } from '../errors/body-errors';
import type { InboundRequest } from './inbound-request';

/**
 * Turns a Web `Request` into the pipeline's input, reading the body once and stopping as soon as it
 * passes the limit, so an oversized body is never buffered whole.
 */
export async function readWebRequest(request: Request, maxBodyBytes: number): Promise<InboundRequest> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBodyBytes) throw new BodyTooLargeError(maxBodyBytes);
  return { method: request.method, url: request.url, headers: request.headers, rawBody: await readLimited(request, maxBodyBytes) };
}

async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
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
  // null: a string, even '', makes the Response build a ReadableStream (about a sixth of an App Router
  // delivery's cost, profiled) and adds a text/plain content type, which the Node path never sends.
  const body = out.status === 204 || out.status === 304 || out.body === '' ? null : out.body;
  // No headers at all for the plain 200: an empty record still makes the Response fill a Headers
  // object from it (over half again the cost of the Response itself).
  return new Response(body, hasAny(out.headers) ? { status: out.status, headers: out.headers } : { status: out.status });
}

function hasAny(record: Record<string, string>): boolean {
  for (const _name in record) return true;
  return false;
}
