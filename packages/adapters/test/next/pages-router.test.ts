import { NonRetryableError, ValidationError } from '@mailroom/core';
import { signRequest } from '@mailroom/core/testing';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createMailroom } from '../../src/next-pages';
import { base64, keys, order, orderPlacedAt, receiverOptions } from '@mailroom/test-support';

const orderPlaced = orderPlacedAt('/api/orders');

type Route = (req: IncomingMessage, res: ServerResponse) => unknown;
const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Serves one API route on port 0, as Next's Pages Router would call it, and returns its origin. */
async function serve(route: Route): Promise<string> {
  const server = createServer((req, res) => {
    Promise.resolve(route(req, res)).catch((error: unknown) => {
      res.statusCode = 599;
      res.end(String(error));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What Next.js does with `bodyParser` on: reads the whole stream, then leaves the parsed JSON on `req.body`. */
function withNextBodyParser(route: Route): Route {
  return async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    (req as IncomingMessage & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return route(req, res);
  };
}

async function send(origin: string, path: string, body: unknown, extra: Partial<Parameters<typeof signRequest>[0]> = {}) {
  const signed = await signRequest({ url: `${origin}${path}`, body, ...keys, ...extra });
  return fetch(`${origin}${path}`, { method: 'POST', headers: signed.headers, body: signed.body });
}

describe('Pages Router', () => {
  it('reads the stream, verifies and gives the handler the typed body', async () => {
    const seen = vi.fn();
    const route = createMailroom(receiverOptions).destination(orderPlaced, (message) => {
      expectTypeOf(message.body).toEqualTypeOf<{ orderId: string; total: number }>();
      seen(message.body, message.url);
    });
    const origin = await serve(route);
    const res = await send(origin, '/api/orders?x=1', order);
    expect(res.status).toBe(200);
    expect(seen).toHaveBeenCalledWith(order, '/api/orders?x=1');
  });

  it('answers 500 explaining bodyParser: false when Next.js parsed the body, and never calls the handler', async () => {
    const handler = vi.fn();
    const origin = await serve(withNextBodyParser(createMailroom(receiverOptions).destination(orderPlaced, handler)));
    const res = await send(origin, '/api/orders', order);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('export const config = { api: { bodyParser: false } }');
    expect(handler).not.toHaveBeenCalled();
  });

  it('refuses a tampered body with 401 and checks publicUrl against req.url', async () => {
    const mailroom = createMailroom({ ...receiverOptions, publicUrl: 'https://public.example.com' });
    const origin = await serve(mailroom.destination(orderPlaced, () => {}));
    expect((await send(origin, '/api/orders', order, { signedUrl: 'https://public.example.com/api/orders' })).status).toBe(200);
    expect((await send(origin, '/api/orders', order, { signedUrl: 'https://public.example.com/api/other' })).status).toBe(401);
    expect((await send(origin, '/api/orders', order, { signedUrl: 'https://public.example.com/api/orders', tampered: true })).status).toBe(
      401,
    );
  });

  it('answers 413 over maxBodyBytes, also for a chunked body with no Content-Length', async () => {
    const text = JSON.stringify(order);
    const handler = vi.fn();
    const origin = await serve(
      createMailroom({ ...receiverOptions, maxBodyBytes: Buffer.byteLength(text) }).destination(orderPlaced, handler),
    );
    expect((await send(origin, '/api/orders', text, { contentType: 'application/json' })).status).toBe(200);
    expect((await send(origin, '/api/orders', `${text} `, { contentType: 'application/json' })).status).toBe(413);
    const big = await signRequest({
      url: `${origin}/api/orders`,
      body: `${text}${' '.repeat(64)}`,
      contentType: 'application/json',
      ...keys,
    });
    const chunked = await fetch(`${origin}/api/orders`, {
      method: 'POST',
      headers: big.headers,
      body: new Blob([big.body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('answers 500 when the handler throws, and 489 with the header for NonRetryableError', async () => {
    const crash = await serve(
      createMailroom(receiverOptions).destination(orderPlaced, () => {
        throw new Error('database down');
      }),
    );
    expect((await send(crash, '/api/orders', order)).status).toBe(500);
    const permanent = await serve(
      createMailroom(receiverOptions).destination(orderPlaced, () => {
        throw new NonRetryableError('unknown order');
      }),
    );
    const res = await send(permanent, '/api/orders', order);
    expect(res.status).toBe(489);
    expect(res.headers.get('service-nonretryable-error')).toBe('true');
  });

  it('decodes a callback body', async () => {
    const seen = vi.fn();
    const origin = await serve(
      createMailroom(receiverOptions).callback((message) => seen(message.sourceBody.data, message.body.text), { source: orderPlaced }),
    );
    const res = await send(origin, '/api/callback', {
      status: 200,
      sourceMessageId: 'msg_1',
      sourceBody: base64(order),
      body: base64('ok'),
    });
    expect(res.status).toBe(200);
    expect(seen).toHaveBeenCalledWith(order, 'ok');
  });

  it('rejects with a pointer to @mailroom/adapters/next when called the App Router way', async () => {
    const route = createMailroom(receiverOptions).destination(orderPlaced, () => {}) as unknown as (
      request: Request,
      context: unknown,
    ) => Promise<void>;
    await expect(route(new Request('http://localhost/api/orders', { method: 'POST' }), { params: Promise.resolve({}) })).rejects.toThrow(
      ValidationError,
    );
    await expect(route(new Request('http://localhost/api/orders', { method: 'POST' }), {})).rejects.toThrow(
      /@mailroom\/adapters\/next\b(?!\/)/,
    );
  });
});
