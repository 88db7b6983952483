import { defaultBackoffMs } from '@mailroom/core/internal-protocol';
import { describe, expect, it } from 'vitest';
import { always, failTimes, startDestination } from './helpers/destination';
import { destination, startTestServer, t, useTestServer } from './helpers/test-server';

useTestServer();

const retriedHeaders = (requests: Array<{ headers: Record<string, unknown> }>) =>
  requests.map((request) => request.headers['service-retried']);

describe('retries', () => {
  it('makes exactly 1 + retries attempts with Retried 0..retries, then fails', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/down`, body: 'x', retries: 3 });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    const requests = destination.received('/down');
    expect(retriedHeaders(requests)).toEqual(['0', '1', '2', '3']);
    expect(new Set(requests.map((request) => request.headers['service-message-id']))).toEqual(new Set([messageId]));
    const failed = t.events.find((event) => event.type === 'failed');
    expect(failed).toMatchObject({ retried: 3, status: 500, reason: 'retries-exhausted' });
  });

  it('stops after the first success', async () => {
    destination.script('/flaky', failTimes(2));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/flaky`, body: 'x', retries: 5 });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    expect(retriedHeaders(destination.received('/flaky'))).toEqual(['0', '1', '2']);
    expect(t.events.filter((event) => event.type === 'retry')).toHaveLength(2);
  });

  it('uses the plan default (free: 3 retries) when no Retries header is sent', async () => {
    destination.script('/down', always(503));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/down`, body: 'x' });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    expect(destination.received('/down')).toHaveLength(4);
  });

  it('makes a single attempt with retries 0', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/down`, body: 'x', retries: 0 });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    expect(retriedHeaders(destination.received('/down'))).toEqual(['0']);
  });

  it('schedules retries with the Retry-Delay expression (ms, retried from 0), scaled by the time scale', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 3,
      retryDelay: '1000 * (1 + retried)',
    });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    const retries = t.events.filter((event) => event.type === 'retry');
    expect(retries.map((event) => [event.retried, event.delayMs, event.delaySource])).toEqual([
      [0, 1000, 'retry-delay'],
      [1, 2000, 'retry-delay'],
      [2, 3000, 'retry-delay'],
    ]);
    expect(retries.map((event) => event.scaledDelayMs)).toEqual([1, 2, 3]);
    const times = destination.received('/down').map((request) => request.at);
    // Real gaps follow the scaled schedule: at least 1, 2 and 3 ms apart.
    for (let index = 1; index < times.length; index += 1) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(index - 1);
  });

  it('uses pow and max in the expression', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 4,
      retryDelay: 'max(1000, pow(2, retried) * 300)',
    });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    expect(t.events.filter((event) => event.type === 'retry').map((event) => event.delayMs)).toEqual([1000, 1000, 1200, 2400]);
  });

  it('falls back to the default backoff min(86400, e^(2n)) seconds', async () => {
    destination.script('/down', always(500));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/down`, body: 'x', retries: 2 });
    await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    const retries = t.events.filter((event) => event.type === 'retry');
    expect(retries.map((event) => [event.delayMs, event.delaySource])).toEqual([
      [defaultBackoffMs(0), 'default-backoff'],
      [defaultBackoffMs(1), 'default-backoff'],
    ]);
  });

  it("honours the destination's Retry-After over the expression", async () => {
    destination.script('/busy', failTimes(1, 503, { 'Retry-After': '7' }));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/busy`,
      body: 'x',
      retries: 2,
      retryDelay: '1000',
    });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    const [retry] = t.events.filter((event) => event.type === 'retry');
    expect(retry).toMatchObject({ delayMs: 7000, delaySource: 'retry-after', status: 503 });
  });

  it('caps Retry-After at one day', async () => {
    const zero = await startTestServer({ timeScale: 0 });
    try {
      destination.script('/later', failTimes(1, 429, { 'Retry-After': '999999' }));
      const { messageId } = await zero.messaging.enqueue({ queue: 'q', destination: `${destination.url}/later`, body: 'x', retries: 1 });
      await zero.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
      expect(zero.events.find((event) => event.type === 'retry')).toMatchObject({
        delayMs: 86_400_000,
        delaySource: 'retry-after',
        scaledDelayMs: 0,
      });
    } finally {
      await zero.close();
    }
  });

  it('stops at once on 489 with NonRetryable-Error: true: straight to the DLQ, with its failure callback', async () => {
    destination.script('/reject', always(489, { 'Service-NonRetryable-Error': 'true' }, 'order unknown'));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/reject`,
      body: 'x',
      retries: 5,
      failureCallback: `${destination.url}/on-failure`,
    });
    const [failed] = await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    expect(failed).toMatchObject({ reason: 'non-retryable', status: 489, retried: 0 });
    expect(destination.received('/reject')).toHaveLength(1);
    // What the user sees: the DLQ entry with the 489 answer...
    const { messages } = await t.messaging.dlq.list({ messageId });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ messageId, responseStatus: 489, responseBody: 'order unknown', maxRetries: 5 });
    // ...and the failure callback naming that entry and the answer.
    const [callback] = await destination.waitFor('/on-failure', 1);
    const body = JSON.parse(callback!.text) as {
      dlqId: string;
      status: number;
      sourceMessageId: string;
      retried: number;
      maxRetries: number;
    };
    expect(body).toMatchObject({ dlqId: messages[0]!.dlqId, status: 489, sourceMessageId: messageId, retried: 0, maxRetries: 5 });
  });

  it('retries a 489 without the header, or with it saying false, like any failure', async () => {
    destination.script('/odd', failTimes(1, 489));
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/odd`, body: 'x', retries: 2 });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    expect(destination.received('/odd')).toHaveLength(2);
    destination.script('/false', failTimes(1, 489, { 'Service-NonRetryable-Error': 'false' }));
    const second = await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/false`, body: 'x', retries: 2 });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === second.messageId);
    expect(destination.received('/false')).toHaveLength(2);
    expect(t.events.filter((event) => event.type === 'dlq')).toEqual([]);
  });

  it('counts a timeout (Timeout header) as a failed attempt', async () => {
    destination.script('/slow', (_, index) => (index === 0 ? { status: 200, delayMs: 1500 } : { status: 200 }));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/slow`,
      body: 'x',
      retries: 1,
      timeout: '1s',
    });
    await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId, 8000);
    const [retry] = t.events.filter((event) => event.type === 'retry');
    expect(retry?.error).toBe('timeout after 1s');
    expect(retry?.status).toBeUndefined();
  }, 10_000);

  it('counts a refused connection as a failed attempt', async () => {
    const closed = await startDestination();
    const url = `${closed.url}/gone`;
    await closed.close();
    const { messageId } = await t.messaging.enqueue({ queue: 'q', destination: url as `http://${string}`, body: 'x', retries: 1 });
    const [failed] = await t.waitForEvents('failed', 1, (event) => event.messageId === messageId);
    expect(failed?.error).toBeTruthy();
  });
});
