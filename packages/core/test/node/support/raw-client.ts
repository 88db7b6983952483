/**
 * Clients that do what fetch will not: send bytes without a Content-Type, chunked bodies written
 * piece by piece, slow senders, endless bodies, and connections destroyed mid-body.
 */
import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';

export interface ClientResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface SendOptions {
  method?: string;
  path?: string;
  headers?: OutgoingHttpHeaders;
  /** Written one after another; without a content-length header the body goes out chunked. */
  chunks?: Array<string | Uint8Array>;
  /** Pause between chunks, to imitate a slow sender. */
  delayMs?: number;
}

/** One request over a fresh connection (no keep-alive agent). */
export function send(port: number, options: SendOptions = {}): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path ?? '/', headers: options.headers, agent: false },
      (res) => collect(res, resolve, reject),
    );
    req.on('error', reject);
    void writeChunks(req, options.chunks ?? [], options.delayMs ?? 0).then(() => req.end(), reject);
  });
}

/**
 * Streams `chunk` (chunked encoding, no Content-Length) until the server answers or `maxBytes` is
 * written, then stops. Resolves with the answer and how many bytes the client got out.
 */
export function sendEndless(
  port: number,
  chunk: Uint8Array,
  maxBytes: number,
): Promise<ClientResponse & { written: number; answeredWhileSending: boolean }> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let answered = false;
    const req = request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { 'content-type': 'application/octet-stream' } },
      (res) => {
        answered = true;
        const answeredWhileSending = written < maxBytes;
        collect(
          res,
          (response) => {
            req.destroy();
            resolve({ ...response, written, answeredWhileSending });
          },
          reject,
        );
      },
    );
    // Once the server has answered and closed, further writes may fail; that is expected here.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = (): void => {
      while (!answered && written < maxBytes) {
        written += chunk.byteLength;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/**
 * Sends raw HTTP/1.1 text (headers and part of a body) over a plain socket, then destroys it after
 * `destroyAfterMs`, like a client that crashes mid-upload.
 */
export function sendThenDestroy(port: number, head: string, bodyPart: Uint8Array | string, destroyAfterMs = 20): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      socket.write(bodyPart);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, destroyAfterMs);
    });
    socket.on('error', reject);
  });
}

async function writeChunks(req: ReturnType<typeof request>, chunks: Array<string | Uint8Array>, delayMs: number): Promise<void> {
  for (const chunk of chunks) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!req.write(chunk)) await new Promise((resolve) => req.once('drain', resolve));
  }
}

function collect(
  res: import('node:http').IncomingMessage,
  resolve: (response: ClientResponse) => void,
  reject: (error: Error) => void,
): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
  res.on('error', reject);
}
