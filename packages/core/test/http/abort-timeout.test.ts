import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NetworkError } from '../../src/errors';
import { createRequester } from '../../src/http';
import { startStubServer, type StubServer } from '../support/stub-server';
import { rejectionOf, transportFor } from './transport-fixture';

let stub: StubServer;
beforeEach(async () => {
  stub = await startStubServer();
});
afterEach(() => stub.close());

describe('timeout', () => {
  it('turns a hung request into NetworkError with timedOut', async () => {
    stub.reply({ hang: true });
    const { transport } = transportFor(stub, { timeoutMs: 50, retry: false });
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'slow' }));
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ timedOut: true, method: 'GET', url: `${stub.url}/slow` });
    expect((error as Error).message).toContain('timed out');
  });

  it('says a write that timed out may have been accepted, and a read or a refused connection has a known outcome', async () => {
    stub.reply({ hang: true }, { hang: true });
    const { transport } = transportFor(stub, { timeoutMs: 50, retry: false });
    const write = await rejectionOf(transport.request({ method: 'POST', path: 'v2/batch', json: [] }));
    expect(write).toMatchObject({ timedOut: true, outcomeUnknown: true });
    expect((write as Error).message).toMatch(/outcome is unknown: the service may have accepted it.*deduplicationId/);
    const read = await rejectionOf(transport.request({ method: 'GET', path: 'a' }));
    expect(read).toMatchObject({ timedOut: true, outcomeUnknown: false });
    expect((read as Error).message).not.toMatch(/outcome is unknown/);
    const closed = await startStubServer();
    await closed.close();
    const refused = createRequester({ baseUrl: closed.url, auth: { kind: 'bearer', token: 't' }, retry: false });
    const never = await rejectionOf(refused.request({ method: 'POST', path: 'v2/batch', json: [] }));
    expect(never).toMatchObject({ timedOut: false, outcomeUnknown: false });
  });

  it('gives a request its extra time on top of the client timeout', async () => {
    stub.reply({ json: { ok: true }, delayMs: 150 });
    const { transport } = transportFor(stub, { timeoutMs: 50, retry: false });
    expect((await transport.request({ method: 'POST', path: 'v2/batch', json: [], extraTimeoutMs: 5_000 })).status).toBe(200);
  });

  it('covers a body that stalls after the headers', async () => {
    // The handler writes the head and part of the body, then never finishes.
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '100' });
      res.write('{"partial":');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const transport = createRequester({
        baseUrl: `http://127.0.0.1:${port}`,
        auth: { kind: 'bearer', token: 't' },
        timeoutMs: 50,
        retry: false,
      });
      const error = await rejectionOf(transport.request({ method: 'GET', path: 'a' }));
      expect(error).toMatchObject({ timedOut: true });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('retries a timed-out GET and succeeds', async () => {
    stub.reply({ hang: true }, { json: { ok: true } });
    // The timeout covers every attempt: it must leave the real second answer room on a loaded machine.
    const { transport, delays } = transportFor(stub, { timeoutMs: 400 });
    const response = await transport.request({ method: 'GET', path: 'a' });
    expect(response.status).toBe(200);
    expect(stub.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
  });

  it('answers slower than the timeout but within it are fine', async () => {
    stub.reply({ json: { ok: true }, delayMs: 20 });
    const { transport } = transportFor(stub, { timeoutMs: 2000 });
    expect((await transport.request({ method: 'GET', path: 'a' })).status).toBe(200);
  });
});

describe('caller abort', () => {
  it('aborts an in-flight request with the caller’s reason and does not retry', async () => {
    stub.reply({ hang: true }, { json: { ok: true } });
    const { transport, delays } = transportFor(stub);
    const controller = new AbortController();
    const pending = rejectionOf(transport.request({ method: 'GET', path: 'a', signal: controller.signal }));
    await stub.waitForRequests(1);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    expect(await pending).toBe(reason);
    expect(stub.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('rejects with an AbortError by default and sends nothing when already aborted', async () => {
    const { transport } = transportFor(stub);
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'a', signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(stub.requests).toHaveLength(0);
  });

  it('stops during the backoff wait even when the injected sleep ignores the signal', async () => {
    stub.reply({ status: 503 }, { json: { ok: true } });
    const controller = new AbortController();
    let release: () => void = () => {};
    const { transport } = transportFor(stub, {
      sleep: () =>
        new Promise<void>((resolve) => {
          release = resolve;
          controller.abort(new Error('cancelled while waiting'));
        }),
    });
    const error = await rejectionOf(transport.request({ method: 'GET', path: 'a', signal: controller.signal }));
    release();
    expect(error).toMatchObject({ message: 'cancelled while waiting' });
    expect(stub.requests).toHaveLength(1);
  });

  it('the default sleep is cut short by an abort', async () => {
    stub.reply({ status: 503 }, { json: { ok: true } });
    const controller = new AbortController();
    const transport = createRequester({
      baseUrl: stub.url,
      auth: { kind: 'bearer', token: 't' },
      retry: { retries: 1, baseDelayMs: 60_000, maxDelayMs: 60_000 },
      random: () => 1,
    });
    const pending = rejectionOf(transport.request({ method: 'GET', path: 'a', signal: controller.signal }));
    await stub.waitForRequests(1);
    controller.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    expect(stub.requests).toHaveLength(1);
  });

  it('removes its listener from a long-lived signal after each request', async () => {
    stub.handle(() => ({ status: 200 }));
    const controller = new AbortController();
    let added = 0;
    let removed = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof signal.addEventListener;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof signal.removeEventListener;
    const { transport } = transportFor(stub);
    for (let i = 0; i < 3; i++) await transport.request({ method: 'GET', path: 'a', signal });
    expect(added).toBe(3);
    expect(removed).toBe(3);
  });
});
