/**
 * A real HTTP server on 127.0.0.1, port 0, for testing clients through real sockets (never a mocked
 * fetch). It records every request exactly as it arrived and answers from a queue of replies, falling
 * back to a routing function.
 *
 * @example
 * const stub = await startStubServer();
 * afterEach(() => stub.close());
 *
 * stub.reply({ status: 429, headers: { 'Retry-After': '1' }, json: { error: 'slow down' } }, { json: { ok: true } });
 * stub.handle((req) => (req.path === '/v2/topics' ? { json: [] } : { status: 404, json: { error: 'nope' } }));
 * stub.reply({ reset: true });       // destroy the socket: the client sees a connection reset
 * stub.reply({ hang: true });        // never answer: for timeout and abort tests
 * stub.reply({ json: {}, delayMs: 100 });
 *
 * await client.doSomething(stub.url);
 * expect(stub.requests[0]).toMatchObject({ method: 'POST', path: '/v2/topics/a%20b', query: { x: '1' } });
 * expect(stub.requests[0]?.headers.authorization).toBe('Bearer token');
 * expect(stub.requests[0]?.json()).toEqual({ endpoints: [] });
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server received it. */
interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent, still percent-encoded: `/v2/topics/a%20b?x=1`. */
  url: string;
  /** The path part of `url`, still percent-encoded. */
  path: string;
  /** The query part of `url` without `?`, exactly as sent ('' when none). */
  rawQuery: string;
  /** The decoded query; a name given more than once maps to an array of its values. */
  query: Record<string, string | string[]>;
  /** Header names lower-cased; a repeated header's values joined with ', ' (Node's rule). */
  headers: Record<string, string>;
  /** `[name, value, name, value, ...]` in arrival order with the sender's casing. */
  rawHeaders: string[];
  /** The exact body bytes (empty when none). */
  body: Uint8Array;
  /** The body decoded as UTF-8. */
  text: string;
  /** The body parsed as JSON; throws, naming the request, when it is not JSON. */
  json(): unknown;
}

/** An HTTP answer. `json` is serialised and sets `Content-Type: application/json` unless given. */
export interface StubResponse {
  /** Default 200. */
  status?: number;
  statusText?: string;
  headers?: Record<string, string | readonly string[]>;
  body?: string | Uint8Array;
  json?: unknown;
  /** Wait this long before answering (a real timer on the server side). */
  delayMs?: number;
}

/**
 * What to do with one request: answer it, destroy its socket (`reset`: the client sees a network
 * error), or never answer (`hang`, until the client gives up or the stub closes).
 */
export type StubReply = StubResponse | { reset: true; delayMs?: number } | { hang: true };

/** Computes the reply for a request; may be async. */
type StubHandler = (request: RecordedRequest) => StubReply | Promise<StubReply>;

export interface StubServer {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  /** Every request received so far, oldest first (live array). */
  readonly requests: readonly RecordedRequest[];
  /** Replies still queued. */
  readonly pending: number;
  /** Queues replies, used one per request in order, before the handler is consulted. */
  reply(...replies: StubReply[]): StubServer;
  /** Sets the fallback used once the queue is empty. Without one, requests get 501 with a message. */
  handle(handler: StubHandler): StubServer;
  /** Resolves once at least `count` requests have been recorded. */
  waitForRequests(count: number): Promise<readonly RecordedRequest[]>;
  /** Forgets recorded requests, queued replies and the handler. */
  clear(): void;
  /** Stops the server, destroying open connections (hung requests included) and pending delays. */
  close(): Promise<void>;
}

export interface StubServerOptions {
  handler?: StubHandler;
}

/** Starts a stub server; see the file comment for an example. */
export async function startStubServer(options: StubServerOptions = {}): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  const queue: StubReply[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const waiters: Array<{ count: number; resolve: () => void; reject: (error: Error) => void }> = [];
  let handler: StubHandler | undefined = options.handler;
  let closed = false;

  const server = createServer((req, res) => {
    void serve(req, res);
  });

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body: Uint8Array;
    try {
      body = await readBody(req);
    } catch {
      return; // the client went away while sending; nothing to record or answer
    }
    const recorded = recordRequest(req, body);
    requests.push(recorded);
    notifyWaiters();
    let reply: StubReply;
    try {
      reply = queue.shift() ?? (handler ? await handler(recorded) : noReplyConfigured(recorded));
    } catch (error) {
      // 501, not 500: a retrying client would otherwise hide the mistake behind its retries.
      reply = { status: 501, json: { error: `stub-server: handler threw: ${(error as Error).message}` } };
    }
    await perform(reply, req, res);
  }

  async function perform(reply: StubReply, req: IncomingMessage, res: ServerResponse): Promise<void> {
    if ('hang' in reply) return; // close() destroys the socket
    if (reply.delayMs) await delay(reply.delayMs);
    if (res.destroyed || closed) return;
    if ('reset' in reply) {
      req.socket.destroy();
      return;
    }
    writeResponse(res, reply);
  }

  function delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });
  }

  function notifyWaiters(): void {
    for (const waiter of [...waiters]) {
      if (requests.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const stub: StubServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    get pending() {
      return queue.length;
    },
    reply(...replies) {
      queue.push(...replies);
      return stub;
    },
    handle(next) {
      handler = next;
      return stub;
    },
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve(requests);
      if (closed) return Promise.reject(new Error('stub-server: closed'));
      return new Promise((resolve, reject) => {
        waiters.push({ count, resolve: () => resolve(requests), reject });
      });
    },
    clear() {
      requests.length = 0;
      queue.length = 0;
      handler = options.handler;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const waiter of waiters.splice(0)) {
        waiter.reject(new Error(`stub-server: closed with ${requests.length} of ${waiter.count} awaited requests`));
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive and hung connections would otherwise hold close() open.
      server.closeAllConnections();
      await stopped;
    },
  };
  return stub;
}

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on('error', reject);
  });
}

function recordRequest(req: IncomingMessage, body: Uint8Array): RecordedRequest {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const rawQuery = queryAt === -1 ? '' : url.slice(queryAt + 1);
  const text = new TextDecoder().decode(body);
  const method = req.method ?? 'GET';
  return {
    method,
    url,
    path,
    rawQuery,
    query: parseQuery(rawQuery),
    headers: flattenHeaders(req),
    rawHeaders: [...req.rawHeaders],
    body,
    text,
    json() {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new Error(`stub-server: body of ${method} ${url} is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
      }
    },
  };
}

function parseQuery(rawQuery: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    const seen = query[name];
    if (seen === undefined) query[name] = value;
    else query[name] = Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function noReplyConfigured(request: RecordedRequest): StubResponse {
  return { status: 501, json: { error: `stub-server: no reply queued and no handler for ${request.method} ${request.url}` } };
}

function writeResponse(res: ServerResponse, reply: StubResponse): void {
  const headers = new Map<string, string | readonly string[]>(Object.entries(reply.headers ?? {}));
  const hasHeader = (name: string): boolean => [...headers.keys()].some((key) => key.toLowerCase() === name);
  let body: string | Uint8Array = reply.body ?? '';
  if (reply.json !== undefined) {
    body = JSON.stringify(reply.json);
    if (!hasHeader('content-type')) headers.set('Content-Type', 'application/json');
  } else if (typeof body === 'string' && body !== '' && !hasHeader('content-type')) {
    headers.set('Content-Type', 'text/plain; charset=utf-8');
  }
  res.statusCode = reply.status ?? 200;
  if (reply.statusText !== undefined) res.statusMessage = reply.statusText;
  for (const [name, value] of headers) res.setHeader(name, value as string | string[]);
  res.end(body);
}
