import { createMessagingClient, defineDestination } from '@mailroom/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { destination, t, useTestServer } from './helpers/test-server';

// `client.send(def, ...)` as a user meets it: a message still retrying must not hold back the next
// one to the same destination, unless the user asked for a queue (order).

useTestServer({ timeScale: 1 });

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });

function client() {
  return createMessagingClient({
    baseUrl: t.server.url,
    token: t.server.token,
    appUrl: destination.url,
    headerPrefix: 'Service',
    retry: false,
    env: {},
  });
}

describe('client.send', () => {
  it('delivers a later message while an earlier one waits for its retry', async () => {
    // The first order fails once, and its retry is a minute away.
    destination.script('/order-placed', (request) => (request.text.includes('o-1') ? { status: 500 } : { status: 200 }));
    await client().send(orderPlaced, { orderId: 'o-1' }, { retryDelay: '60000' });
    await destination.waitFor('/order-placed', 1);
    await client().send(orderPlaced, { orderId: 'o-2' });
    const received = await destination.waitFor('/order-placed', 2);
    expect(received.map((request) => JSON.parse(request.text).orderId)).toEqual(['o-1', 'o-2']);
  });

  it('keeps order behind a retrying message on an explicit queue', async () => {
    destination.script('/order-placed', (request, index) =>
      request.text.includes('o-1') && index === 0 ? { status: 500 } : { status: 200 },
    );
    await client().send(orderPlaced, { orderId: 'o-1' }, { queue: 'orders', retryDelay: '300' });
    await client().send(orderPlaced, { orderId: 'o-2' }, { queue: 'orders' });
    const received = await destination.waitFor('/order-placed', 3);
    expect(received.map((request) => JSON.parse(request.text).orderId)).toEqual(['o-1', 'o-1', 'o-2']);
  });
});
