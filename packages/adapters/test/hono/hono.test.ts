import { ValidationError } from '@mailroom/core';
import { createSignedRequest } from '@mailroom/core/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono, type Context } from 'hono';
import { describe, expect, it, vi } from 'vitest';
import { keys, order, orderPlaced } from '@mailroom/test-support';
import { createMailroom } from '../../src/hono';

// What only the Hono adapter does: handlers get Hono's Context, and keys come from the request's
// `env` (a Worker's bindings) when the options and process.env have none. The shared behaviour
// (signatures, bodies, limits, answers) is the conformance suite's, on Node, Bun, Deno and workerd.

const ORIGIN = 'http://worker.test';

const signed = (overrides: { key?: string } = {}) =>
  createSignedRequest({ url: `${ORIGIN}/orders`, body: order, key: overrides.key ?? keys.currentSigningKey, env: {} });

describe('@mailroom/adapters/hono', () => {
  it("hands the handler the typed message and Hono's Context, and answers 200", async () => {
    const seen: Array<[string, string | undefined]> = [];
    const app = new Hono<{ Variables: { tenant: string } }>();
    app.use(async (c, next) => {
      c.set('tenant', 'acme');
      await next();
    });
    const mailroom = createMailroom({ ...keys, env: {} });
    app.post(
      '/orders',
      mailroom.destination(orderPlaced, (message, c: Context) => void seen.push([message.body.orderId, c.get('tenant')])),
    );
    const response = await app.request(await signed());
    expect(response.status).toBe(200);
    expect(seen).toEqual([['o_1', 'acme']]);
  });

  it("reads the keys from the Worker's env bindings when neither options nor process.env have them", async () => {
    const handler = vi.fn();
    const app = new Hono();
    app.post('/orders', createMailroom({ env: undefined, onError: () => {} }).destination(orderPlaced, handler));
    const bindings = { MAILROOM_CURRENT_SIGNING_KEY: keys.currentSigningKey, MAILROOM_NEXT_SIGNING_KEY: keys.nextSigningKey, QUEUE: {} };
    expect((await app.request(await signed(), undefined, bindings)).status).toBe(200);
    // Another environment with other keys gets its own receiver: a token of the first key is refused.
    const rotated = { MAILROOM_CURRENT_SIGNING_KEY: 'sig_other_current', MAILROOM_NEXT_SIGNING_KEY: 'sig_other_next' };
    expect((await app.request(await signed(), undefined, rotated)).status).toBe(401);
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('fails closed without keys anywhere: 500 naming the variables, reported once per refused delivery', async () => {
    const onError = vi.fn();
    const app = new Hono();
    app.post(
      '/orders',
      createMailroom({ env: {}, onError }).destination(orderPlaced, () => {}),
    );
    const response = await app.request(await signed(), undefined, {});
    expect(response.status).toBe(500);
    expect(await response.text()).toMatch(/MAILROOM_CURRENT_SIGNING_KEY/);
    expect(onError.mock.calls.map(([, where]) => where.stage)).toEqual(['config']);
  });

  it('on @hono/node-server, verifies whether or not a middleware read the body first', async () => {
    const seen: string[] = [];
    const app = new Hono();
    app.use('/read-first', async (c, next) => {
      await c.req.text();
      await next();
    });
    const mailroom = createMailroom({ ...keys, env: {}, allowAnyPath: true });
    for (const path of ['/orders', '/read-first'])
      app.post(
        path,
        mailroom.destination(orderPlaced, (message) => void seen.push(`${path}:${message.body.orderId}`)),
      );
    const server = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ['/orders', '/read-first']) {
        const request = await createSignedRequest({
          url: `${origin}${path}`,
          body: { orderId: 'o-9', total: 1 },
          key: keys.currentSigningKey,
          env: {},
        });
        const response = await fetch(request);
        expect(response.status).toBe(200);
      }
      expect(seen).toEqual(['/orders:o-9', '/read-first:o-9']);
    } finally {
      server.close();
    }
  });

  it('refuses a handler or definition that is not one when the route is declared', () => {
    const mailroom = createMailroom({ ...keys, env: {} });
    expect(() => mailroom.destination({ name: 'x' } as never, () => {})).toThrow(ValidationError);
    expect(() => mailroom.callback('not a function' as never)).toThrow(/handler: expected a function/);
  });
});
