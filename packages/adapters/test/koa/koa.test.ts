import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { ValidationError } from '@mailroom/core';
import { delivery, order, orderPlaced, orderPlacedAt, postBytes, receiverOptions } from '@mailroom/test-support';
import Koa from 'koa';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createMailroom } from '../../src/koa';

// A Koa 3 app with @koa/router, served by Node's HTTP server through supertest: deliveries arrive as
// exact bytes, with and without a body parser in front of the routes.

type Parser = 'none' | 'except-deliveries' | 'plain' | 'eats-the-stream';

function app(parser: Parser, options: Parameters<typeof createMailroom>[0] = receiverOptions) {
  const seen: Array<{ body: unknown; path: string }> = [];
  const mailroom = createMailroom(options);
  const koa = new Koa();
  if (parser === 'except-deliveries') koa.use(mailroom.exceptDeliveries(bodyParser()));
  if (parser === 'plain') koa.use(bodyParser());
  if (parser === 'eats-the-stream') {
    // A parser that keeps nothing: the stream is read and the bytes are gone.
    koa.use(async (ctx, next) => {
      for await (const _chunk of ctx.req) void _chunk;
      await next();
    });
  }
  const router = new Router();
  router.all(
    orderPlaced.path,
    mailroom.destination(orderPlaced, (message, ctx) => {
      seen.push({ body: message.body, path: ctx.originalUrl });
    }),
  );
  router.post(
    '/crash',
    mailroom.destination(orderPlacedAt('/crash'), () => Promise.reject(new Error('db at 10.0.0.7 down'))),
  );
  router.post('/form', (ctx) => {
    ctx.body = { parsed: (ctx.request as { body?: unknown }).body ?? null };
  });
  koa.use(router.routes());
  return { server: koa.callback(), seen };
}

describe('Koa', () => {
  it('delivers a typed message with Koa’s ctx as the handler’s second argument', async () => {
    const { server, seen } = app('none');
    const response = await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(200);
    expect(seen).toEqual([{ body: order, path: '/orders' }]);
  });

  it('with exceptDeliveries(bodyParser()): deliveries reach their route unparsed, other routes still get ctx.request.body', async () => {
    const { server, seen } = app('except-deliveries');
    expect((await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    expect(seen).toHaveLength(1);
    const form = await request(server).post('/form').send({ a: 1 });
    expect(form.body).toEqual({ parsed: { a: 1 } });
  });

  it('with a plain bodyParser() first: the raw text it kept is checked by the signature, a changed body refused', async () => {
    const { server, seen } = app('plain');
    expect((await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    expect(seen).toEqual([{ body: order, path: '/orders' }]);
    const tampered = await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', order, { tampered: true }));
    expect(tampered.status).toBe(401);
  });

  it('answers a fix-it 500 naming exceptDeliveries when a middleware ate the body and kept nothing', async () => {
    const onError = vi.fn();
    const { server, seen } = app('eats-the-stream', { ...receiverOptions, onError });
    const response = await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(500);
    expect(seen).toEqual([]);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/exceptDeliveries\(bodyParser\(\)\)/);
  });

  it('answers 401, 405 with Allow, 489 and a 500 without a stack through ctx', async () => {
    const { server } = app('none');
    expect((await request(server).post('/orders').send(order)).status).toBe(401);
    const wrongMethod = await request(server).put('/orders');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
    expect((await postBytes(server, '/orders', await delivery('http://127.0.0.1/orders', { orderId: 1 }))).status).toBe(489);
    const crash = await postBytes(server, '/crash', await delivery('http://127.0.0.1/crash', order));
    expect(crash.status).toBe(500);
    expect(crash.text).toBe('{"error":"handler failed"}');
  });

  it('refuses a token signed for another route of the app', async () => {
    const { server } = app('none');
    expect((await postBytes(server, '/orders', await delivery('http://127.0.0.1/crash', order))).status).toBe(401);
  });

  it('says what exceptDeliveries wants when given something else', () => {
    expect(() => createMailroom(receiverOptions).exceptDeliveries('json' as never)).toThrow(ValidationError);
  });
});
