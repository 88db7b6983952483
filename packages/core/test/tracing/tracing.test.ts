import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createReceiver, defineDestination, NonRetryableError, RetryAfterError, ValidationError, type InboundRequest } from '../../src';
import { createMemoryStore } from '../../src/idempotency';
import { signRequest } from '../../src/testing';
import { openTelemetry } from '../../src/tracing';
import { callbackBody } from '../schemas/fixtures';
import { messagingFixture } from '../messaging/client-fixture';

// A real SDK (NodeTracerProvider: AsyncLocalStorage context, W3C propagator) with the in-memory
// exporter: what the spans say is read back exactly as a backend would get it.
const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => provider.register());
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});
afterEach(() => exporter.reset());

const spans = () => exporter.getFinishedSpans();
const only = (kind: SpanKind): ReadableSpan => {
  const found = spans().filter((span) => span.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('sending: a producer span, and its context forwarded with the message', () => {
  it('publish forwards traceparent to the destination, the callback and the failure callback', async () => {
    const { stub, client } = await messagingFixture({ tracing: openTelemetry() });
    try {
      stub.reply({ json: { messageId: 'msg_1' } });
      await client.publish({
        destination: 'https://app.test/orders?token=secret',
        body: 'x',
        callback: 'https://app.test/cb',
        failureCallback: 'https://app.test/failed',
      });
      const span = only(SpanKind.PRODUCER);
      expect(span.name).toBe('publish https://app.test/orders');
      expect(span.attributes).toMatchObject({
        'messaging.system': 'qstash',
        'messaging.operation.type': 'send',
        'messaging.operation.name': 'publish',
        'messaging.destination.name': 'https://app.test/orders',
        'messaging.message.id': 'msg_1',
      });
      const headers = stub.requests[0]!.headers;
      const sent = TRACEPARENT.exec(headers['service-forward-traceparent'] ?? '');
      expect(sent?.[1]).toBe(span.spanContext().traceId);
      expect(sent?.[2]).toBe(span.spanContext().spanId);
      expect(headers['service-callback-forward-traceparent']).toBe(headers['service-forward-traceparent']);
      expect(headers['service-failure-callback-forward-traceparent']).toBe(headers['service-forward-traceparent']);
    } finally {
      await stub.close();
    }
  });

  it('send names the definition, continues the caller’s trace, and leaves a traceparent the sender forwards itself', async () => {
    const orders = defineDestination({ name: 'orders', path: '/orders', schema: z.object({ id: z.number() }) });
    const { stub, client } = await messagingFixture({ tracing: openTelemetry(), appUrl: 'https://app.test' });
    try {
      stub.reply({ json: { messageId: 'msg_2' } }, { json: { messageId: 'msg_3' } });
      const caller = trace.getTracer('test').startSpan('caller');
      await context.with(trace.setSpan(context.active(), caller), () => client.send(orders, { id: 1 }, { queue: 'q' }));
      caller.end();
      const producer = only(SpanKind.PRODUCER);
      expect(producer.name).toBe('send orders');
      expect(producer.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(producer.spanContext().traceId).toBe(caller.spanContext().traceId);

      const own = '00-11111111111111111111111111111111-2222222222222222-01';
      await client.send(orders, { id: 2 }, { headers: { TraceParent: own } });
      expect(stub.requests[1]!.headers['service-forward-traceparent']).toBe(own);
    } finally {
      await stub.close();
    }
  });

  it('batch is one span whose context every message carries; a refused send ends its span with the error', async () => {
    const { stub, client } = await messagingFixture({ tracing: openTelemetry(), retry: false });
    try {
      stub.reply({ json: [{ messageId: 'a' }, { messageId: 'b' }] }, { status: 400, json: { error: 'invalid destination' } });
      await client.batch([
        { destination: 'https://app.test/a', body: '1' },
        { destination: 'https://app.test/b', body: '2', callback: 'https://app.test/cb' },
      ]);
      const batch = only(SpanKind.PRODUCER);
      expect(batch.name).toBe('batch several destinations');
      expect(batch.attributes['messaging.batch.message_count']).toBe(2);
      const items = stub.requests[0]!.json() as Array<{ headers: Record<string, string> }>;
      const expected = `00-${batch.spanContext().traceId}-${batch.spanContext().spanId}-01`;
      expect(items.map((item) => item.headers['Service-Forward-traceparent'])).toEqual([expected, expected]);
      expect(items[1]!.headers['Service-Callback-Forward-traceparent']).toBe(expected);
      expect(items[0]!.headers['Service-Callback-Forward-traceparent']).toBeUndefined();

      exporter.reset();
      await expect(client.publish({ destination: 'https://app.test/c', body: 'x' })).rejects.toThrow(/invalid destination/);
      const failed = only(SpanKind.PRODUCER);
      expect(failed.status.code).toBe(SpanStatusCode.ERROR);
      expect(failed.events.map((event) => event.name)).toEqual(['exception']);
    } finally {
      await stub.close();
    }
  });

  it('without the option nothing is traced or forwarded, and a wrong option is refused with what to pass', async () => {
    const { stub, client } = await messagingFixture();
    try {
      stub.reply({ json: { messageId: 'msg_4' } });
      await client.publish({ destination: 'https://app.test/orders', body: 'x' });
      expect(spans()).toEqual([]);
      expect(Object.keys(stub.requests[0]!.headers).filter((name) => name.includes('traceparent'))).toEqual([]);
    } finally {
      await stub.close();
    }
    expect(() => createReceiver({ tracing: {} as never })).toThrow(ValidationError);
    expect(() => createReceiver({ tracing: {} as never })).toThrow(/openTelemetry\(\) from '@mailroom\/core\/tracing'/);
    expect(() => openTelemetry({ system: '' })).toThrow(ValidationError);
    expect(() => openTelemetry({ tracerProvider: {} as never })).toThrow(/TracerProvider/);
  });
});

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const keys = { currentSigningKey: 'sig_current', nextSigningKey: 'sig_next' };
const receiver = createReceiver({ ...keys, now: () => NOW, onError: () => {}, tracing: openTelemetry() });
const orders = defineDestination({ name: 'orders', schema: z.object({ id: z.number() }) });
const SENDER = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
const senderHeader = `00-${SENDER.traceId}-${SENDER.spanId}-01`;

async function delivery(body: unknown, extra: Partial<Parameters<typeof signRequest>[0]> = {}, path = '/orders'): Promise<InboundRequest> {
  const signed = await signRequest({ url: `http://app.test${path}`, body, key: keys.currentSigningKey, now: () => NOW, ...extra });
  return { method: 'POST', url: `${path}?secret=1`, headers: signed.headers, rawBody: signed.body };
}

describe('receiving: the handler in a consumer span that continues the sender’s trace', () => {
  it('a destination handler runs in the span (its own spans are children) with the messaging attributes', async () => {
    let inner: string | undefined;
    const endpoint = receiver.destination(orders, () => {
      inner = trace.getActiveSpan()?.spanContext().spanId;
    });
    const answer = await endpoint.handle(
      await delivery({ id: 1 }, { messageId: 'msg_9', retried: 2, headers: { traceparent: senderHeader } }),
    );
    expect(answer.status).toBe(200);
    const span = only(SpanKind.CONSUMER);
    expect(span.name).toBe('process orders');
    expect(span.spanContext().traceId).toBe(SENDER.traceId);
    expect(span.parentSpanContext?.spanId).toBe(SENDER.spanId);
    expect(inner).toBe(span.spanContext().spanId);
    expect(span.attributes).toMatchObject({
      'messaging.system': 'qstash',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'orders',
      'messaging.message.id': 'msg_9',
      'mailroom.delivery.retried': 2,
      'mailroom.outcome': 'handled',
    });
  });

  it('records a failing handler as an error, a give-up as non_retryable, a retry-later as no error', async () => {
    const outcomes: Array<[unknown, string, SpanStatusCode]> = [
      [new Error('database down'), 'failed', SpanStatusCode.ERROR],
      [new NonRetryableError('bad order'), 'non_retryable', SpanStatusCode.ERROR],
      [new RetryAfterError(30, 'busy'), 'retry_later', SpanStatusCode.UNSET],
    ];
    for (const [error, outcome, code] of outcomes) {
      exporter.reset();
      const endpoint = receiver.destination(orders, async () => {
        throw error;
      });
      await endpoint.handle(await delivery({ id: 1 }, { headers: { traceparent: senderHeader } }));
      const span = only(SpanKind.CONSUMER);
      expect([span.attributes['mailroom.outcome'], span.status.code]).toEqual([outcome, code]);
      if (code === SpanStatusCode.ERROR) expect(span.attributes['error.type']).toBe((error as Error).name);
    }
  });

  it('records a handler that throws undefined as failed, thrown at once or rejected alike', async () => {
    for (const handler of [
      () => {
        throw undefined;
      },
      async () => {
        throw undefined;
      },
    ]) {
      exporter.reset();
      const out = await receiver.destination(orders, handler).handle(await delivery({ id: 1 }, { headers: { traceparent: senderHeader } }));
      const span = only(SpanKind.CONSUMER);
      expect([out.status, span.attributes['mailroom.outcome'], span.status.code]).toEqual([500, 'failed', SpanStatusCode.ERROR]);
    }
  });

  it('says when idempotency answered without the handler, and traces no refused delivery', async () => {
    const endpoint = receiver.destination(orders, () => undefined, { idempotency: createMemoryStore() });
    await endpoint.handle(await delivery({ id: 1 }, { messageId: 'msg_once' }));
    await endpoint.handle(await delivery({ id: 1 }, { messageId: 'msg_once' }));
    expect(spans().map((span) => span.attributes['mailroom.outcome'])).toEqual(['handled', 'already_handled']);
    // Without a sender's context the span starts a trace of its own.
    expect(spans()[0]!.parentSpanContext).toBeUndefined();

    exporter.reset();
    const forged = await delivery({ id: 1 }, { tampered: true, headers: { traceparent: senderHeader } });
    expect((await endpoint.handle(forged)).status).toBe(401);
    expect(spans()).toEqual([]);
  });

  it('a callback continues the trace its send forwarded and links to the message it reports on', async () => {
    const callbackSender = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';
    const body = { ...callbackBody, sourceHeader: { 'Content-Type': ['application/json'], Traceparent: [senderHeader] } };
    const endpoint = receiver.callback(() => undefined);
    const answer = await endpoint.handle(await delivery(body, { messageId: 'msg_cb', headers: { traceparent: callbackSender } }, '/cb'));
    expect(answer.status).toBe(200);
    const span = only(SpanKind.CONSUMER);
    expect(span.name).toBe('callback /cb');
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.links.map((link) => link.context.spanId)).toEqual([SENDER.spanId]);
    expect(span.attributes['mailroom.source_message.id']).toBe(callbackBody.sourceMessageId);
  });
});
