// @mailroom/testing under bun test: its expect takes the matchers as vitest's and jest's do.
import { afterEach, expect, test } from 'bun:test';
import { createReceiver, defineDestination } from '@mailroom/core';
import { createTestService, ExploreError, explore, matchers, type TestService } from '@mailroom/testing';
import { z } from 'zod';

expect.extend(matchers);

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
const seen: string[] = [];
const createApp = (env: Readonly<Record<string, string>>) => ({
  fetch: createReceiver({ env, onError: () => {} }).destination(orderPlaced, (message) => {
    seen.push(message.body.orderId);
    if (message.body.orderId === 'broken') throw new Error('cannot place it');
  }).fetch,
});

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  seen.length = 0;
});

test('asserts with the matchers under bun test', async () => {
  service = await createTestService({ createApp });
  await service.client.send(orderPlaced, { orderId: 'fine' });
  await service.client.send(orderPlaced, { orderId: 'broken' }, { retries: 1 });
  await service.runUntilIdle();
  // biome-ignore lint/suspicious/noExplicitAny: bun's Matchers has no augmentation hook this file needs.
  const assertions = expect(service) as any;
  assertions.toHaveDelivered(orderPlaced, { orderId: 'fine' });
  assertions.toHaveRetried(orderPlaced, 1);
  await assertions.toHaveEndedInDlq(orderPlaced, { orderId: 'broken' });
});

test('explore names the schedule that charges twice under bun test', async () => {
  const error = await explore({ createApp, runs: 50, seed: 1 }, async (explored) => {
    seen.length = 0;
    await explored.client.send(orderPlaced, { orderId: 'once' });
    await explored.runUntilIdle();
    expect(seen).toEqual(['once']);
  }).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ExploreError);
});
