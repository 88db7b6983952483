import { describe, expect, it } from 'vitest';
import { always, failTimes } from './helpers/destination';
import { receiverFor } from './helpers/receive';
import { destination, t, useTestServer } from './helpers/test-server';

useTestServer();

describe('callbacks', () => {
  it('calls the callback after every attempt with the service-facts body, signed for the callback URL', async () => {
    destination.script('/flaky', failTimes(2));
    const receive = receiverFor(t, destination.url);
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/flaky?x=1`,
      body: '{"hello":"world"}',
      contentType: 'application/json',
      retries: 3,
      callback: `${destination.url}/cb`,
    });
    const requests = await destination.waitFor('/cb', 3);
    const callbacks = (await Promise.all(requests.map((request) => receive.callback(request)))).sort(
      (a, b) => (a.retried ?? 0) - (b.retried ?? 0),
    );
    expect(callbacks.map((callback) => [callback.retried, callback.status, callback.body.text])).toEqual([
      [0, 500, 'failure 1'],
      [1, 500, 'failure 2'],
      [2, 200, 'ok'],
    ]);
    for (const callback of callbacks) {
      expect(callback).toMatchObject({
        sourceMessageId: messageId,
        maxRetries: 3,
        url: `${destination.url}/flaky?x=1`,
        method: 'POST',
        callerIP: '127.0.0.1',
      });
      expect(callback.sourceBody).toMatchObject({ valid: true, data: { hello: 'world' } });
      expect(callback.header?.['Content-Type']).toEqual(['text/plain']);
      expect(callback.sourceHeader?.['Content-Type']).toEqual(['application/json']);
      expect(callback.sourceHeader?.Authorization).toBeUndefined();
      expect(typeof callback.createdAt).toBe('number');
      expect(callback.notBefore).toBeGreaterThanOrEqual(callback.createdAt as number);
      // The 200 ended the retries; the failures before it had retries left.
      expect(callback.isFinalAttempt).toBe(callback.status === 200);
      // A callback is a message of its own.
      expect(callback.delivery.messageId).not.toBe(messageId);
    }
    await t.waitForEvents('delivered', 4);
    expect(t.events.filter((event) => event.type === 'callback')).toHaveLength(3);
  });

  it('reports the final attempt with retried equal to maxRetries', async () => {
    destination.script('/down', always(500));
    const receive = receiverFor(t, destination.url);
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 1,
      callback: `${destination.url}/cb`,
    });
    const requests = await destination.waitFor('/cb', 2);
    const last = (await Promise.all(requests.map((request) => receive.callback(request)))).find((callback) => callback.retried === 1);
    expect(last?.isFinalAttempt).toBe(true);
  });

  it('calls the failure callback once, after the last failed attempt, with the dlqId', async () => {
    destination.script('/down', always(500, {}, 'broken'));
    const receive = receiverFor(t, destination.url);
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'payload',
      retries: 2,
      failureCallback: `${destination.url}/failed`,
    });
    const [dlq] = await t.waitForEvents('dlq', 1);
    const [request] = await destination.waitFor('/failed', 1);
    const failure = await receive.failureCallback(request!);
    expect(failure).toMatchObject({ sourceMessageId: messageId, dlqId: dlq!.dlqId, retried: 2, maxRetries: 2, status: 500 });
    expect(failure.body.text).toBe('broken');
    expect(failure.sourceBody.text).toBe('payload');
    expect(failure.workflowRunId).toBeUndefined();
    expect(destination.received('/down')).toHaveLength(3);
    await t.waitForEvents('delivered', 1, (event) => event.kind === 'failure-callback');
    expect(destination.received('/failed')).toHaveLength(1);
  });

  it('sends no failure callback when delivery succeeds', async () => {
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/ok`,
      body: 'x',
      failureCallback: `${destination.url}/failed`,
      callback: `${destination.url}/cb`,
    });
    await t.waitForEvents('delivered', 2);
    expect(destination.received('/failed')).toHaveLength(0);
  });

  it('adds the workflow fields to a workflow failure callback', async () => {
    destination.script('/wf', always(500));
    const receive = receiverFor(t, destination.url);
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/wf`,
      body: 'x',
      retries: 0,
      failureCallback: `${destination.url}/failed`,
      workflow: { runId: 'wfr_1', url: `${destination.url}/wf`, createdAt: 1_700_000_000_000 },
    });
    const [request] = await destination.waitFor('/failed', 1);
    const failure = await receive.failureCallback(request!);
    expect(failure).toMatchObject({ workflowRunId: 'wfr_1', workflowCreatedAt: 1_700_000_000_000 });
  });

  it("uses the callback's own settings: method, retries, forwarded headers, delay", async () => {
    destination.script('/cb', always(500));
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/ok`,
      body: 'x',
      retries: 4,
      callback: {
        url: `${destination.url}/cb`,
        method: 'PUT',
        retries: 1,
        retryDelay: '500',
        delay: '20s',
        headers: { 'X-Callback-Secret': 's3' },
      },
    });
    const [delivered] = await t.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
    await t.waitForEvents('failed', 1, (event) => event.kind === 'callback');
    const requests = destination.received('/cb');
    expect(requests.map((request) => [request.method, request.headers['x-callback-secret'], request.headers['service-retried']])).toEqual([
      ['PUT', 's3', '0'],
      ['PUT', 's3', '1'],
    ]);
    expect(t.events.find((event) => event.type === 'retry' && event.kind === 'callback')).toMatchObject({ delayMs: 500 });
    // 20s of callback delay, scaled by 0.001.
    const deliveredAt = destination.received('/ok')[0]!.at;
    expect(requests[0]!.at - deliveredAt).toBeGreaterThanOrEqual(19);
    expect(delivered).toMatchObject({ messageId, status: 200, retried: 0, url: `${destination.url}/ok` });
    expect(JSON.parse(requests[0]!.text)).toMatchObject({ sourceMessageId: messageId, status: 200, retried: 0, maxRetries: 4 });
  });

  it('gives a callback the retries of the original message when it sets none', async () => {
    destination.script('/cb', always(500));
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/ok`,
      body: 'x',
      retries: 2,
      callback: `${destination.url}/cb`,
    });
    await t.waitForEvents('failed', 1, (event) => event.kind === 'callback');
    expect(destination.received('/cb')).toHaveLength(3);
  });

  it('sends Failure-Callback settings and forwarded headers', async () => {
    destination.script('/down', always(500));
    await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 0,
      failureCallback: { url: `${destination.url}/failed`, headers: { 'X-Why': 'audit' } },
    });
    const [request] = await destination.waitFor('/failed', 1);
    expect(request!.headers['x-why']).toBe('audit');
    expect(request!.headers['content-type']).toBe('application/json');
  });
});
