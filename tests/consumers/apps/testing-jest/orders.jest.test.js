// @mailroom/testing under Jest as ES modules (`node --experimental-vm-modules`, no transform): the
// matchers with their diffs, a delay on the virtual clock, and explore catching a duplicate.
import { createReceiver, defineDestination } from '@mailroom/core';
import { createTestService, ExploreError, explore, matchers } from '@mailroom/testing';
import { z } from 'zod';

expect.extend(matchers);

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const seen = [];
const createApp = (env) => ({
  fetch: createReceiver({ env, onError: () => {} }).destination(orderPlaced, (message) => {
    seen.push(message.body.orderId);
    if (message.body.orderId === 'broken') throw new Error('cannot place it');
  }).fetch,
});

let service;
afterEach(async () => {
  await service?.close();
  seen.length = 0;
});

test('asserts with the matchers, and a miss shows the attempts (ESM)', async () => {
  service = await createTestService({ createApp });
  await service.client.send(orderPlaced, { orderId: 'fine' }, { delay: '1h' });
  await service.client.send(orderPlaced, { orderId: 'broken' }, { retries: 1 });
  await service.advance('59m');
  expect(seen).not.toContain('fine');
  await service.runUntilIdle();
  expect(service).toHaveDelivered(orderPlaced, { orderId: 'fine' });
  expect(service).toHaveRetried(orderPlaced, 1);
  await expect(service).toHaveEndedInDlq(orderPlaced, { orderId: 'broken' });
  expect(() => expect(service).toHaveDelivered(orderPlaced, { orderId: 'never' })).toThrow(/orderId/);
});

test('explore names the schedule that charges twice (ESM)', async () => {
  const error = await explore({ createApp, runs: 50, seed: 1 }, async (explored) => {
    seen.length = 0;
    await explored.client.send(orderPlaced, { orderId: 'once' });
    await explored.runUntilIdle();
    expect(seen).toEqual(['once']);
  }).catch((caught) => caught);
  expect(error).toBeInstanceOf(ExploreError);
  expect(error.message).toMatch(/^seed \d+: .*order-placed[\s\S]*replay it with explore/);
});
