import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReceiver, defineDestination, type ReceiverOptions } from '../../src';
import { serveNodeRequest, type Endpoint, type ServeNodeRequestOptions } from '../../src/adapter';
import { signRequest } from '../../src/testing';
import { startServer, type TestServer } from './support/reader-server';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const key = 'sig_current';
const receiverOptions: ReceiverOptions = { currentSigningKey: key, nextSigningKey: 'sig_next', now: () => NOW, onError: () => {} };
const orders = defineDestination({ name: 'orders', schema: z.object({ id: z.number() }) });

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose every request goes through serveNodeRequest; `seen` records what each call returned. */
async function serve(endpoint: Endpoint, options: ServeNodeRequestOptions = {}) {
  const seen: { returned: 'promise' | 'nothing'; writtenBeforeReturn: boolean; rejection?: unknown }[] = [];
  server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    const returned = serveNodeRequest(endpoint, req, res, options);
    const entry: (typeof seen)[number] = { returned: returned ? 'promise' : 'nothing', writtenBeforeReturn: res.writableEnded };
    seen.push(entry);
    returned?.catch((error: unknown) => {
      entry.rejection = error;
      res.destroy();
    });
  });
  return seen;
}

async function deliver(body: unknown, signedFor = '/orders') {
  const signed = await signRequest({ url: `${server!.url}${signedFor}`, body, key, now: () => NOW });
  return fetch(`${server!.url}/orders`, { method: 'POST', headers: signed.headers, body: signed.body });
}

describe('serveNodeRequest', () => {
  it('reads, verifies and answers; only the wait for the body is a promise, and a sync pipeline writes in that same step', async () => {
    const bodies: unknown[] = [];
    const seen = await serve(createReceiver(receiverOptions).destination(orders, (message) => void bodies.push(message.body)));
    const response = await deliver({ id: 7 });
    expect(response.status).toBe(200);
    expect(bodies).toEqual([{ id: 7 }]);
    // The body was still on its way when the route ran, so it got a promise; it settled once written.
    expect(seen).toEqual([{ returned: 'promise', writtenBeforeReturn: false }]);
  });

  it('answers in the same tick when a parser already kept the bytes and every step is synchronous', async () => {
    const endpoint = createReceiver(receiverOptions).destination(orders, () => ({ ok: true }));
    const signed = await signRequest({ url: 'http://app.test/orders', body: { id: 7 }, key, now: () => NOW });
    let written = '';
    const res = {
      writableEnded: false,
      destroyed: false,
      headersSent: false,
      statusCode: 0,
      setHeader() {},
      hasHeader: () => false,
      removeHeader() {},
      end(body?: string) {
        written = `${this.statusCode} ${body ?? ''}`;
        this.writableEnded = true;
      },
    };
    const req = { method: 'POST', url: '/orders', headers: signed.headers, rawBody: signed.body, on() {}, readableEnded: true };
    const returned = serveNodeRequest(endpoint, req as never, res as never);
    expect(returned).toBeUndefined();
    expect(written).toBe('200 {"ok":true}');
  });

  it('refuses bad deliveries with the same answers as the pipeline: 401 for a token signed for another path, 489 for a bad body', async () => {
    await serve(createReceiver(receiverOptions).destination(orders, () => {}));
    expect((await deliver({ id: 7 }, '/elsewhere')).status).toBe(401);
    const invalid = await deliver({ id: 'seven' });
    expect(invalid.status).toBe(489);
    expect(await invalid.text()).not.toMatch(/at .*\.ts/);
  });

  it("answers a crashed handler's 500 itself, or hands the error to forwardError and writes nothing", async () => {
    const failure = new Error('database down');
    const crash = (): never => {
      throw failure;
    };
    await serve(createReceiver(receiverOptions).destination(orders, crash));
    const answered = await deliver({ id: 7 });
    expect(answered.status).toBe(500);
    expect(await answered.text()).not.toContain('database down');
    await server!.close();

    const forwarded: unknown[] = [];
    const endpoint = createReceiver(receiverOptions).destination(orders, async () => crash());
    server = await startServer((req, res) => {
      void serveNodeRequest(endpoint, req, res, {
        forwardError: (error) => {
          forwarded.push(error);
          res.statusCode = 503;
          res.end('from the framework');
        },
      });
    });
    const response = await deliver({ id: 7 });
    expect(response.status).toBe(503);
    expect(await response.text()).toBe('from the framework');
    expect(forwarded).toEqual([failure]);
  });

  it('rejects only when writing the answer itself fails, for the framework to handle', async () => {
    const endpoint = createReceiver(receiverOptions).destination(orders, () => {});
    const seen = await serve(endpoint, {
      forwardError: () => {
        throw new Error('never called: the handler does not fail');
      },
    });
    // A header value Node refuses makes writeOutbound throw.
    const original = endpoint.respond;
    endpoint.respond = async (input) => ({ ...(await original(input)), headers: { 'x-bad': 'line\nbreak' } });
    await deliver({ id: 7 }).catch(() => undefined);
    await expect.poll(() => seen[0]?.rejection).toBeInstanceOf(TypeError);
  });
});
