import { Client } from '@upstash/qstash';
import { createTestService, type TestService } from '@mailroom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app';
import type { FulfilmentStep } from '../src/workflow';

// The app's workflow under @mailroom/testing: a day's sleep and a week's wait for a payment event,
// in virtual time. The vendor's SDK reaches the service by its URL (service.env), unchanged.

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start() {
  let fulfilment: FulfilmentStep[] = [];
  service = await createTestService({
    headerPrefix: 'Upstash',
    createApp: (env) => {
      const created = createApp({ env, onError: () => {} });
      fulfilment = created.fulfilment;
      return created.app;
    },
  });
  const qstash = new Client({ baseUrl: service.env.QSTASH_URL, token: service.env.QSTASH_TOKEN });
  return { service, qstash, fulfilment: () => fulfilment };
}

describe('example-express fulfilment workflow', () => {
  it('reserves, sleeps a day, waits for the payment event, then ships', async () => {
    const { service, qstash, fulfilment } = await start();
    await qstash.publishJSON({ url: 'http://app.test/workflows/fulfil', body: { orderId: 'o-9' } });
    await service.advance(0);
    expect(fulfilment()).toEqual([{ step: 'reserved', orderId: 'o-9' }]);
    await service.advance('1d');
    await service.notify('paid-o-9', { amount: 12.5 });
    expect(fulfilment()).toEqual([
      { step: 'reserved', orderId: 'o-9' },
      { step: 'shipped', orderId: 'o-9' },
    ]);
    expect((await service.runs())[0]?.workflowState).toBe('RUN_SUCCESS');
  });

  it('gives up on the payment after a week', async () => {
    const { service, qstash, fulfilment } = await start();
    await qstash.publishJSON({ url: 'http://app.test/workflows/fulfil', body: { orderId: 'o-10' } });
    await service.runUntilIdle();
    expect(fulfilment().map((entry) => entry.step)).toEqual(['reserved', 'payment timed out']);
  });
});
