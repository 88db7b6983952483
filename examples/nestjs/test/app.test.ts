import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { signRequest } from '@mailroom/core/testing';
import { appModule } from '../src/app.module';

const keys = { currentSigningKey: 'sig_example_current', nextSigningKey: 'sig_example_next' };
let app: INestApplication | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function start(options = {}) {
  const moduleRef = await Test.createTestingModule({ imports: [appModule({ ...keys, onError: () => {}, ...options })] }).compile();
  app = moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.init();
  return app;
}

async function deliver(nest: INestApplication, path: string, body: unknown, extra: Partial<Parameters<typeof signRequest>[0]> = {}) {
  const signed = await signRequest({ url: `http://example.test${path}`, body, key: keys.currentSigningKey, ...extra });
  // Send the text: supertest would JSON-serialise a Buffer under a JSON content type.
  return request(nest.getHttpServer()).post(path).set(signed.headers).send(signed.text);
}

describe('example-nestjs', () => {
  it('stores a typed order', async () => {
    const nest = await start();
    const response = await deliver(nest, '/orders', { orderId: 'o-1', total: 3 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ stored: 'o-1' });
  });

  it('refuses forged, tampered and ill-typed deliveries', async () => {
    const nest = await start();
    expect((await deliver(nest, '/orders', { orderId: 'o', total: 1 }, { key: 'sig_attacker' })).status).toBe(401);
    expect((await deliver(nest, '/orders', { orderId: 'o', total: 1 }, { tampered: true })).status).toBe(401);
    const wrong = await deliver(nest, '/orders', { orderId: 'o', total: -5 });
    expect(wrong.status).toBe(489);
    expect(wrong.headers['service-nonretryable-error']).toBe('true');
    expect((await request(nest.getHttpServer()).get('/events')).body).toEqual([]);
  });

  it('decodes callbacks and failure callbacks', async () => {
    const nest = await start();
    const sourceBody = btoa(JSON.stringify({ orderId: 'o-2', total: 2 }));
    const callback = { status: 500, body: btoa('down'), retried: 3, maxRetries: 3, sourceMessageId: 'msg_2', sourceBody };
    expect((await deliver(nest, '/callbacks', callback)).status).toBe(200);
    expect((await deliver(nest, '/failures', { ...callback, dlqId: '1760000000000-2' })).status).toBe(200);
    expect((await request(nest.getHttpServer()).get('/events')).body).toEqual([
      { kind: 'callback', status: 500, isFinalAttempt: true, orderId: 'o-2' },
      { kind: 'failure-callback', dlqId: '1760000000000-2', orderId: 'o-2' },
    ]);
  });

  it('refuses to start without signing keys, naming the variable', async () => {
    await expect(start({ currentSigningKey: undefined, nextSigningKey: undefined, env: {} })).rejects.toThrow(
      /MAILROOM_CURRENT_SIGNING_KEY/,
    );
  });
});
