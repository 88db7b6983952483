import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createTestService, type TestService } from '@mailroom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { appModule } from '../src/app.module';
import { orderPlaced } from '../src/destinations';
import { type AppEvent, EventLog } from '../src/events';

// The Nest application under the test service: deliveries reach its controllers through its HTTP
// adapter in-process, verified by its guard with the keys the service gave the module.

let service: TestService | undefined;
let nest: INestApplication | undefined;
afterEach(async () => {
  await service?.close();
  await nest?.close();
  service = undefined;
  nest = undefined;
});

async function start(): Promise<{ service: TestService; events: AppEvent[] }> {
  service = await createTestService({
    createApp: async (env) => {
      const moduleRef = await Test.createTestingModule({ imports: [appModule({ env, onError: () => {} })] }).compile();
      nest = moduleRef.createNestApplication({ rawBody: true, logger: false });
      await nest.init();
      return nest;
    },
  });
  return { service, events: nest!.get(EventLog).events };
}

describe('example-nestjs message flows', () => {
  it('retries an order whose answers are lost into the DLQ, and calls the failure callback', async () => {
    const { service, events } = await start();
    service.faults.loseAnswer({ to: orderPlaced });
    await service.client.send(orderPlaced, { orderId: 'o-1', total: 1 }, { retries: 1, failureCallback: 'http://app.test/failures' });
    await service.runUntilIdle();
    const [entry] = await service.dlq();
    expect(events).toEqual([
      { kind: 'order', orderId: 'o-1', total: 1, retried: 0 },
      { kind: 'order', orderId: 'o-1', total: 1, retried: 1 },
      { kind: 'failure-callback', dlqId: entry?.dlqId, orderId: 'o-1' },
    ]);
  });

  it('delivers a delayed order at its time', async () => {
    const { service, events } = await start();
    await service.client.send(orderPlaced, { orderId: 'o-2', total: 2 }, { delay: '30m' });
    await service.advance('29m');
    expect(events).toEqual([]);
    await service.advance('1m');
    expect(events).toEqual([{ kind: 'order', orderId: 'o-2', total: 2, retried: 0 }]);
  });

  it('fires a schedule', async () => {
    const { service, events } = await start();
    await service.client.schedules.createJSON({
      destination: `http://app.test${orderPlaced.path}`,
      cron: '0 */6 * * *',
      body: { orderId: 'batch', total: 0 },
    });
    await service.advance('1d');
    expect(events.filter((event) => event.kind === 'order')).toHaveLength(4);
  });

  it('shows a duplicate delivery to the controller twice, with one message id', async () => {
    const { service, events } = await start();
    service.faults.duplicate({ to: orderPlaced, times: 1 });
    await service.client.send(orderPlaced, { orderId: 'o-3', total: 3 });
    await service.advance(0);
    expect(events).toHaveLength(2);
    const [first, second] = service.deliveries(orderPlaced);
    expect(second?.messageId).toBe(first?.messageId);
  });
});
