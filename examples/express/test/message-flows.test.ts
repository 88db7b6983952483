import { createTestService, explore, type TestService } from '@mailroom/testing';
import request from 'supertest';
import type { ReceiverOptions } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
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

async function start(options: Omit<ReceiverOptions, 'env'> = {}) {
  let events: AppEvent[] = [];
  let app: ReturnType<typeof createApp>['app'] | undefined;
  service = await createTestService({
    createApp: (env) => {
      ({ app, events } = createApp({ ...options, env, onError: () => {} }));
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

  it('handles the duplicate once with an idempotency store (server.ts has one); both deliveries are answered 200', async () => {
    const { service, events } = await start({ idempotency: createMemoryStore() });
    service.faults.duplicate({ to: orderPlaced, times: 1 });
    await service.client.send(orderPlaced, { orderId: 'o-5', total: 5 });
    await service.advance(0);
    expect(orders(events()).map((event) => event.kind === 'order' && event.orderId)).toEqual(['o-5']);
    expect(service.deliveries(orderPlaced).map((delivery) => delivery.status)).toEqual([200, 200]);
  });

  it('stores each order once under 200 delivery schedules (duplicates, answers lost after the handler ran) with the store server.ts uses', async () => {
    let events: AppEvent[] = [];
    const report = await explore(
      {
        runs: 200,
        seed: 2026,
        createApp: (env) => {
          const made = createApp({ env, onError: () => {}, idempotency: createMemoryStore() });
          events = made.events;
          return made.app;
        },
      },
      async (explored) => {
        await explored.client.send(orderPlaced, { orderId: 'o-7', total: 7 });
        await explored.client.send(orderPlaced, { orderId: 'o-8', total: 8 });
        await explored.runUntilIdle();
        expect(
          orders(events)
            .map((event) => event.kind === 'order' && event.orderId)
            .sort(),
        ).toEqual(['o-7', 'o-8']);
      },
    );
    expect(report.used.duplicate + report.used.loseAnswer).toBeGreaterThan(0);
  });

  it('traces /send and the handler as one trace (server.ts traces through the global OpenTelemetry SDK)', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    provider.register();
    try {
      const { service, app } = await start({ tracing: openTelemetry() });
      const sent = await request(app).post('/send').send({ orderId: 'o-6', total: 6 });
      await service.advance(0);
      const [producer] = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.PRODUCER);
      const [consumer] = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CONSUMER);
      expect(producer?.name).toBe('send order-placed');
      expect(consumer?.attributes['messaging.message.id']).toBe(sent.body.messageId);
      expect(consumer?.spanContext().traceId).toBe(producer?.spanContext().traceId);
      expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
    } finally {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    }
  });
});
