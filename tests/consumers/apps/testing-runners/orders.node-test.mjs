// @mailroom/testing under node:test, as an ES module: a fetch handler receives in-process, on a
// virtual clock, and explore catches a handler that is not idempotent.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { createReceiver, defineDestination } from '@mailroom/core';
import { createTestService, ExploreError, explore } from '@mailroom/testing';
import { z } from 'zod';

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const seen = [];
const createApp = (env) => ({
  fetch: createReceiver({ env, onError: () => {} }).destination(orderPlaced, (message) => void seen.push(message.body.orderId)).fetch,
});

let service;
afterEach(async () => {
  await service?.close();
  seen.length = 0;
});

test('delivers a delayed message at its time (ESM)', async () => {
  service = await createTestService({ createApp });
  await service.client.send(orderPlaced, { orderId: 'later' }, { delay: '1h' });
  await service.advance('59m');
  assert.deepEqual(seen, []);
  await service.advance('1m');
  assert.deepEqual(seen, ['later']);
  assert.equal(service.deliveries(orderPlaced).length, 1);
});

test('explore names the schedule that charges twice (ESM)', async () => {
  await assert.rejects(
    explore({ createApp, runs: 50, seed: 1 }, async (explored) => {
      seen.length = 0;
      await explored.client.send(orderPlaced, { orderId: 'once' });
      await explored.runUntilIdle();
      assert.deepEqual(seen, ['once']);
    }),
    (error) => error instanceof ExploreError && /^seed \d+: /.test(error.message),
  );
});
