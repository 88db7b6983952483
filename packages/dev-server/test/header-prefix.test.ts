import { describe, expect, it } from 'vitest';
import { always } from './helpers/destination';
import { raw } from './helpers/raw';
import { receiverFor } from './helpers/receive';
import { destination, t, useTestServer } from './helpers/test-server';

useTestServer({ headerPrefix: 'Upstash', issuer: 'Upstash' });

describe('a custom header prefix (Upstash)', () => {
  it('reads Upstash-* settings and sends Upstash-* headers, verified by a receiver with the same prefix', async () => {
    destination.script('/hook', (_, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    const receive = receiverFor(t, destination.url);
    const { messageId } = await t.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/hook`,
      body: '{"a":1}',
      contentType: 'application/json',
      retries: 2,
      retryDelay: '1500',
      headers: { 'X-Trace': 't1' },
      callback: { url: `${destination.url}/cb`, headers: { 'X-Cb': 'c1' } },
    });
    const requests = await destination.waitFor('/hook', 2);
    expect(requests.map((request) => request.headers['upstash-retried'])).toEqual(['0', '1']);
    expect(requests[0]!.headers['upstash-message-id']).toBe(messageId);
    expect(requests[0]!.headers['x-trace']).toBe('t1');
    expect(requests[0]!.headers['service-message-id']).toBeUndefined();
    const delivery = await receive.message(requests[1]!);
    expect(delivery).toMatchObject({ messageId, retried: 1, body: { a: 1 } });
    expect(delivery.signature?.claims.iss).toBe('Upstash');
    expect(t.events.find((event) => event.type === 'retry')).toMatchObject({ delayMs: 1500, delaySource: 'retry-delay' });
    const callbacks = await destination.waitFor('/cb', 2);
    expect(callbacks[0]!.headers['x-cb']).toBe('c1');
    await expect(receive.callback(callbacks[0]!)).resolves.toMatchObject({ sourceMessageId: messageId });
  });

  it('stops on 489 with Upstash-NonRetryable-Error, and ignores Service-* headers', async () => {
    destination.script('/reject', always(489, { 'Upstash-NonRetryable-Error': 'true' }));
    await t.messaging.enqueue({ queue: 'q', destination: `${destination.url}/reject`, body: 'x', retries: 3 });
    await t.waitForEvents('failed', 1);
    expect(destination.received('/reject')).toHaveLength(1);
    const answer = await raw(t, 'POST', `/v2/enqueue/q/${destination.url}/plain`, {
      headers: { 'Service-Retries': 'not a number', 'Service-Forward-X-A': '1' },
      body: 'x',
    });
    expect(answer.status).toBe(200);
    const [received] = await destination.waitFor('/plain', 1);
    expect(received!.headers['x-a']).toBeUndefined();
  });
});
