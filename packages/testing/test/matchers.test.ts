import { defineDestination } from '@mailroom/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestService, type MailroomMatchers, matchers, type TestService } from '../src';

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest's own Assertion declares T as any.
  interface Assertion<T = any> extends MailroomMatchers<T> {}
}
expect.extend(matchers);

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string(), total: z.number() }) });

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function shop(): Promise<TestService> {
  service = await createTestService({
    app: async (request: Request) => {
      const body = (await request.json()) as { orderId: string };
      return new Response(null, { status: body.orderId.startsWith('bad') ? 500 : 200 });
    },
  });
  return service;
}

describe('matchers', () => {
  it('toHaveDelivered: a 2xx attempt to the destination, its body matched in part (asymmetric matchers too)', async () => {
    const test = await shop();
    await test.client.send(orderPlaced, { orderId: 'o-1', total: 12 });
    await test.client.send(orderPlaced, { orderId: 'bad-1', total: 3 }, { retries: 1 });
    await test.runUntilIdle();
    expect(test).toHaveDelivered(orderPlaced);
    expect(test).toHaveDelivered(orderPlaced, { orderId: 'o-1' });
    expect(test).toHaveDelivered('/order-placed', { total: expect.any(Number) });
    expect(test).not.toHaveDelivered(orderPlaced, { orderId: 'bad-1' });
    expect(test).not.toHaveDelivered('/elsewhere');
  });

  it('a failure shows the attempts it looked at', async () => {
    const test = await shop();
    await test.client.send(orderPlaced, { orderId: 'bad-2', total: 1 }, { retries: 1 });
    await test.runUntilIdle();
    const failure = (() => {
      try {
        expect(test).toHaveDelivered(orderPlaced, { orderId: 'bad-2' });
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    })();
    expect(failure).toMatch(/expected the service to have delivered to \/order-placed with a body containing/);
    expect(failure).toMatch(/1\. msg_\S+ retried=0 status=500 body=.*bad-2/);
    expect(failure).toMatch(/2\. msg_\S+ retried=1 status=500/);
    expect(() => expect(test).toHaveDelivered('/nowhere')).toThrow(/It made no attempt there/);
  });

  it('toHaveRetried and toHaveEndedInDlq', async () => {
    const test = await shop();
    await test.client.send(orderPlaced, { orderId: 'bad-3', total: 1 }, { retries: 2 });
    await test.client.send(orderPlaced, { orderId: 'o-3', total: 1 });
    await test.runUntilIdle();
    expect(test).toHaveRetried(orderPlaced, 2);
    expect(test).toHaveRetried(orderPlaced, 0);
    expect(test).not.toHaveRetried(orderPlaced, 1);
    await expect(test).toHaveEndedInDlq(orderPlaced, { orderId: 'bad-3' });
    await expect(test).not.toHaveEndedInDlq(orderPlaced, { orderId: 'o-3' });
    expect(() => expect(test).toHaveRetried(orderPlaced, -1)).toThrow(/whole number/);
    expect(() => expect({}).toHaveDelivered(orderPlaced)).toThrow(/expect\(\) a test service/);
  });
});
