import { signRequest } from '@mailroom/core/testing';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keys, order, orderPlaced } from '@mailroom/test-support';
import { createMailroom } from '../../src/fastify';

// What only the Fastify adapter does: the plugin keeps the exact bytes for Mailroom's routes and
// changes no other route, forgetting it is a fix-it 500, and handlers get Fastify's request and
// reply. The shared behaviour is the conformance suite's (tests/conformance).

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function deliver(target: FastifyInstance, body: string, contentType = 'application/json') {
  const signed = await signRequest({ url: 'http://localhost:80/orders', body, key: keys.currentSigningKey, env: {} });
  return target.inject({
    method: 'POST',
    url: '/orders',
    headers: { ...signed.headers, 'content-type': contentType },
    payload: signed.text,
  });
}

describe('@mailroom/adapters/fastify', () => {
  it('verifies over the exact bytes on Mailroom routes while the app’s own routes keep parsed JSON', async () => {
    const seen: unknown[] = [];
    const mailroom = createMailroom({ ...keys, env: {}, allowAnyPath: true, onError: () => {} });
    app = Fastify();
    await app.register(mailroom.plugin);
    app.post(
      '/orders',
      mailroom.destination(orderPlaced, (message, { request }) => void seen.push([message.body, request.method])),
    );
    app.post('/echo', async (request) => ({ parsed: request.body }));
    // Spacing a re-serialised body would lose: the signature covers these bytes.
    const response = await deliver(app, '{ "orderId" :  "o-1", "total": 1 }');
    expect(response.statusCode).toBe(200);
    expect(seen).toEqual([[{ orderId: 'o-1', total: 1 }, 'POST']]);
    const echo = await app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    expect(echo.json()).toEqual({ parsed: { a: 1 } });
    // A body Fastify would refuse (415) reaches Mailroom too.
    expect((await deliver(app, 'plain bytes', 'application/octet-stream')).statusCode).toBe(489);
  });

  it('answers a fix-it 500 naming the plugin when it was forgotten, never a 401 for a signed delivery', async () => {
    const onError = vi.fn();
    const mailroom = createMailroom({ ...keys, env: {}, allowAnyPath: true, onError });
    app = Fastify();
    app.post(
      '/orders',
      mailroom.destination(orderPlaced, () => {}),
    );
    const response = await deliver(app, JSON.stringify(order));
    expect(response.statusCode).toBe(500);
    expect(response.body).toContain('await app.register(mailroom.plugin)');
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('keeps a route’s own onRequest hooks, and works for routes declared inside an encapsulated plugin', async () => {
    const hooks: string[] = [];
    const mailroom = createMailroom({ ...keys, env: {}, allowAnyPath: true });
    app = Fastify();
    await app.register(mailroom.plugin);
    await app.register(async (child) => {
      child.post(
        '/orders',
        { onRequest: async () => void hooks.push('own hook') },
        mailroom.destination(orderPlaced, () => void hooks.push('handler')),
      );
    });
    expect((await deliver(app, JSON.stringify(order))).statusCode).toBe(200);
    expect(hooks).toEqual(['own hook', 'handler']);
  });

  it('answers through Fastify’s reply, so its onSend hooks see the answer', async () => {
    const statuses: number[] = [];
    const mailroom = createMailroom({ ...keys, env: {}, allowAnyPath: true, onError: () => {} });
    app = Fastify();
    await app.register(mailroom.plugin);
    app.addHook('onSend', async (_request, reply) => void statuses.push(reply.statusCode));
    app.post(
      '/orders',
      mailroom.destination(orderPlaced, () => {}),
    );
    const forged = await app.inject({ method: 'POST', url: '/orders', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(forged.statusCode).toBe(401);
    expect(statuses).toEqual([401]);
  });
});
