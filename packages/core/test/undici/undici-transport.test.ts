import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  ValidationError,
  createManagementClient,
  createMessagingClient,
} from '../../src';
import { createRequester, type RequesterOptions } from '../../src/http';
import { createUndiciTransport, type UndiciTransport } from '../../src/undici';
import { enqueueResult } from '../schemas/fixtures';
import { startStubServer, type StubServer } from '../support/stub-server';
import { rejectionOf, recordingSleep } from '../http/transport-fixture';

let stub: StubServer;
let undici: UndiciTransport;
beforeEach(async () => {
  stub = await startStubServer();
  undici = createUndiciTransport();
});
afterEach(async () => {
  await stub.close();
  await undici.close();
});

/** A bearer transport over undici aimed at the stub, never sleeping for backoff. */
function transportFor(overrides: Partial<RequesterOptions> = {}) {
  const { sleep, delays } = recordingSleep();
  const transport = createRequester({
    baseUrl: stub.url,
    auth: { kind: 'bearer', token: 'test-token' },
    transport: undici,
    sleep,
    random: () => 0.5,
    ...overrides,
  });
  return { transport, delays };
}

function clientFor(options: Parameters<typeof createMessagingClient>[0] = {}) {
  const { sleep, delays } = recordingSleep();
  const client = createMessagingClient({
    baseUrl: stub.url,
    token: 'test-token',
    env: {},
    transport: undici,
    sleep,
    random: () => 0.5,
    ...options,
  });
  return { client, delays };
}

/** A bare node:http server on port 0 for answers the stub cannot give (stalls, redirects). */
async function rawServer(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

describe('success', () => {
  it('sends an enqueue with the path, headers and exact body, and returns the message id', async () => {
    stub.reply({ status: 201, json: enqueueResult });
    const { client } = clientFor({ userAgent: 'bench/1.0' });
    const result = await client.enqueueJSON({
      queue: 'orders',
      destination: 'https://app.test/hook?x=1',
      body: { id: 'ö-1' },
      retries: 2,
      headers: { 'X-Tenant': 'acme' },
    });
    expect(result).toEqual(enqueueResult);
    const [recorded] = stub.requests;
    expect(recorded).toMatchObject({ method: 'POST', url: '/v2/enqueue/orders/https://app.test/hook?x=1' });
    expect(recorded?.json()).toEqual({ id: 'ö-1' });
    expect(recorded?.headers).toMatchObject({
      authorization: 'Bearer test-token',
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': 'bench/1.0',
      'service-retries': '2',
      'service-forward-x-tenant': 'acme',
    });
    expect(recorded?.headers['accept-encoding']).toBeUndefined();
  });

  it('sends bytes as they are, a query, and no body at all when there is none', async () => {
    stub.reply({ status: 200 }, { json: [] });
    const { transport } = transportFor();
    await transport.request({ method: 'POST', path: 'bytes', body: new Uint8Array([0, 255, 10]) });
    await transport.request({ method: 'GET', path: ['v2', 'topics'], query: { cursor: 'a b' } });
    expect([...(stub.requests[0]?.body ?? [])]).toEqual([0, 255, 10]);
    expect(stub.requests[1]).toMatchObject({ url: '/v2/topics?cursor=a%20b', body: new Uint8Array() });
  });

  it('reads an empty answer, a large one in many chunks and a UTF-8 BOM as fetch does', async () => {
    const big = 'é'.repeat(200_000);
    stub.reply({ status: 204 }, { json: { big } }, { body: '\ufeff{"messageId":"m"}', headers: { 'content-type': 'application/json' } });
    const { transport } = transportFor();
    expect(await transport.request({ method: 'DELETE', path: 'a' })).toMatchObject({ status: 204, text: '' });
    expect(await transport.requestJson({ method: 'GET', path: 'b' }, (v) => v)).toEqual({ big });
    expect(await transport.requestJson({ method: 'GET', path: 'c' }, (v) => v)).toEqual({ messageId: 'm' });
  });

  it('gives the answer’s headers when asked', async () => {
    stub.reply({ headers: { 'X-Trace': ['a', 'b'] }, json: {} });
    const response = await transportFor().transport.request({ method: 'GET', path: 'a' });
    expect(response.headers.get('x-trace')).toBe('a, b');
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('keeps its connections alive for the next request', async () => {
    const single = createUndiciTransport({ connections: 1 });
    const ports = new Set<number>();
    const server = await rawServer((req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(enqueueResult));
    });
    try {
      const transport = createRequester({ baseUrl: server.url, auth: { kind: 'bearer', token: 't' }, transport: single });
      for (let i = 0; i < 5; i++) await transport.request({ method: 'GET', path: 'a' });
    } finally {
      await single.close();
      await server.close();
    }
    expect(ports.size).toBe(1);
  });

  it('works for the management client and with a dispatcher of your own', async () => {
    stub.reply({ json: [] }, { json: enqueueResult });
    const pool = new Pool(stub.url, { connections: 2 });
    const own = createUndiciTransport({ dispatcher: pool });
    try {
      const management = createManagementClient({ baseUrl: `${stub.url}/v2`, user: 'me@x.test', password: 'key', env: {}, transport: own });
      expect(await management.users()).toEqual([]);
      const { client } = clientFor({ transport: own });
      expect(await client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' })).toEqual(enqueueResult);
      await own.close(); // leaves a dispatcher that is not its own open
      expect(pool.closed).toBe(false);
      expect(stub.requests[0]?.headers.authorization).toMatch(/^Basic /);
    } finally {
      await pool.close();
    }
  });
});

describe('typed errors', () => {
  it.each([
    [401, AuthError],
    [403, AuthError],
    [404, NotFoundError],
    [400, ApiError],
  ])('maps %i to its error class with the service message', async (status, ErrorClass) => {
    stub.reply({ status, json: { error: `failed with ${status}` } });
    const error = await rejectionOf(clientFor().client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' }));
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as Error).message).toContain(`failed with ${status}`);
  });

  it('reads a 429’s rate-limit headers and honours Retry-After before retrying', async () => {
    stub.reply({ status: 429, headers: { 'Retry-After': '2' }, json: { error: 'slow down' } }, { json: enqueueResult });
    const { client, delays } = clientFor();
    await client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x', deduplicationId: 'd-1' });
    expect(delays).toEqual([2000]);
    stub.reply({
      status: 429,
      headers: { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '0', 'RateLimit-Reset': '4102444800' },
      json: { error: 'daily' },
    });
    const error = await rejectionOf(
      clientFor({ retry: false }).client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' }),
    );
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).reset?.getTime()).toBe(4102444800_000);
  });

  it('does not follow a redirect: a 3xx is an ApiError', async () => {
    stub.reply({ status: 307, headers: { Location: '/elsewhere' } });
    const error = await rejectionOf(clientFor().client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' }));
    expect(error).toMatchObject({ status: 307 });
    expect(error).toBeInstanceOf(ApiError);
    expect(stub.requests).toHaveLength(1);
  });

  it('reports a 2xx body that is not an enqueue result', async () => {
    stub.reply({ json: { id: 'no message id' } });
    const error = await rejectionOf(clientFor().client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({ field: 'messageId' });
  });

  it('turns a refused connection into a NetworkError', async () => {
    const server = await rawServer(() => {});
    const { url } = server;
    await server.close();
    const transport = createRequester({ baseUrl: url, auth: { kind: 'bearer', token: 't' }, transport: undici, retry: false });
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'a' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: false, url: `${url}/a` });
    expect((error as Error).cause).toBeDefined();
  });
});

describe('timeouts', () => {
  it('turns a hung request into NetworkError with timedOut', async () => {
    stub.reply({ hang: true });
    const error = await rejectionOf(transportFor({ timeoutMs: 50, retry: false }).transport.request({ method: 'GET', path: 'slow' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: true, method: 'GET', url: `${stub.url}/slow` });
  });

  it('covers a body that stalls after the headers', async () => {
    const server = await rawServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"partial":');
    });
    try {
      const transport = createRequester({
        baseUrl: server.url,
        auth: { kind: 'bearer', token: 't' },
        transport: undici,
        timeoutMs: 50,
        retry: false,
      });
      expect(await rejectionOf(transport.request({ method: 'GET', path: 'a' }))).toMatchObject({ timedOut: true });
    } finally {
      await server.close();
    }
  });

  it('retries a timed-out GET and succeeds', async () => {
    stub.reply({ hang: true }, { json: { ok: true } });
    const { transport, delays } = transportFor({ timeoutMs: 400 });
    expect((await transport.request({ method: 'GET', path: 'a' })).status).toBe(200);
    expect(stub.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it('times out a request still waiting for a connection, and never sends it afterwards', async () => {
    const single = createUndiciTransport({ connections: 1 });
    try {
      stub.reply({ hang: true });
      const first = createRequester({
        baseUrl: stub.url,
        auth: { kind: 'bearer', token: 't' },
        transport: single,
        retry: false,
        timeoutMs: 60_000,
      });
      const second = createRequester({
        baseUrl: stub.url,
        auth: { kind: 'bearer', token: 't' },
        transport: single,
        retry: false,
        timeoutMs: 50,
      });
      const controller = new AbortController();
      const hung = rejectionOf(first.request({ method: 'GET', path: 'first', signal: controller.signal }));
      await stub.waitForRequests(1);
      expect(await rejectionOf(second.request({ method: 'POST', path: 'queued', body: 'x' }))).toMatchObject({ timedOut: true });
      controller.abort(new Error('done'));
      await hung;
      // The freed connection is reused for a third request; the timed-out one must not go first.
      stub.reply({ json: { ok: true } });
      await first.request({ method: 'GET', path: 'third' });
      expect(stub.requests.map((r) => r.path)).toEqual(['/first', '/third']);
    } finally {
      await single.close();
    }
  });
});

describe('connection reset and retry rules', () => {
  it('a reset is a NetworkError, and an enqueue without deduplication id is never sent twice', async () => {
    stub.reply({ reset: true }, { json: enqueueResult });
    const { client, delays } = clientFor({ retry: { retries: 3 } });
    const error = await rejectionOf(client.enqueueJSON({ queue: 'q', destination: 'https://app.test/', body: { n: 1 } }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: false });
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('nor after a 503', async () => {
    stub.reply({ status: 503, json: { error: 'busy' } }, { json: enqueueResult });
    const error = await rejectionOf(clientFor().client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'x' }));
    expect(error).toMatchObject({ status: 503 });
    expect(stub.requests).toHaveLength(1);
  });

  it('an enqueue with a deduplication id is retried after resets, with the same body', async () => {
    stub.reply({ reset: true }, { reset: true }, { json: enqueueResult });
    const { client, delays } = clientFor();
    expect(await client.enqueueJSON({ queue: 'q', destination: 'https://app.test/', body: { n: 1 }, deduplicationId: 'd-1' })).toEqual(
      enqueueResult,
    );
    expect(stub.requests.map((r) => [r.json(), r.headers['service-deduplication-id']])).toEqual([
      [{ n: 1 }, 'd-1'],
      [{ n: 1 }, 'd-1'],
      [{ n: 1 }, 'd-1'],
    ]);
    expect(delays).toHaveLength(2);
  });

  it('carries on over a fresh connection after the server closed the last one', async () => {
    stub.reply({ headers: { Connection: 'close' }, json: enqueueResult }, { json: enqueueResult });
    const { client } = clientFor({ retry: false });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'a' });
    await client.enqueue({ queue: 'q', destination: 'https://app.test/', body: 'b' });
    expect(stub.requests.map((r) => r.text)).toEqual(['a', 'b']);
  });
});

describe('caller abort', () => {
  it('aborts an in-flight request with the caller’s reason and does not retry', async () => {
    stub.reply({ hang: true }, { json: { ok: true } });
    const { transport, delays } = transportFor();
    const controller = new AbortController();
    const pending = rejectionOf(transport.request({ method: 'GET', path: 'a', signal: controller.signal }));
    await stub.waitForRequests(1);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('sends nothing when already aborted', async () => {
    const error = await rejectionOf(transportFor().transport.request({ method: 'GET', path: 'a', signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ name: 'AbortError' });
    const direct = await rejectionOf(
      undici.send({ method: 'GET', url: `${stub.url}/a`, headers: {}, body: undefined, signal: AbortSignal.abort(), timeoutMs: 1000 }),
    );
    expect(direct).toMatchObject({ name: 'AbortError' });
    expect(stub.requests).toHaveLength(0);
  });

  it('removes its listener from a long-lived signal after each request', async () => {
    stub.handle(() => ({ status: 200 }));
    const controller = new AbortController();
    let listeners = 0;
    const { signal } = controller;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = (...args: Parameters<AbortSignal['addEventListener']>) => {
      listeners++;
      add(...args);
    };
    signal.removeEventListener = (...args: Parameters<AbortSignal['removeEventListener']>) => {
      listeners--;
      remove(...args);
    };
    const { transport } = transportFor();
    for (let i = 0; i < 3; i++) await transport.request({ method: 'GET', path: 'a', signal });
    expect(listeners).toBe(0);
  });
});

describe('options', () => {
  it.each([
    ['connections: must be a whole number >= 1', { connections: 0 }],
    ['connections: must be a whole number >= 1', { connections: 1.5 }],
    ['keepAliveTimeoutMs: must be a whole number >= 1', { keepAliveTimeoutMs: '4s' }],
    ['dispatcher: give either your own dispatcher or connections', { dispatcher: new Pool('http://127.0.0.1:1'), connections: 2 }],
    ['dispatcher: expected an undici Dispatcher', { dispatcher: {} }],
    ['options: expected an object', null],
  ])('refuses %s', (message, options) => {
    expect(() => createUndiciTransport(options as never)).toThrow(ValidationError);
    expect(() => createUndiciTransport(options as never)).toThrow(message);
  });

  it('the client refuses fetch and transport together, and a transport without send', () => {
    const base = { baseUrl: stub.url, token: 't', env: {} };
    expect(() => createMessagingClient({ ...base, fetch, transport: undici })).toThrow(
      'transport: give either fetch or transport, not both',
    );
    expect(() => createMessagingClient({ ...base, transport: {} as never })).toThrow('transport: expected an HttpTransport');
  });

  it('after close() a request fails as a NetworkError', async () => {
    const transport = createUndiciTransport();
    await transport.close();
    const error = await rejectionOf(
      createRequester({ baseUrl: stub.url, auth: { kind: 'bearer', token: 't' }, transport, retry: false }).request({
        method: 'GET',
        path: 'a',
      }),
    );
    expect(error).toBeInstanceOf(NetworkError);
    expect(stub.requests).toHaveLength(0);
  });
});
