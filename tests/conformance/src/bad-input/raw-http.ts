import { connect, type Socket } from 'node:net';

// A client over a bare `net` socket, for traffic no HTTP client will send: bodies shorter than their
// Content-Length, endless chunked bodies, a byte every few milliseconds, thousands of headers.
// It writes exactly the bytes it is given and reads whatever comes back until the server closes.

/** What came back on the connection, if anything. */
export interface RawResponse {
  /** The status of the first response, `undefined` when none arrived. */
  status: number | undefined;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
  /** Who ended the exchange: the server closed, the client gave up waiting, or the connection broke. */
  ended: 'complete' | 'server-closed' | 'client-timeout' | 'error';
  /** The socket error, when the connection broke (ECONNRESET, EPIPE). */
  error?: string;
}

/** One step of a raw exchange, done in order while the response is read in parallel. */
export type Step =
  | { write: string | Uint8Array }
  /** Writes the bytes one at a time, `everyMs` apart: a slow sender. */
  | { drip: string | Uint8Array; everyMs: number }
  | { wait: number }
  /** Half-closes: the client sends FIN but keeps reading. */
  | { end: true }
  /** Closes at once without waiting for any answer. */
  | { destroy: true };

export interface RawOptions {
  /** Give up on an answer after this long. Default 5 s. */
  timeoutMs?: number;
}

/** Connects to `origin` (`http://127.0.0.1:port`), runs `steps`, and resolves with what came back. */
export function rawExchange(origin: string, steps: readonly Step[], options: RawOptions = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const reader = responseReader(socket, options.timeoutMs ?? 5_000, resolve);
    socket.once('connect', () => {
      void runSteps(socket, steps, reader.isDone).catch(() => {});
    });
  });
}

/**
 * Streams a chunked body of `chunkSize`-byte chunks after `head` until the server answers or closes,
 * or `maxBytes` have been written; then, if the connection is still open, ends the body properly
 * and waits for the answer. `written` is how much of the body the client got out (kernel buffers
 * included, so it says little about what the server read: meter the server side for that).
 */
export function streamUntilAnswered(
  origin: string,
  head: string,
  { chunkSize, maxBytes, timeoutMs = 15_000 }: { chunkSize: number; maxBytes: number; timeoutMs?: number },
): Promise<RawResponse & { written: number }> {
  const { hostname, port } = new URL(origin);
  const chunk = Buffer.concat([Buffer.from(`${chunkSize.toString(16)}\r\n`), Buffer.alloc(chunkSize, 0x61), Buffer.from('\r\n')]);
  return new Promise((resolve) => {
    let written = 0;
    const socket = connect(Number(port), hostname);
    const reader = responseReader(socket, timeoutMs, (response) => resolve({ ...response, written }));
    const pump = (): void => {
      while (!reader.isDone() && !reader.answered() && !socket.destroyed && written < maxBytes) {
        written += chunkSize;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      if (!reader.isDone() && !reader.answered() && !socket.destroyed) socket.write('0\r\n\r\n');
    };
    socket.on('error', () => {});
    socket.once('connect', () => {
      socket.write(head);
      pump();
    });
  });
}

async function runSteps(socket: Socket, steps: readonly Step[], done: () => boolean): Promise<void> {
  for (const step of steps) {
    if (done() || socket.destroyed) return;
    if ('write' in step) {
      await write(socket, step.write);
    } else if ('drip' in step) {
      const bytes = typeof step.drip === 'string' ? Buffer.from(step.drip, 'utf8') : Buffer.from(step.drip);
      for (const byte of bytes) {
        if (done() || socket.destroyed) return;
        await write(socket, Buffer.from([byte]));
        await sleep(step.everyMs);
      }
    } else if ('wait' in step) {
      await sleep(step.wait);
    } else if ('end' in step) {
      socket.end();
    } else {
      socket.destroy();
    }
  }
}

function write(socket: Socket, data: string | Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    // An error here (the server already answered and closed) ends the steps via `done`/`destroyed`.
    socket.write(data, () => resolve());
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

interface Reader {
  /** The exchange is over and the promise resolved. */
  isDone: () => boolean;
  /** At least the status line and headers of an answer arrived. */
  answered: () => boolean;
}

/** Collects the answer on `socket` and resolves once it is complete, the socket closes or time runs out. */
function responseReader(socket: Socket, timeoutMs: number, resolve: (response: RawResponse) => void): Reader {
  const chunks: Buffer[] = [];
  let done = false;
  let error: string | undefined;
  let parsed: { status: number; headers: Record<string, string>; bodyStart: number } | undefined;

  const finish = (ended: RawResponse['ended']): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    const all = Buffer.concat(chunks);
    const response = parse(all);
    socket.destroy();
    resolve({
      status: response?.status,
      headers: response?.headers ?? {},
      body: response ? all.subarray(response.bodyStart).toString('utf8') : '',
      ended,
      ...(error !== undefined ? { error } : {}),
    });
  };
  const timer = setTimeout(() => finish('client-timeout'), timeoutMs);

  socket.on('data', (data: Buffer) => {
    chunks.push(data);
    const all = Buffer.concat(chunks);
    parsed ??= parse(all);
    const length = parsed ? Number(parsed.headers['content-length'] ?? Number.NaN) : Number.NaN;
    if (parsed && Number.isFinite(length) && all.byteLength - parsed.bodyStart >= length) finish('complete');
  });
  socket.on('error', (cause: NodeJS.ErrnoException) => {
    error = cause.code ?? cause.message;
    // A reset after the answer arrived is the normal end of a refused upload.
    finish(parsed ? 'server-closed' : 'error');
  });
  socket.on('close', () => finish('server-closed'));
  return { isDone: () => done, answered: () => parsed !== undefined };
}

function parse(data: Buffer): { status: number; headers: Record<string, string>; bodyStart: number } | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  if (!Number.isFinite(status)) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, bodyStart: end + 4 };
}

/** The request line and headers as raw HTTP/1.1 text, ending with the blank line. */
export function requestHead(method: string, path: string, headers: ReadonlyArray<readonly [string, string]>): string {
  return `${method} ${path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
}
