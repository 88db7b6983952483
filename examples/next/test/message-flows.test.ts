import { createTestService, type TestService } from '@mailroom/testing';
import { afterEach, describe, expect, it } from 'vitest';
import * as callbacks from '../app/api/callbacks/route';
import * as failures from '../app/api/failures/route';
import * as orders from '../app/api/orders/route';
import { orderPlaced } from '../lib/destinations';
import { events } from '../lib/events';

// The route modules under the test service, served by path (`routes`): deliveries are Web Requests
// handed to their POST exports in-process. The routes' receivers read their keys from process.env at
// their first request; vitest.config.ts sets the same pair the service signs with.
const routes = { '/api/orders': orders, '/api/callbacks': callbacks, '/api/failures': failures };

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
  events.length = 0;
});

async function start() {
  service = await createTestService({
    app: { routes },
    appUrl: 'http://localhost:3000',
    signingKeys: { current: process.env.MAILROOM_CURRENT_SIGNING_KEY!, next: process.env.MAILROOM_NEXT_SIGNING_KEY! },
  });
  return service;
}

describe('example-next message flows', () => {
  it('delivers an order to the route handler, and its callback', async () => {
    const service = await start();
    await service.client.send(orderPlaced, { orderId: 'o-1', total: 5 }, { callback: 'http://localhost:3000/api/callbacks' });
    await service.advance(0);
    expect(events).toEqual([
      { kind: 'order', orderId: 'o-1', total: 5, retried: 0 },
      { kind: 'callback', status: 200, isFinalAttempt: true, orderId: 'o-1' },
    ]);
  });

  it('retries an order whose answers are lost (the handler ran once: the route is idempotent), then dead-letters it and calls the failure callback', async () => {
    const service = await start();
    service.faults.loseAnswer({ to: orderPlaced });
    await service.client.send(
      orderPlaced,
      { orderId: 'o-2', total: 2 },
      { retries: 2, failureCallback: 'http://localhost:3000/api/failures' },
    );
    await service.runUntilIdle();
    const [entry] = await service.dlq();
    expect(events).toEqual([
      { kind: 'order', orderId: 'o-2', total: 2, retried: 0 },
      { kind: 'failure-callback', dlqId: entry?.dlqId, orderId: 'o-2' },
    ]);
    // Three attempts reached the route, each answer lost; the two retries were answered as already handled.
    expect(service.attempts(orderPlaced).map((attempt) => [attempt.retried, attempt.fault])).toEqual([
      [0, 'loseAnswer'],
      [1, 'loseAnswer'],
      [2, 'loseAnswer'],
    ]);
  });

  it('holds a delayed order until its time', async () => {
    const service = await start();
    await service.client.send(orderPlaced, { orderId: 'o-3', total: 3 }, { delay: '1d' });
    await service.advance('23h');
    expect(events).toEqual([]);
    await service.advance('1h');
    expect(events).toEqual([{ kind: 'order', orderId: 'o-3', total: 3, retried: 0 }]);
  });

  it('fires a schedule', async () => {
    const service = await start();
    await service.client.schedules.createJSON({
      destination: 'http://localhost:3000/api/orders',
      cron: '*/30 * * * *',
      body: { orderId: 'tick', total: 0 },
    });
    await service.advance('1h');
    expect(events.map((event) => event.kind === 'order' && event.orderId)).toEqual(['tick', 'tick']);
  });

  it('hands the route the same message twice when the service duplicates it, and the handler runs once (lib/mailroom.ts has a store)', async () => {
    const service = await start();
    service.faults.duplicate({ to: orderPlaced, times: 1 });
    await service.client.send(orderPlaced, { orderId: 'o-4', total: 4 });
    await service.advance(0);
    expect(service.deliveries(orderPlaced).map((delivery) => [delivery.messageId, delivery.body.orderId])).toEqual([
      [expect.any(String), 'o-4'],
      [service.deliveries(orderPlaced)[0]?.messageId, 'o-4'],
    ]);
    expect(events).toHaveLength(1);
    expect(service.deliveries(orderPlaced).map((delivery) => delivery.status)).toEqual([200, 200]);
  });
});
