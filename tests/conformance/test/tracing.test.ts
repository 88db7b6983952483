import { createMessagingClient, defineDestination, type MessagingClient } from '@mailroom/core';
import { openTelemetry } from '@mailroom/core/tracing';
import { startDevServer, type DevServer } from '@mailroom/dev-server';
import { context, propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConformanceTarget, RunningTarget } from '../src/target';
import { express5Target } from '../src/targets/express';
import { fastifyTarget } from '../src/targets/fastify';
import { honoNodeTarget } from '../src/targets/hono';
import { nestRawBodyTarget } from '../src/targets/nestjs';
import { nextAppTarget } from '../src/targets/next';

// One trace from `send` to the handler, in every adapter, through a real `mailroom dev`: the client's
// producer span, the message's trace context carried by the dev server as a forwarded header, the
// adapter's handler in a consumer span of the same trace, and the callback in it too.

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracing = openTelemetry();
const orders = defineDestination({ name: 'orders', schema: z.object({ id: z.number() }) });
let dev: DevServer;
let client: MessagingClient;

beforeAll(async () => {
  provider.register();
  dev = await startDevServer({ port: 0, log: 'silent', headerPrefix: 'Service' });
  client = createMessagingClient({ baseUrl: dev.url, token: dev.token, headerPrefix: 'Service', retry: false, env: {}, tracing });
});
afterAll(async () => {
  await dev?.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** Serves a target on a real port whatever its kind (App Router targets answer in-process), so the dev server can deliver to it. */
async function reachable(target: RunningTarget): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      const name = req.rawHeaders[i]!;
      if (!/^(host|connection|transfer-encoding)$/i.test(name)) headers[name] = req.rawHeaders[i + 1]!;
    }
    const answer = await target.send({ method: req.method ?? 'POST', path: req.url ?? '/', headers, body: Buffer.concat(chunks) });
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function until(what: string, ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready(); waited += 20) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const TARGETS: ConformanceTarget[] = [express5Target, fastifyTarget, honoNodeTarget, nestRawBodyTarget, nextAppTarget];

describe.each(TARGETS)('tracing through mailroom dev: $name', (target) => {
  it('send, the handler and the callback are one trace; the handler runs in its consumer span', async () => {
    const inHandler: Array<{ traceId?: string; spanId?: string }> = [];
    let callbacks = 0;
    const running = await target.start({
      options: {
        currentSigningKey: dev.currentSigningKey,
        nextSigningKey: dev.nextSigningKey,
        headerPrefix: 'Service',
        tracing,
        onError: () => {},
      },
      destination: {
        definition: orders,
        handler: () => void inHandler.push({ ...trace.getActiveSpan()?.spanContext() }),
      },
      callback: () => void callbacks++,
      failureCallback: () => undefined,
      callbackOptions: {},
      failureCallbackOptions: {},
      paths: { destination: '/orders', callback: '/orders-callback', failureCallback: '/orders-failed' },
    });
    const { url, server } = await reachable(running);
    try {
      exporter.reset();
      const checkout = trace.getTracer('test').startSpan('checkout');
      await context.with(trace.setSpan(ROOT_CONTEXT, checkout), () =>
        client.send(orders, { id: 1 }, { url: `${url}/orders`, callback: `${url}/orders-callback` }),
      );
      checkout.end();
      const consumers = () => exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.CONSUMER);
      await until('the handler and the callback', () => consumers().length === 2 && callbacks === 1);

      const traceId = checkout.spanContext().traceId;
      const byName = (name: string): ReadableSpan => {
        const found = exporter.getFinishedSpans().find((span) => span.name === name);
        if (!found)
          throw new Error(
            `no span "${name}" among ${exporter
              .getFinishedSpans()
              .map((span) => span.name)
              .join(', ')}`,
          );
        return found;
      };
      const producer = byName('send orders');
      const handler = byName('process orders');
      const callback = byName('callback /orders-callback');
      expect(producer.parentSpanContext?.spanId).toBe(checkout.spanContext().spanId);
      for (const span of [producer, handler, callback]) expect(span.spanContext().traceId).toBe(traceId);
      expect(handler.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
      expect(callback.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
      expect(handler.attributes['messaging.message.id']).toBe(producer.attributes['messaging.message.id']);
      expect(handler.attributes['mailroom.outcome']).toBe('handled');
      expect(inHandler).toEqual([{ traceId, spanId: handler.spanContext().spanId, traceFlags: 1 }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await running.close();
    }
  });
});
