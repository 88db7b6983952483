import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ConfigError, SchemaValidationError, ValidationError, defineDestination, type BodyOf, type PayloadOf } from '../../src';
import { enqueueResult } from '../schemas/fixtures';
import { messagingFixture, type StubServer } from './client-fixture';

let stub: StubServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const orderPlaced = defineDestination({
  name: 'order-placed',
  schema: z.object({ orderId: z.string(), total: z.number(), placedAt: z.string().transform((s) => new Date(s)) }),
});

describe('send', () => {
  it('publishes validated JSON to appUrl + path, on no queue (nothing waits behind a retrying message)', async () => {
    const fixture = await messagingFixture({ appUrl: 'https://shop.test/base/' });
    stub = fixture.stub;
    fixture.stub.reply({ json: enqueueResult });
    const payload = { orderId: 'o1', total: 12, placedAt: '2026-01-01T00:00:00Z' };
    await fixture.client.send(orderPlaced, payload, { retries: 2 });
    const request = fixture.stub.requests[0];
    expect(request?.path).toBe('/v2/publish/https://shop.test/base/order-placed');
    expect(request?.json()).toEqual(payload);
    expect(request?.headers['service-retries']).toBe('2');
  });

  it('takes an explicit url and queue', async () => {
    const fixture = await messagingFixture();
    stub = fixture.stub;
    fixture.stub.reply({ json: enqueueResult });
    await fixture.client.send(orderPlaced, { orderId: 'o', total: 1, placedAt: 'x' }, { url: 'https://other.test/hook', queue: 'orders' });
    expect(fixture.stub.requests[0]?.path).toBe('/v2/enqueue/orders/https://other.test/hook');
  });

  it('refuses a payload that breaks the schema before sending', async () => {
    const fixture = await messagingFixture({ appUrl: 'https://shop.test' });
    stub = fixture.stub;
    const bad = { orderId: 1, total: 'x' } as unknown as PayloadOf<typeof orderPlaced>;
    const error = await fixture.client.send(orderPlaced, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect((error as SchemaValidationError).message).toMatch(/orderId/);
    expect(fixture.stub.requests).toHaveLength(0);
  });

  it('explains how to set the app URL when it is missing', async () => {
    const fixture = await messagingFixture();
    stub = fixture.stub;
    const missing = fixture.client.send(orderPlaced, { orderId: 'o', total: 1, placedAt: 'x' });
    await expect(missing).rejects.toBeInstanceOf(ConfigError);
    await expect(missing).rejects.toThrow(/MAILROOM_APP_URL.*A \.env file counts only once it is loaded/);
  });

  it('refuses something that is not a definition', async () => {
    const fixture = await messagingFixture({ appUrl: 'https://shop.test' });
    stub = fixture.stub;
    await expect(fixture.client.send({ name: 'x', schema: z.string() } as never, 'x' as never)).rejects.toBeInstanceOf(ValidationError);
  });

  it('is type-checked against the schema input', () => {
    expectTypeOf<PayloadOf<typeof orderPlaced>>().toEqualTypeOf<{ orderId: string; total: number; placedAt: string }>();
    expectTypeOf<BodyOf<typeof orderPlaced>>().toEqualTypeOf<{ orderId: string; total: number; placedAt: Date }>();
    const check = (client: Awaited<ReturnType<typeof messagingFixture>>['client']) => {
      // @ts-expect-error total must be a number
      void client.send(orderPlaced, { orderId: 'o', total: '12', placedAt: 'x' });
      // @ts-expect-error orderId is required
      void client.send(orderPlaced, { total: 12, placedAt: 'x' });
      void client.send(orderPlaced, { orderId: 'o', total: 12, placedAt: 'x' });
    };
    expect(check).toBeTypeOf('function');
  });
});

describe('defineDestination', () => {
  it('defaults the path to /<name>', () => {
    expect(orderPlaced.path).toBe('/order-placed');
    expect(defineDestination({ name: 'a', path: '/api/a', schema: z.string() }).path).toBe('/api/a');
  });
  it.each([
    ['an empty name', { name: '', schema: z.string() }],
    ['a name with a slash', { name: 'a/b', schema: z.string() }],
    ['a relative path', { name: 'a', path: 'api/a', schema: z.string() }],
    ['a path with a query', { name: 'a', path: '/a?x=1', schema: z.string() }],
    ['a missing schema', { name: 'a' }],
    ['a non-schema', { name: 'a', schema: { parse: () => 1 } }],
  ])('refuses %s', (_name, definition) => {
    expect(() => defineDestination(definition as never)).toThrow(ValidationError);
  });
});
