import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RateLimitError, ValidationError } from '@mailroom/core';
import 'reflect-metadata';
import { All, Controller, Module, Req, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestService, type TestApp, type TestService } from '../src';

// Every kind of app a test service reaches, through the same checks of what it records: each
// attempt whatever its route or outcome (an answer, a failure, a thrown handler), with the answer's
// headers and the fault that touched it; deliveries are the 2xx ones, callbacks only those delivered.

/** What every app answers, by path: the checks below rely on nothing else. */
function answer(path: string, kind: string): { status: number; body: string } | 'throw' {
  if (path.endsWith('/throw')) return 'throw';
  if (path.endsWith('/fail') || path.endsWith('/failing-callback')) return { status: 500, body: `${kind} failed` };
  return { status: 200, body: kind };
}

async function fetchApp(kind: string, request: Request): Promise<Response> {
  await request.text();
  const result = answer(new URL(request.url).pathname, kind);
  if (result === 'throw') throw new Error(`${kind} threw`);
  return new Response(result.body, { status: result.status, headers: { 'x-app': kind } });
}

function nodeApp(kind: string, req: IncomingMessage, res: ServerResponse): void {
  req.resume();
  req.on('end', () => {
    const result = answer(req.url ?? '/', kind);
    // A Node listener that throws inside a callback would crash the process, as behind a port: it answers 500 instead.
    const { status, body } = result === 'throw' ? { status: 500, body: 'threw' } : result;
    res.writeHead(status, { 'x-app': kind }).end(body);
  });
}

/**
 * A Nest application answering every path as the others do, on Express or on Fastify. The decorators
 * are applied as calls: this package's TypeScript settings have no decorator syntax.
 */
async function nestApp(kind: string, platform: 'express' | 'fastify'): Promise<TestApp> {
  class AnyPath {
    handle(req: { url: string }, res: Record<string, (...args: unknown[]) => unknown>): void {
      const result = answer(req.url, kind);
      if (result === 'throw') throw new Error(`${kind} threw`);
      // Express's response and Fastify's reply name setting the status differently.
      if (platform === 'fastify') (res.code!(result.status) as typeof res).header!('x-app', kind);
      else (res.status!(result.status) as typeof res).set!('x-app', kind);
      res.send!(result.body);
    }
  }
  const handle = Object.getOwnPropertyDescriptor(AnyPath.prototype, 'handle')!;
  Req()(AnyPath.prototype, 'handle', 0);
  Res()(AnyPath.prototype, 'handle', 1);
  // Express 5 names its wildcard; Fastify's router takes a bare one.
  All(platform === 'fastify' ? '*' : '*path')(AnyPath.prototype, 'handle', handle);
  Controller()(AnyPath);
  class AppModule {}
  Module({ controllers: [AnyPath] })(AppModule);
  const options = { logger: false as const };
  const app =
    platform === 'fastify'
      ? await NestFactory.create(AppModule, new FastifyAdapter(), options)
      : await NestFactory.create(AppModule, options);
  if (platform === 'fastify') {
    const fastify = app.getHttpAdapter().getInstance() as ReturnType<typeof Fastify>;
    fastify.addContentTypeParser(
      '*',
      { parseAs: 'buffer' },
      (_request: unknown, body: Buffer | string, done: (error: null, body: unknown) => void) => done(null, body),
    );
  }
  await app.init();
  nestApps.push(app);
  return app;
}
const nestApps: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  await Promise.all(nestApps.map((app) => app.close()));
});

const network = http.createServer((req, res) => nodeApp('base-url', req, res));
const networkReady = new Promise<void>((resolve) => network.listen(0, '127.0.0.1', resolve));
afterAll(() => new Promise<void>((resolve) => network.close(() => resolve())));

interface AppKind {
  kind: string;
  app: () => TestApp | Promise<TestApp>;
  /** Whether a thrown handler reaches the service as a failed attempt without an answer. */
  throws: boolean;
  appUrl?: () => string;
}

const kinds: AppKind[] = [
  { kind: 'node-listener', app: () => (req: IncomingMessage, res: ServerResponse) => nodeApp('node-listener', req, res), throws: false },
  {
    kind: 'express',
    app: () => {
      const app = express();
      app.use((req, res) => nodeApp('express', req, res));
      return app;
    },
    throws: false,
  },
  { kind: 'fetch-1', app: () => (request: Request) => fetchApp('fetch-1', request), throws: true },
  {
    kind: 'fetch-2 (a Next route handler)',
    app: () => ({ fetch: async (request: Request, _context: unknown) => fetchApp('fetch-2 (a Next route handler)', request) }),
    throws: true,
  },
  {
    kind: 'fetch-3 (a Worker)',
    app: () => ({ fetch: (request: Request, _env: unknown, _ctx: unknown) => fetchApp('fetch-3 (a Worker)', request) }),
    throws: true,
  },
  { kind: 'routes', app: () => ({ routes: { '/api/*': { POST: (request: Request) => fetchApp('routes', request) } } }), throws: true },
  {
    kind: 'hono',
    app: () => {
      const app = new Hono();
      app.post('*', (c) => fetchApp('hono', c.req.raw));
      // Hono answers a thrown handler 500 itself.
      return app;
    },
    throws: false,
  },
  {
    kind: 'fastify',
    app: async () => {
      const app = Fastify();
      app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
      app.post('/*', async (request, reply) => {
        const result = answer(request.url, 'fastify');
        if (result === 'throw') throw new Error('fastify threw');
        return reply.code(result.status).header('x-app', 'fastify').send(result.body);
      });
      await app.ready();
      return app;
    },
    throws: false,
  },
  { kind: 'nest (express)', app: () => nestApp('nest (express)', 'express'), throws: false },
  { kind: 'nest (fastify)', app: () => nestApp('nest (fastify)', 'fastify'), throws: false },
  {
    kind: 'base-url',
    app: async () => {
      await networkReady;
      return `http://127.0.0.1:${(network.address() as AddressInfo).port}`;
    },
    throws: false,
  },
];

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

describe.each(kinds)('$kind', ({ kind, app, throws }) => {
  async function start(): Promise<TestService> {
    const made = await app();
    service = await createTestService({ app: made });
    return service;
  }
  const base = () => service!.env.MAILROOM_APP_URL!;

  it('records every attempt with its answer and headers; deliveries are the 2xx ones', async () => {
    const test = await start();
    await test.client.publish({ destination: `${base()}/api/ok`, body: 'a' });
    await test.client.publish({ destination: `${base()}/api/fail`, body: 'b', retries: 1 });
    await test.runUntilIdle();
    const ok = test.attempts('/api/ok');
    expect(ok).toHaveLength(1);
    expect(ok[0]).toMatchObject({ status: 200, kind: 'message', retried: 0, answerHeaders: { 'x-app': kind } });
    expect(test.deliveries('/api/ok')).toHaveLength(1);
    const failed = test.attempts('/api/fail');
    expect(failed.map((attempt) => [attempt.retried, attempt.status])).toEqual([
      [0, 500],
      [1, 500],
    ]);
    expect(failed[0]?.answerHeaders['x-app']).toBe(kind);
    expect(test.deliveries('/api/fail')).toEqual([]);
    const [dead] = await test.dlq();
    expect(dead?.url).toBe(`${base()}/api/fail`);
    // Whole milliseconds everywhere, after the default backoff too.
    expect(Number.isInteger(test.now())).toBe(true);
    expect(dead?.dlqId).not.toContain('.');
  });

  it('records a handler that threw, and an attempt a fault touched', async () => {
    const test = await start();
    test.faults.skewClock({ by: '-10m', to: '/api/skewed', times: 1 });
    test.faults.loseAnswer({ to: '/api/lost', times: 1 });
    await test.client.publish({ destination: `${base()}/api/throw`, body: 't', retries: 0 });
    await test.client.publish({ destination: `${base()}/api/skewed`, body: 's' });
    await test.client.publish({ destination: `${base()}/api/lost`, body: 'l' });
    await test.runUntilIdle();
    const [threw] = test.attempts('/api/throw');
    if (throws) expect(threw).toMatchObject({ status: undefined, error: expect.stringContaining('threw'), answerHeaders: {} });
    else expect(threw?.status).toBe(500);
    expect(test.attempts('/api/skewed')[0]?.fault).toBe('skewClock');
    expect(test.attempts('/api/lost').map((attempt) => [attempt.fault, attempt.status])).toEqual([
      ['loseAnswer', undefined],
      [undefined, 200],
    ]);
  });

  it('lists only delivered callbacks as callbacks()', async () => {
    const test = await start();
    await test.client.publish({ destination: `${base()}/api/ok`, body: 'c', callback: `${base()}/api/callback` });
    await test.client.publish({ destination: `${base()}/api/ok`, body: 'd', callback: `${base()}/api/failing-callback` });
    await test.runUntilIdle();
    expect(test.callbacks().map((attempt) => [attempt.kind, new URL(attempt.url).pathname])).toEqual([['callback', '/api/callback']]);
    expect(test.attempts('/api/failing-callback').length).toBeGreaterThan(0);
  });
});

describe('telling the kind of app', () => {
  it('asks which it is where a bare function could be either', async () => {
    const nextRoute = async (request: Request, _context: unknown) => new Response(await request.text());
    await expect(createTestService({ app: nextRoute })).rejects.toThrow(ValidationError);
    await expect(createTestService({ app: nextRoute })).rejects.toThrow(/\{ fetch: handler \}.*\{ listener: handler \}/);
    const worker = (_request: Request, _env: unknown, _ctx: unknown) => new Response('ok');
    await expect(createTestService({ app: worker })).rejects.toThrow(/3 parameters/);
  });

  it('serves a { listener } it is told is one, whatever its shape', async () => {
    const seen: string[] = [];
    service = await createTestService({
      app: {
        listener: async (req: IncomingMessage, res: ServerResponse) => {
          seen.push(req.url ?? '');
          res.end('ok');
        },
      },
    });
    await service.client.publish({ destination: 'http://app.test/hook', body: 'x' });
    await service.runUntilIdle();
    expect(seen).toEqual(['/hook']);
  });

  it('routes { routes } by exact path, by prefix and by method, and answers 404 and 405 otherwise', async () => {
    service = await createTestService({
      app: {
        routes: {
          '/api/orders': { POST: async () => new Response('orders') },
          '/api/jobs/*': async () => new Response('jobs'),
        },
      },
    });
    for (const path of ['/api/orders', '/api/jobs/nightly', '/api/unknown']) {
      await service.client.publish({ destination: `http://app.test${path}`, body: 'x', retries: 0 });
    }
    await service.client.publish({ destination: 'http://app.test/api/orders', method: 'PUT', body: 'x', retries: 0 });
    await service.runUntilIdle();
    const seen = service.attempts().map((attempt) => [attempt.method, new URL(attempt.url).pathname, attempt.status]);
    // In-process deliveries run concurrently: compare them as a set.
    expect(seen.sort((a, b) => String(a).localeCompare(String(b)))).toEqual([
      ['POST', '/api/jobs/nightly', 200],
      ['POST', '/api/orders', 200],
      ['POST', '/api/unknown', 404],
      ['PUT', '/api/orders', 405],
    ]);
  });

  it('reaches the app in-process only under appUrl, by path: other paths of its origin go to the network', async () => {
    const seen: string[] = [];
    service = await createTestService({
      app: (request: Request) => {
        seen.push(new URL(request.url).pathname);
        return new Response('ok');
      },
      appUrl: 'http://app.test/api',
    });
    await service.client.publish({ destination: 'http://app.test/api/in', body: 'x' });
    await service.client.publish({ destination: 'http://app.test/apiary', body: 'x', retries: 0 });
    await service.runUntilIdle();
    expect(seen).toEqual(['/api/in']);
    // Outside appUrl: over the network, where app.test does not resolve, and recorded all the same.
    expect(service.attempts('/apiary')).toEqual([expect.objectContaining({ status: undefined, error: expect.any(String) })]);
  });
});

describe('after close() and around the sender', () => {
  it('a fault removed or cleared after close() is no crash; one set after close() says to make a new service', async () => {
    const test = await createTestService({ app: () => new Response('ok') });
    const fault = test.faults.duplicate();
    await test.close();
    expect(() => fault.remove()).not.toThrow();
    expect(() => test.faults.clear()).not.toThrow();
    expect(() => test.faults.duplicate()).toThrow(/after close\(\): create a new test service/);
    // Let a rejection that would be unhandled surface inside this test.
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('a handler that sends with service.client while throttled finishes: its retry moves the virtual clock', async () => {
    let throttled = false;
    const test: TestService = await createTestService({
      app: async (request: Request) => {
        await request.text();
        if (new URL(request.url).pathname === '/first' && !throttled) {
          throttled = true;
          test.faults.throttle({ retryAfter: '2s', times: 1 });
          await test.client.publish({ destination: 'http://app.test/second', body: 'y', deduplicationId: 'second' });
        }
        return new Response('ok');
      },
      settleTimeoutMs: 2_000,
    });
    service = test;
    const start = test.now();
    await test.client.publish({ destination: 'http://app.test/first', body: 'x' });
    await test.runUntilIdle();
    expect(test.attempts().map((attempt) => [new URL(attempt.url).pathname, attempt.status])).toEqual([
      ['/first', 200],
      ['/second', 200],
    ]);
    expect(test.now() - start).toBeGreaterThanOrEqual(2000);
  });

  it("a throttle fault's RateLimitError says when to come back, and the client's own retries wait on the virtual clock", async () => {
    service = await createTestService({ app: () => new Response('ok') });
    const start = service.now();
    service.faults.throttle({ retryAfter: '5s', times: 1 });
    const realStart = Date.now();
    await service.client.publish({ destination: 'http://app.test/after-throttle', body: 'x', deduplicationId: 'd-1' });
    // Retried after the 5 s the answer asked for, on the service's clock, not the test's.
    expect(service.now() - start).toBeGreaterThanOrEqual(5000);
    expect(Date.now() - realStart).toBeLessThan(4000);
    // Throttled for good: the client's retries run out (each waiting on the virtual clock) and the error tells when to come back.
    const throttle = service.faults.throttle({ retryAfter: '5s' });
    const refused = await service.client.publish({ destination: 'http://app.test/x', body: 'x' }).catch((error: unknown) => error);
    throttle.remove();
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).reset?.getTime()).toBe(service.now() + 5000);
    expect(Date.now() - realStart).toBeLessThan(4000);
  });
});
