import { createMessagingClient, defineDestination, RateLimitError, ValidationError } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/express';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestService, type TestService } from '../src';

const orderPlaced = defineDestination({ name: 'order-placed', path: '/hooks/order-placed', schema: z.object({ orderId: z.string() }) });

/** An Express app as a user writes it: keys from the environment it is given, a failing order for the DLQ. */
function createOrdersApp(env: Readonly<Record<string, string>>) {
  const seen: Array<{ orderId: string; messageId: string; retried: number }> = [];
  const failures: Array<{ dlqId: string | undefined; sourceMessageId: string }> = [];
  const mailroom = createMailroom({ env });
  const app = express();
  app.use(mailroom.exceptDeliveries(express.json()));
  app.post(
    orderPlaced.path,
    mailroom.destination(orderPlaced, (message) => {
      seen.push({ orderId: message.body.orderId, messageId: message.messageId ?? '', retried: message.retried });
      if (message.body.orderId === 'broken') throw new Error('cannot place a broken order');
    }),
  );
  app.post(
    '/hooks/failures',
    mailroom.failureCallback(
      (callback) => {
        failures.push({ dlqId: callback.dlqId, sourceMessageId: callback.sourceMessageId });
      },
      { source: orderPlaced },
    ),
  );
  return Object.assign(app, { seen, failures });
}

let service: TestService | undefined;
afterEach(async () => {
  await service?.close();
  service = undefined;
});

async function start() {
  let app: ReturnType<typeof createOrdersApp> | undefined;
  service = await createTestService({
    createApp: (env) => {
      app = createOrdersApp(env);
      return app;
    },
  });
  return { service, app: app! };
}

describe('an Express app under the test service', () => {
  it('delivers a sent message into the app in-process, signed and verified, typed by its destination', async () => {
    const { service, app } = await start();
    const { messageId } = await service.client.send(orderPlaced, { orderId: 'o-1' });
    expect(app.seen).toEqual([]);
    await service.runUntilIdle();
    expect(app.seen).toEqual([{ orderId: 'o-1', messageId, retried: 0 }]);
    const [delivery] = service.deliveries(orderPlaced);
    expect(delivery?.body.orderId).toBe('o-1');
    expect(delivery?.status).toBe(200);
    expect(delivery?.url).toBe('http://app.test/hooks/order-placed');
  });

  it('retries a failing message with the default backoff on the virtual clock, then dead-letters it and calls the failure callback', async () => {
    const { service, app } = await start();
    const started = service.now();
    const { messageId } = await service.client.send(
      orderPlaced,
      { orderId: 'broken' },
      { retries: 5, failureCallback: 'http://app.test/hooks/failures' },
    );
    const real = Date.now();
    await service.runUntilIdle();
    // Six attempts, minutes of backoff apart by the service's clock, in well under a second of real time.
    expect(app.seen.map((seen) => seen.retried)).toEqual([0, 1, 2, 3, 4, 5]);
    const times = service.attempts(orderPlaced).map((attempt) => attempt.at - started);
    expect(times[0]).toBe(0);
    expect(times.at(-1)).toBeGreaterThan(60_000);
    expect(Date.now() - real).toBeLessThan(5_000);
    const [entry] = await service.dlq();
    expect(entry?.messageId).toBe(messageId);
    expect(app.failures).toEqual([{ dlqId: entry?.dlqId, sourceMessageId: messageId }]);
    expect(service.callbacks().map((callback) => callback.kind)).toEqual(['failure-callback']);
  });

  it('holds a delayed message until the clock reaches it', async () => {
    const { service, app } = await start();
    await service.client.send(orderPlaced, { orderId: 'later' }, { delay: '1h' });
    await service.advance('59m');
    expect(app.seen).toEqual([]);
    await service.advance('1m');
    expect(app.seen.map((seen) => seen.orderId)).toEqual(['later']);
  });

  it('fires a schedule at its cron times', async () => {
    const { service, app } = await start();
    // 00:00 UTC, so the cron's times are whole hours from here.
    const midnight = new Date(Math.ceil(service.now() / 86_400_000) * 86_400_000);
    await service.advance(Math.round((midnight.getTime() - service.now()) / 1000));
    await service.client.schedules.createJSON({
      destination: 'http://app.test/hooks/order-placed',
      cron: '0 * * * *',
      body: { orderId: 'hourly' },
    });
    await service.advance('3h');
    expect(app.seen.map((seen) => seen.orderId)).toEqual(['hourly', 'hourly', 'hourly']);
    const [schedule] = await service.schedules();
    expect(schedule?.cron).toBe('0 * * * *');
  });

  it('delivers a message twice on demand, with the same message id, and counts it', async () => {
    const { service, app } = await start();
    const fault = service.faults.duplicate({ to: orderPlaced, times: 1 });
    const { messageId } = await service.client.send(orderPlaced, { orderId: 'twice' });
    await service.client.send(orderPlaced, { orderId: 'once' });
    await service.runUntilIdle();
    expect(app.seen.filter((seen) => seen.messageId === messageId)).toHaveLength(2);
    expect(app.seen.filter((seen) => seen.orderId === 'once')).toHaveLength(1);
    expect(fault.count).toBe(1);
  });

  it('loses the app answer on demand: the handler ran, the service retries', async () => {
    const { service, app } = await start();
    service.faults.loseAnswer({ times: 1 });
    await service.client.send(orderPlaced, { orderId: 'lost' });
    await service.runUntilIdle();
    expect(app.seen.map((seen) => seen.retried)).toEqual([0, 1]);
    expect(service.attempts().map((attempt) => attempt.status)).toEqual([undefined, 200]);
  });

  it('signs with a skewed clock on demand: an expired token is refused by the receiver, the retry passes', async () => {
    const { service, app } = await start();
    service.faults.skewClock({ by: '-1h', to: orderPlaced.path, times: 1 });
    await service.client.send(orderPlaced, { orderId: 'skewed' });
    await service.runUntilIdle();
    expect(service.attempts().map((attempt) => attempt.status)).toEqual([401, 200]);
    expect(app.seen).toHaveLength(1);
  });

  it('throttles the code under test on demand: 429 with Retry-After, then accepted again', async () => {
    const { service } = await start();
    const code = createMessagingClient({ baseUrl: service.env.MAILROOM_URL, token: service.env.MAILROOM_TOKEN, env: {}, retry: false });
    const fault = service.faults.throttle({ retryAfter: 30, times: 1 });
    const refused = await code
      .publishJSON({ destination: 'http://app.test/hooks/order-placed', body: { orderId: 'o' } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).status).toBe(429);
    await expect(code.publishJSON({ destination: 'http://app.test/hooks/order-placed', body: { orderId: 'o' } })).resolves.toHaveProperty(
      'messageId',
    );
    expect(fault.count).toBe(1);
  });
});

describe('createTestService refuses what it cannot use, saying what to do', () => {
  it('refuses a missing app, both app and createApp, and a bad app URL', async () => {
    await expect(createTestService({})).rejects.toThrow(/either app .* or createApp/);
    await expect(createTestService({ app: 'http://a.test', createApp: () => 'http://b.test' })).rejects.toThrow(/not both/);
    await expect(createTestService({ app: 'ftp://a.test' })).rejects.toThrow(/appUrl: expected an http\(s\) base URL/);
    await expect(createTestService({ app: {} as never })).rejects.toThrow(/expected an Express app/);
  });

  it('refuses bad durations and fault settings, and use after close', async () => {
    const { service } = await start();
    await expect(service.advance('soon' as never)).rejects.toThrow(/duration/);
    expect(() => service.faults.duplicate({ times: 0 })).toThrow(/invalid fault times 0: give a whole number from 1 to 1,000,000/);
    expect(() => service.faults.throttle({ status: 500 as never })).toThrow(/invalid throttle status 500: use 429 or 503/);
    expect(() => service.faults.duplicate({ to: 'not a url' })).toThrow(
      /give an http:\/\/ or https:\/\/ URL, or a path starting with "\/"/,
    );
    expect(() => service.faults.skewClock({ by: 'soon' as never })).toThrow(ValidationError);
    expect(() => service.faults.duplicate({ to: 42 as never })).toThrow(/to: expected a destination made by defineDestination/);
    await service.close();
    await expect(service.advance('1s')).rejects.toThrow(/after close\(\)/);
  });

  it('stops runUntilIdle on a schedule that never ends, naming the way out', async () => {
    const { service } = await start();
    await service.client.schedules.createJSON({
      destination: 'http://app.test/hooks/order-placed',
      cron: '* * * * *',
      body: { orderId: 'x' },
    });
    await expect(service.runUntilIdle({ maxSteps: 5 })).rejects.toThrow(/a schedule fires forever.*advance\(duration\)/);
  });
});
