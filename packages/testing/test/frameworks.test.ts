import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { defineDestination } from '@mailroom/core';
import { createMailroom as fastifyMailroom } from '@mailroom/adapters/fastify';
import { createMailroom as honoMailroom } from '@mailroom/adapters/hono';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestService, type TestService } from '../src';

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });

let service: TestService | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('deliveries into each kind of app', () => {
  it('a Hono app, through its fetch', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const app = new Hono();
        app.post(
          orderPlaced.path,
          honoMailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId)),
        );
        return app;
      },
    });
    await service.client.send(orderPlaced, { orderId: 'hono' });
    await service.runUntilIdle();
    expect(seen).toEqual(['hono']);
  });

  it('a Fastify instance, through its inject', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: async (env) => {
        const app = Fastify();
        const mailroom = fastifyMailroom({ env });
        await app.register(mailroom.plugin);
        app.post(
          orderPlaced.path,
          mailroom.destination(orderPlaced, (message) => void seen.push(message.body.orderId)),
        );
        cleanups.push(() => app.close());
        return app;
      },
    });
    await service.client.send(orderPlaced, { orderId: 'fastify' });
    await service.runUntilIdle();
    expect(seen).toEqual(['fastify']);
  });

  it('a plain fetch handler (a Next route handler, a Worker)', async () => {
    const bodies: string[] = [];
    service = await createTestService({
      app: async (request: Request) => {
        bodies.push(await request.text());
        return new Response('ok');
      },
    });
    await service.client.publish({ destination: 'http://app.test/api/plain', body: 'hello' });
    await service.runUntilIdle();
    expect(bodies).toEqual(['hello']);
    expect(service.deliveries('/api/plain')).toHaveLength(1);
  });

  it('an app already listening, by its base URL, over the network', async () => {
    const bodies: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        bodies.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await createTestService({ app: base, clock: 'real' });
    await service.client.publish({ destination: `${base}/hook`, body: 'over the wire' });
    for (let waited = 0; bodies.length === 0 && waited < 200; waited++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(bodies).toEqual(['over the wire']);
    await expect(service.advance('1s')).rejects.toThrow(/virtual clock/);
  });
});
