// The same under Jest as CommonJS: require() loads @mailroom/testing's CommonJS build.
const { createReceiver, defineDestination } = require('@mailroom/core');
const { createTestService, ExploreError, explore, matchers } = require('@mailroom/testing');
const { z } = require('zod');

expect.extend(matchers);

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const seen = [];
const createApp = (env) => ({
  fetch: createReceiver({ env, onError: () => {} }).destination(orderPlaced, (message) => {
    seen.push(message.body.orderId);
    if (message.body.orderId === 'broken') throw new Error('cannot place it');
  }).fetch,
});

test('retries a failing message into the DLQ, asserted with the matchers (CommonJS)', async () => {
  const service = await createTestService({ createApp });
  try {
    await service.client.send(orderPlaced, { orderId: 'broken' }, { retries: 2 });
    await service.runUntilIdle();
    expect(service).toHaveRetried(orderPlaced, 2);
    await expect(service).toHaveEndedInDlq(orderPlaced, { orderId: 'broken' });
    expect(seen).toEqual(['broken', 'broken', 'broken']);
  } finally {
    await service.close();
  }
});

test('explore names the schedule that charges twice (CommonJS)', async () => {
  const error = await explore({ createApp, runs: 50, seed: 1 }, async (explored) => {
    seen.length = 0;
    await explored.client.send(orderPlaced, { orderId: 'once' });
    await explored.runUntilIdle();
    expect(seen).toEqual(['once']);
  }).catch((caught) => caught);
  expect(error).toBeInstanceOf(ExploreError);
});
