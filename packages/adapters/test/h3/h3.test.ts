import { ValidationError } from '@mailroom/core';
import { delivery, order, orderPlaced, postBytes, receiverOptions } from '@mailroom/test-support';
import { defineEventHandler, H3, readBody } from 'h3';
import { toNodeHandler } from 'h3/node';
import { createApp, defineEventHandler as defineEventHandlerV1, readBody as readBodyV1, toNodeListener } from 'h3v1';
import { describe, expect, it, vi } from 'vitest';
import { createMailroom } from '../../src/h3';

// h3 2 and h3 1 apps served by h3's own Node handlers: a delivery, and one whose body a middleware
// read first, which h3 1 keeps and h3 2 does not.

function appV2(readFirst: boolean, onError = vi.fn()) {
  const seen: unknown[] = [];
  const app = new H3();
  if (readFirst) app.use(async (event) => void (await readBody(event).catch(() => undefined)));
  app.post(
    orderPlaced.path,
    defineEventHandler(
      createMailroom({ ...receiverOptions, onError }).destination(orderPlaced, (message) => void seen.push(message.body)) as never,
    ),
  );
  return { listener: toNodeHandler(app), seen, onError };
}

function appV1(readFirst: boolean) {
  const seen: unknown[] = [];
  const app = createApp();
  if (readFirst) app.use(defineEventHandlerV1(async (event) => void (await readBodyV1(event).catch(() => undefined))));
  app.use(
    orderPlaced.path,
    defineEventHandlerV1(createMailroom(receiverOptions).destination(orderPlaced, (message) => void seen.push(message.body)) as never),
  );
  return { listener: toNodeListener(app), seen };
}

describe('h3', () => {
  it('h3 2: delivers through event.req', async () => {
    const { listener, seen } = appV2(false);
    expect((await postBytes(listener, '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    expect(seen).toEqual([order]);
  });

  it('h3 2: a body a middleware read first is answered with a fix-it 500, never accepted', async () => {
    const { listener, seen, onError } = appV2(true);
    const response = await postBytes(listener, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(500);
    expect(seen).toEqual([]);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/read before the Mailroom endpoint got it/);
  });

  it('h3 1: delivers through event.node.req, and through the bytes h3 kept when a middleware read them first', async () => {
    for (const readFirst of [false, true]) {
      const { listener, seen } = appV1(readFirst);
      expect((await postBytes(listener, '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
      expect(seen).toEqual([order]);
      const tampered = await postBytes(listener, '/orders', await delivery('http://127.0.0.1/orders', order, { tampered: true }));
      expect(tampered.status).toBe(401);
    }
  });

  it('says what it expects when given something that is not an h3 event', async () => {
    const handler = createMailroom(receiverOptions).destination(orderPlaced, () => {});
    await expect(handler({} as never)).rejects.toThrow(ValidationError);
  });
});
