import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { failTimes, startDestination } from './helpers/destination';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';
import { resolveOptions } from '../src/settings';
import { useWorkflowApp, w } from './helpers/workflow-app';

// A traced send forwards its W3C `traceparent` with the message (docs/tracing.md): the dev server
// carries it to every attempt, keeps the trace with each attempt in the logs the console reads, and
// the vendor's Workflow SDK carries it on from step to step.

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SENDER_SPAN = '00f067aa0ba902b7';
const TRACE_PARENT = `00-${TRACE_ID}-${SENDER_SPAN}-01`;

type LoggedAttempt = { retried: number; trace?: { traceId: string; spanId: string }; requestHeaders: Record<string, string> };
/** The attempt a log event reports on (the dev server's addition to the service's log fields). */
const attemptOf = (event: object): LoggedAttempt | undefined => (event as { attempt?: LoggedAttempt }).attempt;

describe('a traced message', () => {
  useTestServer();

  it('reaches every attempt with its traceparent, and each attempt in the logs names the trace', async () => {
    destination.script('/traced', failTimes(1));
    const { messageId } = await t.messaging.publish({
      destination: `${destination.url}/traced`,
      body: 'x',
      retries: 1,
      headers: { traceparent: TRACE_PARENT, tracestate: 'vendor=1' },
    });
    const deliveries = await destination.waitFor('/traced', 2);
    expect(deliveries.map((delivery) => [delivery.headers.traceparent, delivery.headers.tracestate])).toEqual([
      [TRACE_PARENT, 'vendor=1'],
      [TRACE_PARENT, 'vendor=1'],
    ]);
    await t.waitForEvents('delivered', 1);
    const events = (await t.messaging.logs.list({ messageId })).events;
    const attempts = events.flatMap((event) => attemptOf(event) ?? []);
    expect(attempts.map((attempt) => [attempt.retried, attempt.trace]).sort(([a], [b]) => Number(a) - Number(b))).toEqual([
      [0, { traceId: TRACE_ID, spanId: SENDER_SPAN }],
      [1, { traceId: TRACE_ID, spanId: SENDER_SPAN }],
    ]);
  });

  it('names no trace for an untraced message, nor for a traceparent that is not one', async () => {
    destination.script('/plain', failTimes(0));
    const plain = await t.messaging.publish({ destination: `${destination.url}/plain`, body: 'x' });
    const broken = await t.messaging.publish({
      destination: `${destination.url}/plain`,
      body: 'y',
      headers: { traceparent: `00-${'0'.repeat(32)}-${SENDER_SPAN}-01` },
    });
    await t.waitForEvents('delivered', 2);
    for (const { messageId } of [plain, broken]) {
      const events = (await t.messaging.logs.list({ messageId })).events;
      const attempt = events.map(attemptOf).find(Boolean);
      expect(attempt?.retried).toBe(0);
      expect(attempt?.trace).toBeUndefined();
    }
  });
});

describe('a traced workflow run (the vendor SDK)', () => {
  useWorkflowApp();

  it('keeps the trigger’s trace on every step: each step message is delivered, and logged, in it', async () => {
    const seen: Array<string | null> = [];
    const url = w.workflow('/traced-run', async (context) => {
      seen.push(context.headers.get('traceparent'));
      await context.run('reserve', () => 'ok');
      await context.sleep('pause', 1);
      await context.run('charge', () => 'ok');
    });
    const { workflowRunId } = await w.client().trigger({ url, body: 'x', headers: { traceparent: TRACE_PARENT } });
    await w.runEnded(workflowRunId, 'RUN_SUCCESS');
    // The SDK reads the run from the start on every step: it saw the trace each time.
    expect(seen.length).toBeGreaterThanOrEqual(4);
    expect(new Set(seen)).toEqual(new Set([TRACE_PARENT]));
    // Four deliveries: the trigger and three steps. The run ends inside the last one (the SDK's DELETE
    // comes before its answer), so its attempt's record is waited for.
    await w.dev.waitForEvents('delivered', 4);
    const events = (await w.dev.messaging.logs.list({ url })).events;
    const traced = events.flatMap((event) => {
      const attempt = attemptOf(event);
      return attempt ? [attempt.trace?.traceId] : [];
    });
    expect(traced).toHaveLength(4);
    expect(new Set(traced)).toEqual(new Set([TRACE_ID]));
  });
});

/** An OTLP/HTTP collector on port 0: what the exporter posts to `/v1/traces` (OTLP JSON), span by span. */
async function startCollector(): Promise<{ url: string; spans: OtlpSpan[]; close(): Promise<void> }> {
  const spans: OtlpSpan[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url === '/v1/traces') {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resource of body.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
  status?: { code?: number };
}

describe('the server’s own spans (otlpEndpoint)', () => {
  it('exports one span per attempt under the sender’s, and each attempt carries its own span to the handler', async () => {
    const collector = await startCollector();
    const target = await startDestination();
    const dev = await startTestServer({ otlpEndpoint: collector.url });
    try {
      target.script('/traced', failTimes(1));
      const { messageId } = await dev.messaging.publish({
        destination: `${target.url}/traced`,
        body: 'x',
        retries: 1,
        headers: { traceparent: TRACE_PARENT },
      });
      await dev.waitForEvents('delivered', 1);
      const deliveries = await target.waitFor('/traced', 2);
      const events = (await dev.messaging.logs.list({ messageId })).events;
      await dev.close();
      const attempts = events.flatMap((event) => attemptOf(event) ?? []).sort((a, b) => a.retried - b.retried);
      // Flushed by close: one span per attempt, each a child of the sender's span, in its trace.
      const exported = [...collector.spans].sort(
        (a, b) => attributeOf(a, 'mailroom.delivery.retried') - attributeOf(b, 'mailroom.delivery.retried'),
      );
      expect(exported.map((span) => [span.name, span.traceId, span.parentSpanId, attributeOf(span, 'http.response.status_code')])).toEqual([
        ['deliver /traced', TRACE_ID, SENDER_SPAN, 500],
        ['deliver /traced', TRACE_ID, SENDER_SPAN, 200],
      ]);
      expect(exported.map((span) => span.status?.code ?? 0)).toEqual([2, 0]);
      // The destination got each attempt's span as its parent, and the logs say so too.
      expect(deliveries.map((delivery) => delivery.headers.traceparent)).toEqual(
        exported.map((span) => `00-${TRACE_ID}-${span.spanId}-01`),
      );
      expect(attempts.map((attempt) => attempt.trace)).toEqual(
        exported.map((span) => ({ traceId: TRACE_ID, spanId: span.spanId, parentSpanId: SENDER_SPAN })),
      );
      expect(attempts.map((attempt) => new Headers(attempt.requestHeaders).get('traceparent'))).toEqual(
        deliveries.map((delivery) => delivery.headers.traceparent),
      );
    } finally {
      await dev.close();
      await target.close();
      await collector.close();
    }
  });

  it('takes the endpoint from the option, else OpenTelemetry’s own variables, and says where it exports', async () => {
    expect(resolveOptions({}, {}).otlpTracesUrl).toBeUndefined();
    expect(resolveOptions({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).otlpTracesUrl).toBe(
      'http://collector:4318/v1/traces',
    );
    const both = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/custom' };
    expect(resolveOptions({}, both).otlpTracesUrl).toBe('http://traces:4318/custom');
    expect(resolveOptions({ otlpEndpoint: 'https://mine:4318' }, both).otlpTracesUrl).toBe('https://mine:4318/v1/traces');
    const dev = await startTestServer({ otlpEndpoint: 'http://127.0.0.1:9' });
    try {
      expect(dev.server.otlpTracesUrl).toBe('http://127.0.0.1:9/v1/traces');
    } finally {
      await dev.close();
    }
  });

  it('refuses an endpoint that is not an http(s) URL, naming what to give', async () => {
    await expect(startTestServer({ otlpEndpoint: 'localhost:4318' })).rejects.toThrow(
      /OTLP\/HTTP collector such as http:\/\/localhost:4318/,
    );
  });
});

function attributeOf(span: OtlpSpan, key: string): number {
  const value = span.attributes.find((attribute) => attribute.key === key)?.value;
  return Number(value?.intValue ?? value?.stringValue);
}
