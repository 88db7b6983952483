import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMessagingClient, ValidationError } from '@mailroom/core';
import { type DevServer, startDevServer } from '@mailroom/dev-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestService, type MessageFixture } from '../src';

// A message seen under `mailroom dev` becomes a test: exported as a fixture from the running server,
// replayed into a test service, answered by the app under test or by the recording.

let dev: DevServer;
let app: http.Server;
let fixture: MessageFixture;
const seenByApp: string[] = [];

beforeAll(async () => {
  dev = await startDevServer({ port: 0, log: 'silent', plan: 'paid' });
  // The app as it ran locally: the first attempt fails (with a header), the second is answered.
  let orders = 0;
  app = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seenByApp.push(req.url ?? '');
      if (req.url === '/api/orders' && orders++ === 0) res.writeHead(503, { 'x-why': 'warming up' }).end('busy');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"stored":true}');
    });
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  const client = createMessagingClient({ baseUrl: dev.url, token: dev.token, env: {} });
  const sent = await client.publish({
    destination: `${base}/api/orders` as `http://${string}`,
    body: '{"orderId":"o-9"}',
    contentType: 'application/json',
    headers: { 'X-Tenant': 'acme' },
    retries: 2,
    retryDelay: '50',
    callback: `${base}/api/callbacks`,
  });
  for (let waited = 0; !seenByApp.includes('/api/callbacks') || seenByApp.length < 4; waited += 1) {
    if (waited > 400) throw new Error(`the message was not delivered and called back: ${seenByApp.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const answer = await fetch(`${dev.url}/dev/messages/${sent.messageId}/fixture`, { headers: { authorization: `Bearer ${dev.token}` } });
  expect(answer.status).toBe(200);
  fixture = (await answer.json()) as MessageFixture;
}, 30_000);

afterAll(async () => {
  await dev?.close();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
});

describe('a fixture exported from mailroom dev', () => {
  it('holds the message as sent and each answer it got', () => {
    expect(fixture.message).toMatchObject({
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'x-tenant': 'acme' },
      bodyBase64: Buffer.from('{"orderId":"o-9"}').toString('base64'),
      retries: 2,
      retryDelay: '50',
      callback: expect.stringMatching(/\/api\/callbacks$/),
    });
    expect(fixture.attempts).toEqual([
      expect.objectContaining({ retried: 0, status: 503, headers: expect.objectContaining({ 'X-Why': 'warming up' }) }),
      expect.objectContaining({ retried: 1, status: 200, bodyBase64: Buffer.from('{"stored":true}').toString('base64') }),
    ]);
  });

  it('is refused to the read-only token, and for a message that redacts', async () => {
    const readOnly = await fetch(`${dev.url}/dev/messages/${fixture.message.messageId}/fixture`, {
      headers: { authorization: `Bearer ${dev.readOnlyToken}` },
    });
    expect(readOnly.status).toBe(403);
    const client = createMessagingClient({ baseUrl: dev.url, token: dev.token, env: {} });
    const { messageId } = await client.publish({
      destination: 'http://127.0.0.1:9/secret',
      body: 'x',
      redact: { body: true },
      delay: '1h',
    });
    const redacted = await fetch(`${dev.url}/dev/messages/${messageId}/fixture`, { headers: { authorization: `Bearer ${dev.token}` } });
    expect(redacted.status).toBe(400);
    expect(await redacted.json()).toEqual({ error: expect.stringMatching(/redacts its body or headers/) });
  });
});

describe('replay', () => {
  it('sends the same request to the app under test, at the same path of appUrl', async () => {
    const received: Array<{ path: string; tenant: string | null; body: string }> = [];
    const service = await createTestService({
      app: async (request: Request) => {
        received.push({ path: new URL(request.url).pathname, tenant: request.headers.get('x-tenant'), body: await request.text() });
        return new Response('ok');
      },
    });
    try {
      const { messageId, recorded } = await service.replay(fixture);
      await service.runUntilIdle();
      expect(received).toEqual([
        { path: '/api/orders', tenant: 'acme', body: '{"orderId":"o-9"}' },
        expect.objectContaining({ path: '/api/callbacks' }),
      ]);
      expect(service.attempts('/api/orders').map((attempt) => attempt.messageId)).toEqual([messageId]);
      expect(recorded.map((attempt) => ('status' in attempt ? attempt.status : attempt.error))).toEqual([503, 200]);
    } finally {
      await service.close();
    }
  });

  it('with answers: "recorded", the service retries and calls back exactly as it did', async () => {
    const callbacks: unknown[] = [];
    const service = await createTestService({
      app: async (request: Request) => {
        callbacks.push(await request.json());
        return new Response('ok');
      },
    });
    try {
      await service.replay(fixture, { answers: 'recorded' });
      await service.runUntilIdle();
      expect(service.attempts('/api/orders').map((attempt) => [attempt.retried, attempt.status, attempt.answerHeaders['x-why']])).toEqual([
        [0, 503, 'warming up'],
        [1, 200, undefined],
      ]);
      // A callback after each attempt reaches the app under test, with the recorded answer inside.
      expect(callbacks).toEqual([
        expect.objectContaining({ status: 503, body: Buffer.from('busy').toString('base64') }),
        expect.objectContaining({ status: 200, body: Buffer.from('{"stored":true}').toString('base64') }),
      ]);
    } finally {
      await service.close();
    }
  });

  it('refuses what is not a fixture', async () => {
    const service = await createTestService({ app: () => new Response('ok') });
    try {
      await expect(service.replay({ fixture: 2 } as never)).rejects.toThrow(ValidationError);
      await expect(service.replay({ ...fixture, message: { ...fixture.message, url: 'nope' } })).rejects.toThrow(
        /GET \/dev\/messages\/\{id\}\/fixture/,
      );
      await expect(service.replay(fixture, { answers: 'maybe' as never })).rejects.toThrow(/"app" or "recorded"/);
    } finally {
      await service.close();
    }
  });
});
