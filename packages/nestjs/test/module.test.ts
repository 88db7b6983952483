import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, Inject, Injectable, Module, Post } from '@nestjs/common';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  InjectManagementClient,
  InjectMessagingClient,
  MAILROOM_MESSAGING_CLIENT,
  MAILROOM_RECEIVER,
  MailroomModule,
  OnMessage,
  ReceivedMessage,
  type ManagementClient,
  type MessagingClient,
} from '../src';
import type { Receiver } from '@mailroom/core';
import { pipelineOf } from '@mailroom/core/adapter';
import { delivery, keys, order, orderPlaced, postBytes } from '@mailroom/test-support';
import { closeApps, mailroom, startApp } from './nest-app';

interface Seen {
  method: string | undefined;
  url: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** A stand-in for the service on port 0: records each request and answers like the spec. */
let service: Server;
let serviceUrl: string;
const seen: Seen[] = [];

beforeAll(async () => {
  service = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    seen.push({ method: req.method, url: req.url, authorization: req.headers.authorization, body: Buffer.concat(chunks).toString() });
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/v2/enqueue/')) return res.end(JSON.stringify({ messageId: 'msg_stub_1' }));
    if (req.url === '/management/v2/messaging/users') {
      return res.end(JSON.stringify([]));
    }
    res.statusCode = 404;
    res.end(JSON.stringify({ error: 'not found' }));
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => service.close(() => resolve())));
afterEach(async () => {
  seen.length = 0;
  await closeApps();
});

@Injectable()
class Checkout {
  constructor(@InjectMessagingClient() private readonly mailroom: MessagingClient) {}

  place() {
    return this.mailroom.enqueueJSON({ queue: 'orders', destination: 'https://shop.example.com/orders', body: order });
  }
}

@Controller()
class OrdersController {
  @Post('orders')
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage) {
    return { id: (message.body as { orderId: string }).orderId };
  }
}

describe('MailroomModule.forRoot', () => {
  it('provides a MessagingClient that talks to the configured service', async () => {
    const app = await startApp({ imports: [mailroom({ baseUrl: serviceUrl, token: 'tok_test' })], providers: [Checkout] });
    await expect(app.get(Checkout).place()).resolves.toMatchObject({ messageId: 'msg_stub_1' });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/v2/enqueue/orders/https://shop.example.com/orders',
        authorization: 'Bearer tok_test',
        body: JSON.stringify(order),
      },
    ]);
  });

  it('reads the messaging settings from MAILROOM_URL and MAILROOM_TOKEN', async () => {
    const env = { MAILROOM_URL: serviceUrl, MAILROOM_TOKEN: 'tok_env' };
    const app = await startApp({ imports: [MailroomModule.forRoot({ ...keys, env })], providers: [Checkout] });
    await app.get(Checkout).place();
    expect(seen[0]?.authorization).toBe('Bearer tok_env');
  });

  it('provides a ManagementClient when management settings are given', async () => {
    @Injectable()
    class Reports {
      constructor(@InjectManagementClient() readonly management: ManagementClient) {}
    }
    const management = { baseUrl: `${serviceUrl}/management/v2`, user: 'me@example.com', password: 'key' };
    const app = await startApp({ imports: [mailroom({ management })], providers: [Reports] });
    await expect(app.get(Reports).management.users()).resolves.toEqual([]);
    expect(seen[0]?.authorization).toBe(`Basic ${Buffer.from('me@example.com:key').toString('base64')}`);
  });

  it('is visible to feature modules with isGlobal: true', async () => {
    @Module({ controllers: [OrdersController], providers: [Checkout] })
    class OrdersModule {}
    const app = await startApp({ imports: [mailroom({ isGlobal: true, baseUrl: serviceUrl, token: 'tok_test' }), OrdersModule] });
    expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    await app.get(Checkout).place();
    expect(seen).toHaveLength(1);
  });

  it('does not leak into feature modules without isGlobal', async () => {
    @Module({ providers: [Checkout] })
    class OrdersModule {}
    await expect(startApp({ imports: [mailroom({ baseUrl: serviceUrl, token: 'tok_test' }), OrdersModule] })).rejects.toThrow(
      /MAILROOM_MESSAGING_CLIENT/,
    );
  });

  it('refuses options that are not an object', async () => {
    expect(() => MailroomModule.forRoot(null as never)).toThrow(/MailroomModule.forRoot must give an options object, got null/);
    const fromFactory = startApp({ imports: [MailroomModule.forRootAsync({ useFactory: () => 'oops' as never })] });
    await expect(fromFactory).rejects.toThrow(/options factory must give an options object, got string/);
  });

  it('refuses an invalid receiver setting at start-up', async () => {
    await expect(startApp({ imports: [mailroom({ maxBodyBytes: -1 })] })).rejects.toThrow(/maxBodyBytes/);
  });
});

describe('MailroomModule.forRootAsync', () => {
  const CONFIG = 'CONFIG';

  @Module({ providers: [{ provide: CONFIG, useValue: { signing: keys, url: '', token: 'tok_async' } }], exports: [CONFIG] })
  class ConfigModule {}

  it('builds the options with a factory that injects from imported modules', async () => {
    const app = await startApp({
      imports: [
        MailroomModule.forRootAsync({
          isGlobal: true,
          imports: [ConfigModule],
          inject: [CONFIG],
          useFactory: async (config: { signing: typeof keys; token: string }) => ({
            ...config.signing,
            baseUrl: serviceUrl,
            token: config.token,
            env: {},
            onError: () => {},
          }),
        }),
      ],
      controllers: [OrdersController],
      providers: [Checkout],
    });
    expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    await app.get(Checkout).place();
    expect(seen[0]?.authorization).toBe('Bearer tok_async');
  });

  it('runs the start-up checks on the options the factory returned', async () => {
    const pending = startApp({
      imports: [MailroomModule.forRootAsync({ useFactory: () => ({ env: {} }) })],
      controllers: [OrdersController],
    });
    await expect(pending).rejects.toThrow(/No signing key is configured/);
  });

  it('accepts useClass factories', async () => {
    @Injectable()
    class MailroomConfig {
      create() {
        return { ...keys, env: {}, onError: () => {} };
      }
    }
    const app = await startApp({ imports: [MailroomModule.forRootAsync({ useClass: MailroomConfig })], controllers: [OrdersController] });
    expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
  });
});

describe('injection tokens', () => {
  it('exposes the receiver and the client under their tokens', async () => {
    @Injectable()
    class Holder {
      constructor(
        @Inject(MAILROOM_RECEIVER) readonly receiver: Receiver,
        @Inject(MAILROOM_MESSAGING_CLIENT) readonly client: MessagingClient,
      ) {}
    }
    const app = await startApp({ imports: [mailroom({ headerPrefix: 'Upstash', baseUrl: serviceUrl, token: 't' })], providers: [Holder] });
    expect(pipelineOf(app.get(Holder).receiver).headerPrefix).toBe('Upstash');
    expect(app.get(Holder).client.headerPrefix).toBe('Upstash');
  });
});
