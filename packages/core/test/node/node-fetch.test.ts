import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { NetworkError, ValidationError } from '../../src/errors';
import { createTransport } from '../../src/http';
import { createMessagingClient } from '../../src/messaging';
import { createNodeFetch, type NodeFetch } from '../../src/node';

/** A server on 127.0.0.1:0 that records every request with the connection it came on. */
interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}
interface TestServer {
  url: string;
  requests: Recorded[];
  connections: Socket[];
  close(): Promise<void>;
}

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, recorded: Recorded) => void): Promise<TestServer> {
  const requests: Recorded[] = [];
  const connections: Socket[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), socket: req.socket };
      requests.push(recorded);
      handler(req, res, recorded);
    });
  });
  server.on('connection', (socket: Socket) => connections.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const test: TestServer = {
    url: `http://127.0.0.1:${port}`,
    requests,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  cleanups.push(test.close);
  return test;
}

function nodeFetch(options?: Parameters<typeof createNodeFetch>[0]): NodeFetch {
  const f = createNodeFetch(options);
  cleanups.push(() => f.close());
  return f;
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
};

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('createNodeFetch: requests and responses', () => {
  it('resolves with a real Response carrying status, status text, headers, url and the JSON body', async () => {
    const server = await serve((_req, res) => json(res, 201, { messageId: 'msg_1' }, { 'x-trace': 'abc' }));
    const response = await nodeFetch()(`${server.url}/v2/enqueue/q?x=1`, { method: 'POST', body: '{}' });
    expect(response).toBeInstanceOf(Response);
    expect(response).toMatchObject({ status: 201, statusText: 'Created', ok: true, url: `${server.url}/v2/enqueue/q?x=1`, redirected: false, type: 'basic' });
    expect(response.headers.get('x-trace')).toBe('abc');
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ messageId: 'msg_1' });
    expect(response.bodyUsed).toBe(true);
    expect(await rejection(response.text())).toBeInstanceOf(TypeError);
  });

  it('sends the method, the caller headers and the body with its length', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const f = nodeFetch();
    await f(`${server.url}/a`, { method: 'put', headers: new Headers({ 'X-One': '1', Authorization: 'Bearer t' }), body: new TextEncoder().encode('héllo') });
    await f(`${server.url}/b`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    await f(`${server.url}/c`, { method: 'POST', body: 'plain' });
    await f(`${server.url}/d`, { method: 'POST' });
    const [a, b, c, d] = server.requests;
    expect(a).toMatchObject({ method: 'PUT', url: '/a', body: 'héllo' });
    expect(a!.headers).toMatchObject({ 'x-one': '1', authorization: 'Bearer t', 'content-length': '6' });
    expect(b!.headers['content-type']).toBe('application/json');
    expect(c!.headers['content-type']).toBe('text/plain;charset=UTF-8');
    expect(d!.headers['content-length']).toBe('0');
  });

  it('reads text, arrayBuffer, bytes and blob from the buffered answer, and hands out the same bytes as a stream', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '6' });
      res.end('héllo');
    });
    const f = nodeFetch();
    expect(await (await f(server.url)).text()).toBe('héllo');
    expect(Buffer.from(await (await f(server.url)).arrayBuffer()).toString()).toBe('héllo');
    const withBytes = (await f(server.url)) as Response & { bytes(): Promise<Uint8Array> };
    expect(Buffer.from(await withBytes.bytes()).toString()).toBe('héllo');
    const blob = await (await f(server.url)).blob();
    expect(blob.type).toBe('text/plain');
    expect(await blob.text()).toBe('héllo');
    const streamed = await f(server.url);
    const reader = streamed.body!.getReader();
    const chunks: Uint8Array[] = [];
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    expect(Buffer.concat(chunks).toString()).toBe('héllo');
    expect(streamed.bodyUsed).toBe(true);
  });

  it('clones an unread answer, and refuses to clone a read one', async () => {
    const server = await serve((_req, res) => json(res, 200, { a: 1 }));
    const response = await nodeFetch()(server.url);
    const copy = response.clone();
    expect(copy).toBeInstanceOf(Response);
    expect(copy.url).toBe(response.url);
    expect(await copy.json()).toEqual({ a: 1 });
    expect(await response.json()).toEqual({ a: 1 });
    expect(() => response.clone()).toThrow(TypeError);
  });

  it('gives HEAD and 204 answers no body', async () => {
    const server = await serve((req, res) => {
      if (req.method === 'HEAD') json(res, 200, { ignored: true });
      else {
        res.writeHead(204);
        res.end();
      }
    });
    const f = nodeFetch();
    const head = await f(server.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
    const empty = await f(server.url, { method: 'DELETE' });
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
    expect(await empty.text()).toBe('');
  });

  it('streams a large answer: it resolves before the last byte is sent', async () => {
    let finish: () => void = () => {};
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': String(64 * 1024) });
      res.write(Buffer.alloc(1024, 'a'));
      finish = () => res.end(Buffer.alloc(63 * 1024, 'b'));
    });
    const response = await nodeFetch({ maxBufferedBytes: 1024 })(server.url);
    expect(response.body).toBeInstanceOf(ReadableStream);
    finish();
    const text = await response.text();
    expect(text.length).toBe(64 * 1024);
    expect(text.startsWith('a'.repeat(1024) + 'b')).toBe(true);
  });

  it('streams a chunked answer of unknown length', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"parts":');
      setTimeout(() => res.end('[1,2]}'), 10);
    });
    expect(await (await nodeFetch()(server.url)).json()).toEqual({ parts: [1, 2] });
  });

  it('decodes a gzip answer', async () => {
    const server = await serve((_req, res) => {
      const body = gzipSync('{"zipped":true}');
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) });
      res.end(body);
    });
    expect(await (await nodeFetch()(server.url, { headers: { 'accept-encoding': 'gzip' } })).json()).toEqual({ zipped: true });
  });
});

describe('createNodeFetch: connection pool', () => {
  it('reuses one keep-alive connection for sequential requests', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const f = nodeFetch();
    for (let i = 0; i < 5; i++) await (await f(server.url)).json();
    expect(server.requests).toHaveLength(5);
    expect(server.connections).toHaveLength(1);
    expect(new Set(server.requests.map((r) => r.socket)).size).toBe(1);
  });

  it('opens at most maxSockets connections and queues the rest', async () => {
    const server = await serve((_req, res) => setTimeout(() => json(res, 200, {}), 20));
    const f = nodeFetch({ maxSockets: 2 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => f(server.url).then((r) => r.status)));
    expect(answers).toEqual([200, 200, 200, 200, 200, 200]);
    expect(server.connections.length).toBe(2);
  });

  it('close() ends the pooled connections', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const f = createNodeFetch();
    await (await f(server.url)).text();
    const socket = server.connections[0]!;
    const closed = once(socket, 'close');
    f.close();
    await closed;
    expect(socket.destroyed).toBe(true);
  });

  it('retries an idempotent request once when the server resets a reused connection, but never a POST', async () => {
    const perSocket = new Map<Socket, number>();
    const server = await serve((req, res, recorded) => {
      const n = (perSocket.get(recorded.socket) ?? 0) + 1;
      perSocket.set(recorded.socket, n);
      // The second request on any connection finds it closed, as when a server times it out.
      if (n === 2) req.socket.destroy();
      else json(res, 200, { n });
    });
    const f = nodeFetch();
    await (await f(server.url)).json();
    expect(await (await f(server.url)).json()).toEqual({ n: 1 });
    expect(server.connections).toHaveLength(2);
    const error = await rejection(f(server.url, { method: 'POST', body: 'x' }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('fetch failed');
  });
});

describe('createNodeFetch: abort', () => {
  it('rejects at once with the reason of an already aborted signal, sending nothing', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const reason = new Error('stop');
    expect(await rejection(nodeFetch()(server.url, { signal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(server.requests).toHaveLength(0);
  });

  it('aborts a request waiting for its answer and closes that connection', async () => {
    const server = await serve(() => {});
    const controller = new AbortController();
    const pending = nodeFetch()(server.url, { method: 'POST', body: 'x', signal: controller.signal });
    while (server.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const closed = once(server.requests[0]!.socket, 'close');
    controller.abort();
    const error = await rejection(pending);
    expect(error).toBeInstanceOf(DOMException);
    expect((error as DOMException).name).toBe('AbortError');
    await closed;
  });

  it('aborts reading a streamed body', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write('first part');
    });
    const controller = new AbortController();
    const response = await nodeFetch()(server.url, { signal: controller.signal });
    const reading = response.text();
    const reason = new Error('enough');
    controller.abort(reason);
    expect(await rejection(reading)).toBe(reason);
  });

  it('leaves no abort listener behind on the caller signal', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const controller = new AbortController();
    let listeners = 0;
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof add>) => {
      listeners++;
      add(...args);
    }) as typeof add;
    controller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      listeners--;
      remove(...args);
    }) as typeof remove;
    const f = nodeFetch();
    for (let i = 0; i < 3; i++) await (await f(server.url, { signal: controller.signal })).json();
    expect(listeners).toBe(0);
  });
});

describe('createNodeFetch: failures', () => {
  it('turns a refused connection into TypeError("fetch failed") with the cause, and core into NetworkError', async () => {
    const server = await serve(() => {});
    const url = server.url;
    await server.close();
    const f = nodeFetch();
    const error = await rejection(f(url));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
    const transport = createTransport({ baseUrl: url, auth: { kind: 'bearer', token: 't' }, retry: false, fetch: f });
    expect(await rejection(transport.request({ method: 'GET', path: 'a' }))).toBeInstanceOf(NetworkError);
  });

  it('rejects when the server closes before the announced body arrived', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"partial":');
      setTimeout(() => res.socket?.destroy(), 5);
    });
    const error = await rejection(nodeFetch()(server.url));
    expect(error).toBeInstanceOf(TypeError);
  });

  it('refuses what fetch refuses, before sending anything', async () => {
    const server = await serve((_req, res) => json(res, 200, {}));
    const f = nodeFetch();
    await expect(f(server.url, { method: 'GET', body: 'x' })).rejects.toThrow(TypeError);
    await expect(f('ftp://127.0.0.1/x')).rejects.toThrow(TypeError);
    await expect(f('not a url')).rejects.toThrow(TypeError);
    await expect(f(server.url.replace('http://', 'http://user:pass@'))).rejects.toThrow(TypeError);
    await expect(f(server.url, { method: 'CONNECT' })).rejects.toThrow(TypeError);
    await expect(f(server.url, { method: 'POST', body: new ReadableStream() as unknown as string })).rejects.toThrow(/serialise streams/);
    expect(server.requests).toHaveLength(0);
  });

  it('validates its options', () => {
    expect(() => createNodeFetch({ maxSockets: 0 })).toThrow(ValidationError);
    expect(() => createNodeFetch({ maxSockets: 1.5 })).toThrow(/maxSockets/);
    expect(() => createNodeFetch({ idleTimeoutMs: -1 })).toThrow(/idleTimeoutMs/);
    expect(() => createNodeFetch({ maxBufferedBytes: Number.NaN })).toThrow(/maxBufferedBytes/);
    expect(() => createNodeFetch({ agents: { http: {} as never } })).toThrow(/agents.http/);
    expect(() => createNodeFetch(null as never)).toThrow(ValidationError);
  });
});

describe('createNodeFetch: redirects', () => {
  it('follows a 303 as a GET without the body, and marks the answer redirected', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/from') {
        res.writeHead(303, { location: '/to' });
        res.end();
      } else json(res, 200, { at: req.url, method: req.method });
    });
    const response = await nodeFetch()(`${server.url}/from`, { method: 'POST', body: 'x' });
    expect(await response.json()).toEqual({ at: '/to', method: 'GET' });
    expect(response).toMatchObject({ redirected: true, url: `${server.url}/to` });
  });

  it('keeps method and body on a 307, and drops Authorization when the origin changes', async () => {
    const target = await serve((req, res, recorded) => json(res, 200, { method: req.method, body: recorded.body, auth: req.headers.authorization ?? null }));
    const source = await serve((_req, res) => {
      res.writeHead(307, { location: `${target.url}/x` });
      res.end();
    });
    const response = await nodeFetch()(source.url, { method: 'POST', body: 'payload', headers: { authorization: 'Bearer secret' } });
    expect(await response.json()).toEqual({ method: 'POST', body: 'payload', auth: null });
  });

  it('returns the redirect itself with redirect: "manual", and fails with redirect: "error"', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    });
    const f = nodeFetch();
    const manual = await f(server.url, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/elsewhere');
    await expect(f(server.url, { redirect: 'error' })).rejects.toThrow(TypeError);
  });
});

describe('createNodeFetch under the messaging client', () => {
  it('is selected with the fetch option and carries an enqueue end to end', async () => {
    const server = await serve((_req, res) => json(res, 201, { messageId: 'msg_9' }));
    const client = createMessagingClient({ baseUrl: server.url, token: 'tok', env: {}, fetch: nodeFetch() });
    const result = await client.enqueueJSON({ queue: 'orders', destination: 'https://app.test/hook', body: { a: 1 } });
    expect(result).toEqual({ messageId: 'msg_9' });
    expect(server.requests[0]).toMatchObject({ method: 'POST', url: '/v2/enqueue/orders/https://app.test/hook', body: '{"a":1}' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer tok');
  });
});
