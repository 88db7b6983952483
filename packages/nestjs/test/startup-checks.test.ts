import { Controller, Get, Inject, Injectable, Post, UseGuards } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import express from 'express';
import { captureRawBody } from '@mailroom/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  InjectMessagingClient,
  MAILROOM_MANAGEMENT_CLIENT,
  MAILROOM_MESSAGING_CLIENT,
  MAILROOM_MODULE_OPTIONS,
  MailroomModule,
  MailroomSetupError,
  OnCallback,
  OnMessage,
  ReceivedMessage,
  SignatureGuard,
  defineDestination,
  type ManagementClient,
  type MessagingClient,
} from '../src';
import { delivery, order, orderPlaced, orderPlacedAt, postBytes } from '@mailroom/test-support';
import { closeApps, mailroom, startApp } from './nest-app';

@Controller()
class OrdersController {
  @Post('orders')
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage) {
    return { id: (message.body as { orderId: string }).orderId };
  }
}

/** The error `app.init()` failed with. */
async function startupError(
  metadata: Parameters<typeof startApp>[0],
  appOptions?: Parameters<typeof startApp>[1],
): Promise<MailroomSetupError> {
  const error = await startApp(metadata, appOptions).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(MailroomSetupError);
  return error as MailroomSetupError;
}

describe('start-up checks: signing keys', () => {
  afterEach(closeApps);

  it('fails at start-up, naming the variables, when no signing key is configured', async () => {
    const error = await startupError({ imports: [MailroomModule.forRoot({ env: {} })], controllers: [OrdersController] });
    expect(error.message).toContain('MailroomModule cannot start');
    expect(error.message).toContain('No signing key is configured');
    expect(error.message).toContain('MAILROOM_CURRENT_SIGNING_KEY');
  });

  it('reads the keys from MAILROOM_* variables', async () => {
    const env = { MAILROOM_CURRENT_SIGNING_KEY: 'sig_current_test_key', MAILROOM_NEXT_SIGNING_KEY: 'sig_next_test_key' };
    const app = await startApp({ imports: [MailroomModule.forRoot({ env, onError: () => {} })], controllers: [OrdersController] });
    expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
  });

  it('lets a send-only app (no Mailroom routes) start without keys', async () => {
    await expect(startApp({ imports: [MailroomModule.forRoot({ env: {} })] })).resolves.toBeDefined();
  });

  it('starts without keys when verification is explicitly off (tests only)', async () => {
    const app = await startApp({
      imports: [MailroomModule.forRoot({ env: {}, verify: false, onError: () => {} })],
      controllers: [OrdersController],
    });
    expect(
      (
        await postBytes(app.getHttpServer(), '/orders', {
          headers: { 'content-type': 'application/json' },
          body: Buffer.from(JSON.stringify(order)),
        })
      ).status,
    ).toBe(200);
  });
});

/** A module whose receiver reports into `reports`, as the app's onError would. */
function reporting(reports: string[]) {
  return mailroom({ onError: (error) => reports.push((error as Error).message) });
}

// Whether the parsers keep `req.rawBody` is not public in Nest or Express, so the first delivery
// tells: a 500 (the service retries once the app is fixed) and a report naming the fix.
describe('raw body', () => {
  afterEach(closeApps);

  it('answers a delivery with 500 and reports the fix when the app was created without rawBody: true', async () => {
    const reports: string[] = [];
    const app = await startApp({ imports: [reporting(reports)], controllers: [OrdersController] }, { logger: false });
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('rawBody');
    expect(reports).toEqual([expect.stringContaining('NestFactory.create(AppModule, { rawBody: true })')]);
  });

  it('catches the Nest 12 trap createNestApplication(undefined, { rawBody: true }), which drops the options', async () => {
    const reports: string[] = [];
    const moduleRef = await Test.createTestingModule({ imports: [reporting(reports)], controllers: [OrdersController] }).compile();
    // @ts-expect-error Nest 12's two-argument form takes an HTTP adapter first; at runtime the options are lost.
    const app = moduleRef.createNestApplication(undefined, { rawBody: true, logger: false });
    await app.init();
    try {
      expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(500);
      expect(reports).toEqual([expect.stringContaining('rawBody: true')]);
    } finally {
      await app.close();
    }
  });

  it('starts with bodyParser: false, reading the unparsed stream', async () => {
    const app = await startApp({ imports: [mailroom()], controllers: [OrdersController] }, { bodyParser: false, logger: false });
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id: 'o_1' });
  });

  it('reports captureRawBody when a global express.json() is added without verify, even with rawBody: true', async () => {
    const reports: string[] = [];
    const moduleRef = await Test.createTestingModule({ imports: [reporting(reports)], controllers: [OrdersController] }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.use(express.json());
    await app.init();
    try {
      expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(500);
      expect(reports).toEqual([expect.stringContaining('{ verify: captureRawBody }')]);
    } finally {
      await app.close();
    }
  });

  it('starts when a global parser keeps the bytes with captureRawBody', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [mailroom()], controllers: [OrdersController] }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.use(express.json({ verify: captureRawBody }));
    await app.init();
    expect((await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(200);
    await app.close();
  });

  it('starts with app.useBodyParser("text"), which honours rawBody, and verifies text bodies', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [mailroom()], controllers: [RawController] }).compile();
    const app = moduleRef.createNestApplication<NestExpressApplication>({ rawBody: true, logger: false });
    app.useBodyParser('text');
    await app.init();
    const response = await postBytes(
      app.getHttpServer(),
      '/raw',
      await delivery('http://127.0.0.1/raw', 'hello', { contentType: 'text/plain' }),
    );
    expect(response.body).toEqual({ text: 'hello' });
    await app.close();
  });
});

@Controller()
class RawController {
  @Post('raw')
  @UseGuards(SignatureGuard)
  raw(@ReceivedMessage() message: ReceivedMessage) {
    return { text: message.text() };
  }
}

describe('start-up checks: malformed routes', () => {
  afterEach(closeApps);

  it('reports every malformed route at once, with class and method names', async () => {
    @Controller()
    class BrokenController {
      @Post('a')
      // @ts-expect-error the definition is required
      @OnMessage()
      missing() {}

      @Post('b')
      @OnMessage(orderPlaced.schema as never)
      bareSchema() {}

      @Post('c')
      @OnMessage(orderPlaced)
      @OnCallback()
      twoKinds() {}

      @OnMessage(orderPlaced)
      notARoute() {}

      @Get('d')
      @OnMessage(orderPlaced)
      getRoute() {}

      @Post('e')
      @OnCallback({ schema: orderPlaced.schema } as never)
      typo() {}

      @Post('f')
      unguarded(@ReceivedMessage() message: unknown) {
        return message;
      }
    }
    const error = await startupError({ imports: [mailroom()], controllers: [BrokenController] });
    expect(error.problems).toEqual([
      expect.stringMatching(/^BrokenController\.missing: @OnMessage\(\) needs the destination definition/),
      expect.stringMatching(/^BrokenController\.bareSchema: @OnMessage got a bare schema; wrap it in a definition/),
      expect.stringMatching(/^BrokenController\.twoKinds is marked @OnMessage and @OnCallback; a route receives one kind/),
      expect.stringMatching(/^BrokenController\.notARoute is marked @OnMessage but is not a route: add @Post/),
      expect.stringMatching(/^BrokenController\.getRoute is a GET route, but the receiver accepts only POST/),
      expect.stringMatching(/^BrokenController\.typo: @OnCallback got unknown option\(s\) "schema"/),
      expect.stringMatching(/^BrokenController\.unguarded has a @ReceivedMessage\(\) parameter but no SignatureGuard/),
    ]);
  });

  it('reports a Mailroom decorator on a provider, which never receives requests', async () => {
    @Injectable()
    class NotAController {
      @OnMessage(orderPlaced)
      handle() {}
    }
    const error = await startupError({ imports: [mailroom()], providers: [NotAController] });
    expect(error.problems).toEqual([
      expect.stringContaining('NotAController.handle is marked @OnMessage, but NotAController is not a controller'),
    ]);
  });

  it('accepts a GET route when the receiver accepts GET', async () => {
    @Controller()
    class GetController {
      @Get('ping')
      @OnMessage(orderPlacedAt('/ping'))
      ping() {}
    }
    await expect(startApp({ imports: [mailroom({ methods: ['POST', 'GET'] })], controllers: [GetController] })).resolves.toBeDefined();
  });
});

describe("start-up checks: a route serves its definition's path", () => {
  afterEach(closeApps);
  const placed = defineDestination({ name: 'order-placed', schema: orderPlaced.schema });

  it("refuses @Post('orders') for a definition delivered to /order-placed, naming both paths and the fixes", async () => {
    @Controller()
    class OrdersController {
      @Post('orders')
      @OnMessage(placed)
      handle() {}
    }
    const error = await startupError({ imports: [mailroom()], controllers: [OrdersController] });
    expect(error.problems).toEqual([
      expect.stringMatching(/^OrdersController\.handle serves \/orders, but destination "order-placed" is delivered to \/order-placed/),
    ]);
    expect(error.problems[0]).toContain("@Post('order-placed')");
    expect(error.problems[0]).toContain("defineDestination({ name: 'order-placed', path: '/orders', schema })");
  });

  it('accepts the path as method path, as controller path, split across both, or among several', async () => {
    @Controller()
    class MethodPath {
      @Post('/order-placed/')
      @OnMessage(placed)
      handle() {}
    }
    @Controller('order-placed')
    class ControllerPath {
      @Post()
      @OnMessage(placed)
      handle() {}
    }
    const nested = defineDestination({ name: 'nested', path: '/hooks/orders', schema: orderPlaced.schema });
    @Controller({ path: 'hooks' })
    class Split {
      @Post(['legacy', 'orders'])
      @OnMessage(nested)
      handle() {}
    }
    await expect(startApp({ imports: [mailroom()], controllers: [MethodPath, ControllerPath, Split] })).resolves.toBeDefined();
  });

  it("leaves Nest's global prefix out (it belongs in MAILROOM_APP_URL) and still delivers there", async () => {
    @Controller()
    class Prefixed {
      @Post('order-placed')
      @OnMessage(placed)
      handle() {}
    }
    const moduleRef = await Test.createTestingModule({ imports: [mailroom()], controllers: [Prefixed] }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.setGlobalPrefix('api');
    try {
      await app.init();
      const response = await postBytes(
        app.getHttpServer(),
        '/api/order-placed',
        await delivery('http://127.0.0.1/api/order-placed', order),
      );
      expect(response.status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('refuses a route parameter where the definition has a fixed path', async () => {
    @Controller()
    class Param {
      @Post(':kind')
      @OnMessage(placed)
      handle() {}
    }
    const error = await startupError({ imports: [mailroom()], controllers: [Param] });
    expect(error.problems[0]).toMatch(/serves \/:kind, but destination "order-placed" is delivered to \/order-placed/);
  });
});

describe('start-up checks: clients', () => {
  afterEach(closeApps);

  it('fails when a class injects the messaging client and its settings are missing', async () => {
    @Injectable()
    class Checkout {
      constructor(@InjectMessagingClient() readonly client: MessagingClient) {}
    }
    const error = await startupError({ imports: [mailroom()], providers: [Checkout] });
    expect(error.problems).toEqual([
      expect.stringMatching(
        /^Checkout inject\(s\) the messaging client \(MAILROOM_MESSAGING_CLIENT\), which is not configured: Missing setting "baseUrl".*MAILROOM_URL/,
      ),
    ]);
  });

  it('fails when a factory injects the management client and its settings are missing', async () => {
    const error = await startupError({
      imports: [mailroom()],
      providers: [{ provide: 'REPORTS', useFactory: (management: ManagementClient) => management, inject: [MAILROOM_MANAGEMENT_CLIENT] }],
    });
    expect(error.problems).toEqual([
      expect.stringMatching(
        /^provider REPORTS inject\(s\) the management client \(MAILROOM_MANAGEMENT_CLIENT\), which is not configured: Missing setting "baseUrl"/,
      ),
    ]);
  });

  it('fails at once when messaging settings are given in code but incomplete', async () => {
    await expect(startApp({ imports: [mailroom({ baseUrl: 'http://127.0.0.1:1' })] })).rejects.toThrow(
      /Missing setting "token".*MAILROOM_TOKEN/,
    );
  });

  it('fails at once when management settings are given but incomplete', async () => {
    await expect(startApp({ imports: [mailroom({ management: { baseUrl: 'http://127.0.0.1:1/v2' } })] })).rejects.toThrow(
      /Missing setting "user"/,
    );
  });

  it('an unconfigured client that nobody injects throws the ConfigError when used anyway', async () => {
    @Injectable()
    class Lazy {
      constructor(@Inject(MAILROOM_MODULE_OPTIONS) readonly options: unknown) {}
    }
    const app = await startApp({ imports: [mailroom()], providers: [Lazy] });
    const client = app.get<MessagingClient>(MAILROOM_MESSAGING_CLIENT);
    expect(() => client.enqueueJSON({ queue: 'q', destination: 'https://x.test', body: {} })).toThrow(/Missing setting "baseUrl"/);
    expect(client.headerPrefix).toBe('Service');
  });
});
