import { NonRetryableError, RetryAfterError, type BodyOf } from '@mailroom/core';
import { Controller, Post, UseGuards, UseFilters, HttpCode, BadRequestException, Inject } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterEach, describe, expect, it, vi, type Mock } from 'vitest';
import { z } from 'zod';
import {
  MailroomExceptionFilter,
  OnCallback,
  OnFailureCallback,
  OnMessage,
  ReceivedMessage,
  SignatureGuard,
  type CallbackMessage,
  type FailureCallbackMessage,
} from '../src';
import { base64, delivery, order, orderPlaced, orderPlacedAt, postBytes } from '@mailroom/test-support';
import { closeApps, mailroom, startApp } from './nest-app';

const SPY = 'SPY';
// biome-ignore lint/suspicious/noExplicitAny: one spy sees messages, callbacks and failure callbacks alike
type Spy = Mock<(message: any) => unknown>;

@Controller()
class OrdersController {
  constructor(@Inject(SPY) private readonly spy: Spy) {}

  @Post('orders')
  @OnMessage(orderPlaced)
  placed(@ReceivedMessage() message: ReceivedMessage<BodyOf<typeof orderPlaced>>) {
    return this.spy(message);
  }

  @Post('orders/total')
  @OnMessage(orderPlacedAt('/orders/total'))
  total(@ReceivedMessage('body') body: BodyOf<typeof orderPlaced>) {
    return { total: body.total };
  }

  @Post('accepted')
  @HttpCode(202)
  @OnMessage(orderPlacedAt('/accepted'))
  accepted() {}

  @Post('callbacks')
  @OnCallback({ source: orderPlaced, response: z.object({ ok: z.boolean() }) })
  callback(@ReceivedMessage() message: CallbackMessage<BodyOf<typeof orderPlaced>, { ok: boolean }>) {
    this.spy(message);
  }

  @Post('failures')
  @OnFailureCallback({ source: orderPlaced })
  failure(@ReceivedMessage() message: FailureCallbackMessage<BodyOf<typeof orderPlaced>>) {
    this.spy(message);
  }

  @Post('raw')
  @UseGuards(SignatureGuard)
  @UseFilters(MailroomExceptionFilter)
  raw(@ReceivedMessage() message: ReceivedMessage) {
    return { text: message.text() };
  }
}

async function start(spy: Spy = vi.fn(), overrides: Parameters<typeof mailroom>[0] = {}) {
  return startApp({ imports: [mailroom(overrides)], controllers: [OrdersController], providers: [{ provide: SPY, useValue: spy }] });
}

describe('@OnMessage', () => {
  afterEach(closeApps);

  it('hands a valid signed message to the handler with the typed body', async () => {
    const spy: Spy = vi.fn(() => ({ saved: true }));
    const app = await start(spy);
    const response = await postBytes(
      app.getHttpServer(),
      '/orders',
      await delivery('http://127.0.0.1/orders', order, { messageId: 'msg_1', retried: 2, headers: { 'x-tenant': 't1' } }),
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ saved: true });
    expect(spy).toHaveBeenCalledTimes(1);
    const message = spy.mock.calls[0]![0];
    expect(message.body).toEqual(order);
    expect(message.messageId).toBe('msg_1');
    expect(message.retried).toBe(2);
    expect(message.forwardedHeaders).toMatchObject({ 'x-tenant': 't1' });
    expect(message.signature.key).toBe('current');
    expect(Buffer.from(message.rawBody).toString()).toBe(JSON.stringify(order));
  });

  it('accepts a message signed with the next key', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const response = await postBytes(
      app.getHttpServer(),
      '/orders',
      await delivery('http://127.0.0.1/orders', order, { signWith: 'next', key: undefined }),
    );
    expect(response.status).toBe(200);
    expect(spy.mock.calls[0]![0].signature.key).toBe('next');
  });

  it('injects one field with @ReceivedMessage(key)', async () => {
    const app = await start();
    const response = await postBytes(app.getHttpServer(), '/orders/total', await delivery('http://127.0.0.1/orders/total', order));
    expect(response.body).toEqual({ total: 12.5 });
  });

  it('keeps an @HttpCode the method sets', async () => {
    const app = await start();
    expect((await postBytes(app.getHttpServer(), '/accepted', await delivery('http://127.0.0.1/accepted', order))).status).toBe(202);
  });

  it('answers 401, not 403, for a bad signature and never calls the handler', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const forged = await delivery('http://127.0.0.1/orders', order, { key: 'sig_attacker' });
    const response = await postBytes(app.getHttpServer(), '/orders', forged);
    expect(response.status).toBe(401);
    expect(response.text).toBe('Invalid signature');
    expect(spy).not.toHaveBeenCalled();
  });

  it('answers 401 for a missing signature and for a body changed after signing', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const unsigned = await delivery('http://127.0.0.1/orders', order);
    delete unsigned.headers['Service-Signature'];
    expect((await postBytes(app.getHttpServer(), '/orders', unsigned)).status).toBe(401);
    expect(
      (await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order, { tampered: true }))).status,
    ).toBe(401);
    expect(spy).not.toHaveBeenCalled();
  });

  it('answers 401 when the signature was made for another URL and publicUrl is set', async () => {
    const app = await start(vi.fn(), { publicUrl: 'https://shop.example.com' });
    const good = await delivery('https://shop.example.com/orders', order);
    const other = await delivery('https://shop.example.com/elsewhere', order);
    expect((await postBytes(app.getHttpServer(), '/orders', good)).status).toBe(200);
    expect((await postBytes(app.getHttpServer(), '/orders', other)).status).toBe(401);
  });

  it('answers 489 with the NonRetryable header for a schema failure, without calling the handler', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', { orderId: 42 }));
    expect(response.status).toBe(489);
    expect(response.headers['service-nonretryable-error']).toBe('true');
    expect(spy).not.toHaveBeenCalled();
  });

  it('uses the configured header prefix', async () => {
    const app = await start(vi.fn(), { headerPrefix: 'Upstash' });
    const bad = await delivery('http://127.0.0.1/orders', { orderId: 42 }, { headerPrefix: 'Upstash' });
    const response = await postBytes(app.getHttpServer(), '/orders', bad);
    expect(response.status).toBe(489);
    expect(response.headers['upstash-nonretryable-error']).toBe('true');
  });

  it('answers 413 for a body over maxBodyBytes', async () => {
    const spy = vi.fn();
    const app = await start(spy, { maxBodyBytes: 16 });
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(413);
    expect(spy).not.toHaveBeenCalled();
  });

  it('answers 500 when the handler throws, so the service retries', async () => {
    const app = await start(
      vi.fn(() => {
        throw new Error('database down');
      }),
    );
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(500);
    expect(response.text).toBe('{"error":"handler failed"}');
    expect(response.text).not.toContain('database');
  });

  it('answers 489 with the header when the handler throws NonRetryableError', async () => {
    const app = await start(
      vi.fn(async () => {
        throw new NonRetryableError('unknown order');
      }),
    );
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(489);
    expect(response.headers['service-nonretryable-error']).toBe('true');
  });

  it('answers with Retry-After when the handler throws RetryAfterError', async () => {
    const app = await start(
      vi.fn(() => {
        throw new RetryAfterError(30);
      }),
    );
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('30');
  });

  it("keeps Nest's answer for an HttpException the handler chose", async () => {
    const app = await start(
      vi.fn(() => {
        throw new BadRequestException('nope');
      }),
    );
    const response = await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, message: 'nope' });
  });

  it('reports refusals and handler failures to onError with the stage', async () => {
    const onError = vi.fn();
    const app = await start(
      vi.fn(() => {
        throw new Error('boom');
      }),
      { onError },
    );
    await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order, { key: 'sig_attacker' }));
    await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(onError.mock.calls.map(([, context]) => context.stage)).toEqual(['signature', 'handler']);
  });
});

describe('@OnCallback and @OnFailureCallback', () => {
  afterEach(closeApps);

  const callbackBody = {
    status: 200,
    body: base64({ ok: true }),
    retried: 1,
    maxRetries: 1,
    sourceMessageId: 'msg_1',
    url: 'http://127.0.0.1/orders',
    sourceBody: base64(order),
    unknownFutureField: 'kept',
  };

  it('decodes the callback body and the source body', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const response = await postBytes(app.getHttpServer(), '/callbacks', await delivery('http://127.0.0.1/callbacks', callbackBody));
    expect(response.status).toBe(200);
    const message = spy.mock.calls[0]![0];
    expect(message.sourceBody.data).toEqual(order);
    expect(message.sourceBody.text).toBe(JSON.stringify(order));
    expect(message.body.data).toEqual({ ok: true });
    expect(message.isFinalAttempt).toBe(true);
    expect(message.sourceMessageId).toBe('msg_1');
    expect(message.unknownFutureField).toBe('kept');
    expect(message.delivery.messageId).toBeDefined();
  });

  it('decodes a failure callback with its dlqId', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const response = await postBytes(
      app.getHttpServer(),
      '/failures',
      await delivery('http://127.0.0.1/failures', { ...callbackBody, status: 500, body: base64('oops'), dlqId: 'dlq_1' }),
    );
    expect(response.status).toBe(200);
    const message = spy.mock.calls[0]![0];
    expect(message.dlqId).toBe('dlq_1');
    expect(message.body.text).toBe('oops');
    expect(message.sourceBody.data).toEqual(order);
    expect(message.isFinalAttempt).toBe(true);
  });

  it('calls the handler with valid: false when the source body fails its schema, and answers 401 for a bad signature', async () => {
    const spy = vi.fn();
    const app = await start(spy);
    const wrongSource = await delivery('http://127.0.0.1/callbacks', { ...callbackBody, sourceBody: base64({ orderId: 1 }) });
    expect((await postBytes(app.getHttpServer(), '/callbacks', wrongSource)).status).toBe(200);
    expect(spy.mock.calls[0]![0].sourceBody).toMatchObject({ valid: false, data: undefined, text: '{"orderId":1}' });
    expect(
      (
        await postBytes(
          app.getHttpServer(),
          '/failures',
          await delivery('http://127.0.0.1/failures', callbackBody, { key: 'sig_attacker' }),
        )
      ).status,
    ).toBe(401);
    expect(spy).toHaveBeenCalledOnce();
  });
});

describe('SignatureGuard on its own', () => {
  afterEach(closeApps);

  it('verifies a route without a schema and answers 401 through the filter', async () => {
    const app = await start();
    const ok = await postBytes(
      app.getHttpServer(),
      '/raw',
      await delivery('http://127.0.0.1/raw', 'plain text', { contentType: 'text/plain' }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ text: 'plain text' });
    expect(
      (await postBytes(app.getHttpServer(), '/raw', await delivery('http://127.0.0.1/raw', 'x', { key: 'sig_attacker' }))).status,
    ).toBe(401);
  });
});

describe('paths', () => {
  afterEach(closeApps);

  it('checks the signed URL against publicUrl plus the full path, global prefix included', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [mailroom({ publicUrl: 'https://shop.example.com' })],
      controllers: [OrdersController],
      providers: [{ provide: SPY, useValue: vi.fn() }],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    app.setGlobalPrefix('api');
    await app.init();
    const withPrefix = await postBytes(app.getHttpServer(), '/api/orders', await delivery('https://shop.example.com/api/orders', order));
    const withoutPrefix = await postBytes(app.getHttpServer(), '/api/orders', await delivery('https://shop.example.com/orders', order));
    await app.close();
    expect(withPrefix.status).toBe(200);
    expect(withoutPrefix.status).toBe(401);
  });
});

describe("logging through Nest's Logger", () => {
  it('reports refusals and handler failures as one line each under the Mailroom context, never with a stack', async () => {
    const lines: Array<{ level: string; message: string; context: unknown }> = [];
    const record =
      (level: string) =>
      (message: unknown, ...rest: unknown[]) =>
        void lines.push({ level, message: String(message), context: rest.at(-1) });
    const logger = { log: record('log'), error: record('error'), warn: record('warn'), debug: record('debug'), verbose: record('verbose') };
    const moduleRef = await Test.createTestingModule({
      imports: [mailroom({ onError: undefined })],
      controllers: [OrdersController],
      providers: [
        {
          provide: SPY,
          useValue: vi.fn(() => {
            throw new Error('boom');
          }),
        },
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ rawBody: true, logger });
    try {
      await app.init();
      await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order, { key: 'sig_attacker' }));
      await postBytes(app.getHttpServer(), '/orders', await delivery('http://127.0.0.1/orders', order));
    } finally {
      await app.close();
    }
    const mailroomLines = lines.filter((line) => line.context === 'Mailroom');
    expect(mailroomLines.map(({ level, message }) => [level, message.split(':')[0]])).toEqual([
      ['warn', 'request refused at signature'],
      ['error', 'handler failed'],
    ]);
    for (const { message } of mailroomLines) expect(message).not.toMatch(/\n\s+at |sig_current_test_key/);
  });
});
