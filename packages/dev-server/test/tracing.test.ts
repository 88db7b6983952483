import { describe, expect, it } from 'vitest';
import { failTimes } from './helpers/destination';
import { destination, t, useTestServer } from './helpers/test-server';
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
    const events = (await w.dev.messaging.logs.list({ url })).events;
    const traced = events.flatMap((event) => {
      const attempt = attemptOf(event);
      return attempt ? [attempt.trace?.traceId] : [];
    });
    expect(traced.length).toBeGreaterThanOrEqual(4);
    expect(new Set(traced)).toEqual(new Set([TRACE_ID]));
  });
});
