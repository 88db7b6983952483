import { createTestService, type TestService } from '@mailroom/testing';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { type AppEvent, createApp } from '../src/app';
import { orderPlaced } from '../src/destinations';

// The whole loop under the test service: the app's client sends, the service delivers (signed, into
// the app without a port), the app's receivers verify, all on a clock the test moves.

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start() {
  let events: AppEvent[] = [];
  let app: ReturnType<typeof createApp>['app'] | undefined;
  service = await createTestService({
    createApp: (env) => {
      ({ app, events } = createApp({ env, onError: () => {} }));
      return app;
    },
  });
  return { service, app: app!, events: () => events };
}

const orders = (events: AppEvent[]) => events.filter((event) => event.kind === 'order');

describe('example-express message flows', () => {
  it("sends through the app's own /send route and delivers back into it", async () => {
    const { service, app, events } = await start();
    const sent = await request(app).post('/send').send({ orderId: 'o-1', total: 12.5 });
    expect(sent.status).toBe(200);
    await service.advance(0);
    expect(orders(events())).toEqual([
      { kind: 'order', orderId: 'o-1', total: 12.5, retried: 0, messageId: sent.body.messageId, outcome: 'stored' },
    ]);
  });

  it('retries a failing order with the default backoff, then dead-letters it and calls the failure callback', async () => {
    const { service, events } = await start();
    const { messageId } = await service.client.send(
      orderPlaced,
      { orderId: 'o-2', total: 1, failTimes: 99 },
      { retries: 3, failureCallback: 'http://app.test/failures' },
    );
    await service.runUntilIdle();
    expect(orders(events()).map((event) => event.kind === 'order' && event.retried)).toEqual([0, 1, 2, 3]);
    const [entry] = await service.dlq();
    expect(entry?.messageId).toBe(messageId);
    expect(events().filter((event) => event.kind === 'failure-callback')).toEqual([
      { kind: 'failure-callback', dlqId: entry?.dlqId, status: 500, orderId: 'o-2' },
    ]);
  });

  it('delivers a delayed order when the clock reaches it, not before', async () => {
    const { service, events } = await start();
    await service.client.send(orderPlaced, { orderId: 'o-3', total: 3 }, { delay: '2h' });
    await service.advance('1h59m');
    expect(orders(events())).toEqual([]);
    await service.advance('1m');
    expect(orders(events()).map((event) => event.kind === 'order' && event.orderId)).toEqual(['o-3']);
  });

  it('fires a schedule at its cron times', async () => {
    const { service, events } = await start();
    await service.client.schedules.createJSON({
      destination: 'http://app.test/orders',
      cron: '*/15 * * * *',
      body: { orderId: 'nightly', total: 0 },
    });
    await service.advance('1h');
    expect(orders(events()).length).toBe(4);
  });

  it('sees a duplicate delivery as two calls with one message id (the handler must be idempotent)', async () => {
    const { service, events } = await start();
    service.faults.duplicate({ to: orderPlaced, times: 1 });
    const { messageId } = await service.client.send(orderPlaced, { orderId: 'o-4', total: 4 });
    await service.advance(0);
    expect(orders(events()).map((event) => event.kind === 'order' && event.messageId)).toEqual([messageId, messageId]);
    expect(service.deliveries(orderPlaced).map((delivery) => delivery.body.orderId)).toEqual(['o-4', 'o-4']);
  });
});
