// The same under node:test as CommonJS: require() loads @mailroom/testing's CommonJS build.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { createReceiver, defineDestination } = require('@mailroom/core');
const { createTestService } = require('@mailroom/testing');
const { z } = require('zod');

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });

test('retries a failing message into the DLQ (CommonJS)', async () => {
  const tried = [];
  const service = await createTestService({
    createApp: (env) => ({
      fetch: createReceiver({ env, onError: () => {} }).destination(orderPlaced, (message) => {
        tried.push(message.body.orderId);
        throw new Error('cannot place it');
      }).fetch,
    }),
  });
  try {
    const { messageId } = await service.client.send(orderPlaced, { orderId: 'broken' }, { retries: 2 });
    await service.runUntilIdle();
    assert.deepEqual(tried, ['broken', 'broken', 'broken']);
    assert.deepEqual(
      (await service.dlq()).map((entry) => entry.messageId),
      [messageId],
    );
  } finally {
    await service.close();
  }
});
