import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { signRequest } from '@mailroom/core/testing';
import { createApp } from '../src/app';

const keys = { currentSigningKey: 'sig_example_current', nextSigningKey: 'sig_example_next' };

async function deliver(
  app: Parameters<typeof request>[0],
  path: string,
  body: unknown,
  extra: Partial<Parameters<typeof signRequest>[0]> = {},
) {
  const server = request(app);
  const signed = await signRequest({ url: `http://example.test${path}`, body, key: keys.currentSigningKey, ...extra });
  // Send the text: supertest would JSON-serialise a Buffer under a JSON content type.
  return server.post(path).set(signed.headers).send(signed.text);
}

describe('example-express', () => {
  it('stores a typed order and exposes what it saw', async () => {
    const { app, events } = createApp({ ...keys, onError: () => {} });
    const response = await deliver(app, '/orders', { orderId: 'o-1', total: 12.5 }, { messageId: 'msg_1' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ stored: 'o-1' });
    expect(events).toEqual([{ kind: 'order', orderId: 'o-1', total: 12.5, retried: 0, messageId: 'msg_1', outcome: 'stored' }]);
  });

  it('fails while retried < failTimes, so the service retries', async () => {
    const { app, events } = createApp({ ...keys, onError: () => {} });
    expect((await deliver(app, '/orders', { orderId: 'o-2', total: 1, failTimes: 2 }, { retried: 0 })).status).toBe(500);
    expect((await deliver(app, '/orders', { orderId: 'o-2', total: 1, failTimes: 2 }, { retried: 2 })).status).toBe(200);
    expect(events.map((e) => e.kind === 'order' && e.outcome)).toEqual(['failed', 'stored']);
  });

  it('refuses a forged or tampered delivery and a wrong payload', async () => {
    const { app, events } = createApp({ ...keys, onError: () => {} });
    expect((await deliver(app, '/orders', { orderId: 'o', total: 1 }, { key: 'sig_attacker' })).status).toBe(401);
    expect((await deliver(app, '/orders', { orderId: 'o', total: 1 }, { tampered: true })).status).toBe(401);
    const wrong = await deliver(app, '/orders', { orderId: 'o', total: -1 });
    expect(wrong.status).toBe(489);
    expect(events).toEqual([]);
  });

  it('decodes callbacks and failure callbacks', async () => {
    const { app } = createApp({ ...keys, onError: () => {} });
    const source = btoa(JSON.stringify({ orderId: 'o-3', total: 3 }));
    const callback = {
      status: 500,
      body: btoa('payment provider unavailable'),
      retried: 1,
      maxRetries: 3,
      sourceMessageId: 'msg_3',
      sourceBody: source,
      url: 'http://example.test/orders',
      method: 'POST',
    };
    expect((await deliver(app, '/callbacks', callback)).status).toBe(200);
    expect((await deliver(app, '/failures', { ...callback, retried: 3, dlqId: '1760000000000-0' })).status).toBe(200);
    const events = (await request(app).get('/events')).body;
    expect(events).toEqual([
      { kind: 'callback', status: 500, retried: 1, isFinalAttempt: false, orderId: 'o-3' },
      { kind: 'failure-callback', dlqId: '1760000000000-0', status: 500, orderId: 'o-3' },
    ]);
  });
});
