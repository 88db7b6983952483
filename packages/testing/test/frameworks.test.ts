import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, defineDestination } from '@mailroom/core';
import { createMailroom as fastifyMailroom } from '@mailroom/adapters/fastify';
import { createMailroom as h3Mailroom } from '@mailroom/adapters/h3';
import { createMailroom as workerMailroom } from '@mailroom/adapters/cloudflare';
import { createMailroom as honoMailroom } from '@mailroom/adapters/hono';
import { createMailroom as koaMailroom } from '@mailroom/adapters/koa';
import { createMailroom as lambdaMailroom, type HttpApiEvent } from '@mailroom/adapters/lambda';
import { createMailroom as svelteKitMailroom } from '@mailroom/adapters/sveltekit';
import Router from '@koa/router';
import { Elysia } from 'elysia';
import Koa from 'koa';
import Fastify from 'fastify';
import { defineEventHandler, H3 } from 'h3';
import { createApp as createH3v1App, defineEventHandler as defineEventHandlerV1, readRawBody, toNodeListener } from 'h3v1';
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
  it('a SvelteKit handler, its request wrapped in an event (docs/frameworks/sveltekit.md)', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const POST = svelteKitMailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId));
        return { fetch: (request: Request) => POST({ request }) };
      },
    });
    await service.client.send(orderPlaced, { orderId: 'sveltekit' });
    await service.runUntilIdle();
    expect(seen).toEqual(['sveltekit']);
  });

  it('an h3 2 app (Nitro 3), through its fetch', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const app = new H3();
        app.all(
          orderPlaced.path,
          defineEventHandler(h3Mailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId))),
        );
        return { fetch: (request: Request) => app.fetch(request) };
      },
    });
    await service.client.send(orderPlaced, { orderId: 'h3' });
    await service.runUntilIdle();
    expect(seen).toEqual(['h3']);
  });

  it('an h3 1 app (Nuxt 3, Nitro 2), given as its Node listener, a middleware reading the body first', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const app = createH3v1App();
        app.use(defineEventHandlerV1(async (event) => void (await readRawBody(event))));
        app.use(
          orderPlaced.path,
          defineEventHandlerV1(h3Mailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId))),
        );
        // An async (req, res) cannot be told from a fetch handler by its shape: say which it is.
        return { listener: toNodeListener(app) };
      },
    });
    await service.client.send(orderPlaced, { orderId: 'h3 1' });
    await service.runUntilIdle();
    expect(seen).toEqual(['h3 1']);
    expect(service.attempts()).toMatchObject([{ status: 200 }]);
  });

  it("a Worker's fetch, its bindings given as env", async () => {
    const seen: string[] = [];
    service = await createTestService({ app: { fetch: (request: Request) => handle(request, service!.env, {}) } });
    const handle = workerMailroom().destination(orderPlaced, (message, { env }) => {
      seen.push(`${message.body.orderId} ${typeof (env as Record<string, string>).MAILROOM_CURRENT_SIGNING_KEY}`);
    });
    await service.client.send(orderPlaced, { orderId: 'worker' });
    await service.runUntilIdle();
    expect(seen).toEqual(['worker string']);
  });

  it('a Koa app, through its callback', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const app = new Koa();
        const router = new Router();
        router.post(
          orderPlaced.path,
          koaMailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId)),
        );
        app.use(router.routes());
        return app.callback();
      },
    });
    await service.client.send(orderPlaced, { orderId: 'koa' });
    await service.runUntilIdle();
    expect(seen).toEqual(['koa']);
  });

  it('an Elysia app, given as itself: its fetch (docs/frameworks/elysia.md)', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const orders = createReceiver({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId));
        return new Elysia().post(orderPlaced.path, ({ request }) => orders.fetch(request));
      },
    });
    await service.client.send(orderPlaced, { orderId: 'elysia' });
    await service.runUntilIdle();
    expect(seen).toEqual(['elysia']);
  });

  it('an API route of SolidStart, TanStack Start or Astro, its request handed over in its context', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const orders = createReceiver({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId));
        const POST = (context: { request: Request }) => orders.fetch(context.request, context);
        return { fetch: (request: Request) => POST({ request }) };
      },
    });
    await service.client.send(orderPlaced, { orderId: 'api-route' });
    await service.runUntilIdle();
    expect(seen).toEqual(['api-route']);
  });

  it('a Lambda handler, each delivery made an HTTP API event', async () => {
    const seen: string[] = [];
    service = await createTestService({
      createApp: (env) => {
        const handler = lambdaMailroom({ env }).destination(orderPlaced, (message) => void seen.push(message.body.orderId));
        return {
          fetch: async (request: Request) => {
            const url = new URL(request.url);
            const event: HttpApiEvent = {
              version: '2.0',
              rawPath: url.pathname,
              headers: Object.fromEntries(request.headers),
              requestContext: { http: { method: request.method } },
              body: Buffer.from(await request.arrayBuffer()).toString('base64'),
              isBase64Encoded: true,
            };
            const result = await handler(event);
            return new Response(result.body, { status: result.statusCode, headers: result.headers });
          },
        };
      },
    });
    await service.client.send(orderPlaced, { orderId: 'lambda' });
    await service.runUntilIdle();
    expect(seen).toEqual(['lambda']);
  });

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
