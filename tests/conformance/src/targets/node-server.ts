import { createServer, request as httpRequest, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningTarget, TargetRequest, TargetResponse } from '../target';

// A Node server on port 0 and a client that sends exactly the suite's bytes and headers (fetch would
// add headers that then show up as forwarded ones). Shared by every Node-based target.
/** Serves `listener` on 127.0.0.1, port 0, and talks to it with `node:http` (no headers added beyond framing). */
export async function serveOnPort0(listener: RequestListener): Promise<RunningTarget> {
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    send: (request) => sendOverHttp(origin, request),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// `fetch` would add Accept, User-Agent, Sec-Fetch-Mode... which a handler would see as forwarded
// headers; `node:http` adds only Host, Connection and Content-Length.
export function sendOverHttp(origin: string, request: TargetRequest): Promise<TargetResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${origin}${request.path}`, { method: request.method, headers: request.headers, agent: false }, (res) => {
      readAll(res).then((body) => resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res), body }), reject);
    });
    outgoing.on('error', reject);
    outgoing.end(Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength));
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function flatHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
