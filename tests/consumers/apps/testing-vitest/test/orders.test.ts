// A fresh ESM project's vitest suite with @mailroom/testing: a Hono app receives in-process, on a
// virtual clock, verified with the service's own keys.
import { defineDestination } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/hono';
import { createTestService, ExploreError, explore, type MailroomMatchers, matchers, type TestService } from '@mailroom/testing';
import { Hono } from 'hono';
import { afterEach, expect, it } from 'vitest';
import { z } from 'zod';

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest's own Assertion declares T as any.
  interface Assertion<T = any> extends MailroomMatchers<T> {}
}
expect.extend(matchers);

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const seen: string[] = [];
const failed: string[] = [];

function createApp(env: Readonly<Record<string, string>>) {
  const mailroom = createMailroom({ env, onError: () => {} });
  const app = new Hono();
  app.post(
    orderPlaced.path,
    mailroom.destination(orderPlaced, (message) => {
      seen.push(message.body.orderId);
      if (message.body.orderId === 'broken') throw new Error('cannot place it');
    }),
  );
  app.post(
    '/failures',
    mailroom.failureCallback((message) => void failed.push(message.sourceMessageId), { source: orderPlaced }),
  );
  return app;
}

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  seen.length = 0;
  failed.length = 0;
});

it('retries a failing message into the DLQ and calls the failure callback', async () => {
  service = await createTestService({ createApp });
  const { messageId } = await service.client.send(
    orderPlaced,
    { orderId: 'broken' },
    { retries: 2, failureCallback: 'http://app.test/failures' },
  );
  await service.runUntilIdle();
  expect(seen).toEqual(['broken', 'broken', 'broken']);
  expect((await service.dlq()).map((entry) => entry.messageId)).toEqual([messageId]);
  expect(failed).toEqual([messageId]);
});

it('delivers a delayed message at its time', async () => {
  service = await createTestService({ createApp });
  await service.client.send(orderPlaced, { orderId: 'later' }, { delay: '3h' });
  await service.advance('2h');
  expect(seen).toEqual([]);
  await service.advance('1h');
  expect(seen).toEqual(['later']);
});

it('fires a schedule', async () => {
  service = await createTestService({ createApp });
  await service.client.schedules.createJSON({ destination: 'http://app.test/order-placed', cron: '0 0 * * *', body: { orderId: 'daily' } });
  await service.advance('2d');
  expect(seen).toEqual(['daily', 'daily']);
});

it('duplicates a delivery on demand', async () => {
  service = await createTestService({ createApp });
  service.faults.duplicate({ to: orderPlaced, times: 1 });
  await service.client.send(orderPlaced, { orderId: 'twice' });
  await service.advance(0);
  expect(seen).toEqual(['twice', 'twice']);
  expect(new Set(service.deliveries(orderPlaced).map((delivery) => delivery.messageId)).size).toBe(1);
});

it('asserts with the matchers', async () => {
  service = await createTestService({ createApp });
  await service.client.send(orderPlaced, { orderId: 'broken' }, { retries: 1 });
  await service.client.send(orderPlaced, { orderId: 'fine' });
  await service.runUntilIdle();
  expect(service).toHaveDelivered(orderPlaced, { orderId: 'fine' });
  expect(service).toHaveRetried(orderPlaced, 1);
  await expect(service).toHaveEndedInDlq(orderPlaced, { orderId: 'broken' });
});

it('explores delivery schedules: a handler without an idempotency store is caught charging twice', async () => {
  const error = await explore({ createApp, runs: 50, seed: 1 }, async (explored) => {
    seen.length = 0;
    await explored.client.send(orderPlaced, { orderId: 'once' });
    await explored.runUntilIdle();
    expect(seen).toEqual(['once']);
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ExploreError);
  expect((error as ExploreError).message).toMatch(/^seed \d+: (order-placed delivered twice|answer to order-placed attempt 1 lost)/);
});
