import { describe, expect, it } from 'vitest';
import { createSignedRequest } from '@mailroom/core/testing';
import { POST as orders } from '../app/api/orders/route';
import { POST as callbacks } from '../app/api/callbacks/route';
import { POST as failures } from '../app/api/failures/route';
import { GET as listEvents } from '../app/api/events/route';

// Route handlers are plain functions of a Web Request: no Next server is needed to test them.
const signed = (path: string, body: unknown, extra: Parameters<typeof createSignedRequest>[0] extends infer O ? Partial<O> : never = {}) =>
  createSignedRequest({ url: `http://localhost:3000${path}`, body, signWith: 'current', ...extra });

describe('example-next routes', () => {
  it('stores a typed order, also when signed with the next key', async () => {
    expect((await orders(await signed('/api/orders', { orderId: 'o-1', total: 5 }), undefined)).status).toBe(200);
    expect((await orders(await signed('/api/orders', { orderId: 'o-2', total: 6 }, { signWith: 'next' }), undefined)).status).toBe(200);
  });

  it('refuses forged, tampered and ill-typed deliveries', async () => {
    expect((await orders(await signed('/api/orders', { orderId: 'x', total: 1 }, { key: 'sig_attacker' }), undefined)).status).toBe(401);
    expect((await orders(await signed('/api/orders', { orderId: 'x', total: 1 }, { tampered: true }), undefined)).status).toBe(401);
    const wrong = await orders(await signed('/api/orders', { orderId: 'x', total: -1 }), undefined);
    expect(wrong.status).toBe(489);
    expect(wrong.headers.get('service-nonretryable-error')).toBe('true');
  });

  it('decodes callbacks and failure callbacks', async () => {
    const sourceBody = btoa(JSON.stringify({ orderId: 'o-3', total: 7 }));
    const callback = { status: 200, body: btoa('{"stored":"o-3"}'), retried: 0, maxRetries: 3, sourceMessageId: 'msg_3', sourceBody };
    expect((await callbacks(await signed('/api/callbacks', callback), undefined)).status).toBe(200);
    expect((await failures(await signed('/api/failures', { ...callback, status: 500, dlqId: '1760000000000-1' }), undefined)).status).toBe(
      200,
    );
    const events = await listEvents().json();
    expect(events).toEqual([
      { kind: 'order', orderId: 'o-1', total: 5, retried: 0 },
      { kind: 'order', orderId: 'o-2', total: 6, retried: 0 },
      { kind: 'callback', status: 200, isFinalAttempt: true, orderId: 'o-3' },
      { kind: 'failure-callback', dlqId: '1760000000000-1', orderId: 'o-3' },
    ]);
  });
});
