import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { startStubServer, type StubServer } from '../support/stub-server';

// zod and the schemas built with it are most of core's import time, paid on each cold start of a
// receiver. An app that receives messages and enqueues them never loads them; the first answer that
// needs checking does, once. The mock only records that zod was loaded.
const loaded: string[] = [];
vi.mock('zod', async (original) => {
  loaded.push('zod');
  return original();
});

// The files after this one get the real module again.
afterAll(() => {
  vi.doUnmock('zod');
  vi.resetModules();
});

let stub: StubServer | undefined;
afterEach(() => stub?.close());

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const keys = { currentSigningKey: 'sig_current', nextSigningKey: 'sig_next' };
const url = 'http://app.test/orders';

it('loads zod with the first answer that needs its schemas, not on import, a delivery or a plain enqueue answer', async () => {
  // The files of a worker share their modules (vitest.shared.ts): another one may have loaded zod already.
  vi.resetModules();
  const core = await import('../../src/index');
  await import('../../src/adapter');
  const testing = await import('../../src/testing');
  await import('../../src/idempotency');
  await import('../../src/tracing');
  await import('../../src/undici');
  await import('../../src/internal-protocol');
  expect(loaded).toEqual([]);

  // A signed delivery, verified and handed to its handler.
  const received: unknown[] = [];
  const receiver = core.createReceiver({ ...keys, now: () => NOW, onError: () => {} });
  const endpoint = receiver.message((message) => void received.push(message.body));
  const signed = await testing.signRequest({ url, body: { id: 7 }, key: keys.currentSigningKey, now: () => NOW });
  const out = await endpoint.handle({ method: 'POST', url: '/orders', headers: signed.headers, rawBody: signed.body });
  expect(out.status).toBe(200);
  expect(received).toEqual([{ id: 7 }]);

  // A publish whose answer is the usual one is checked by hand.
  stub = await startStubServer();
  const client = core.createMessagingClient({ baseUrl: stub.url, token: 'test-token', env: {}, sleep: async () => {} });
  stub.reply({ json: { messageId: 'msg_1' } });
  await expect(client.publishJSON({ destination: 'https://example.com/hook', body: { id: 1 } })).resolves.toEqual({
    messageId: 'msg_1',
  });
  expect(loaded).toEqual([]);

  // An odd answer gets zod's full check, and its error names the field.
  stub.reply({ json: { messageId: 42 } });
  await expect(client.publishJSON({ destination: 'https://example.com/hook', body: { id: 2 } })).rejects.toMatchObject({
    name: 'ResponseValidationError',
    field: 'messageId',
  });
  expect(loaded).toEqual(['zod']);

  // Later answers use the schemas already loaded.
  stub.reply({ json: [{ name: 'orders', parallelism: 2, lag: 0, createdAt: 1, updatedAt: 2, paused: false }] });
  await expect(client.queues.list()).resolves.toMatchObject([{ name: 'orders', parallelism: 2 }]);
  expect(loaded).toEqual(['zod']);
});

it('checks a callback body with the schemas loaded on its first delivery', async () => {
  vi.resetModules();
  const core = await import('../../src/index');
  const testing = await import('../../src/testing');
  const seen: Array<{ status: number | undefined; body: string }> = [];
  const endpoint = core
    .createReceiver({ ...keys, now: () => NOW, onError: () => {} })
    .callback((message) => void seen.push({ status: message.status, body: message.body.text }));
  const callback = {
    status: 200,
    header: { 'Content-Type': ['text/plain'] },
    body: btoa('accepted'),
    retried: 0,
    maxRetries: 3,
    sourceMessageId: 'msg_1',
    topicName: '',
    endpointName: '',
    url: 'https://example.com/hook',
    method: 'POST',
    sourceHeader: { 'Content-Type': 'application/json' },
    sourceBody: btoa('{"id":5}'),
    notBefore: '1763812800000',
    createdAt: 1763812800000,
    scheduleId: '',
    callerIP: '127.0.0.1',
  };
  const signed = await testing.signRequest({ url, body: callback, key: keys.currentSigningKey, now: () => NOW });
  const out = await endpoint.handle({ method: 'POST', url: '/orders', headers: signed.headers, rawBody: signed.body });
  expect(out.status).toBe(200);
  expect(seen).toEqual([{ status: 200, body: 'accepted' }]);
  // A body that breaks the callback schema is refused for good (489: never retried), as before.
  const broken = await testing.signRequest({ url, body: { ...callback, status: 'ok' }, key: keys.currentSigningKey, now: () => NOW });
  const refused = await endpoint.handle({ method: 'POST', url: '/orders', headers: broken.headers, rawBody: broken.body });
  expect(refused.status).toBe(489);
  expect(seen).toHaveLength(1);
});
