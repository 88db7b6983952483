import { NonRetryableError, ValidationError, type DestinationDefinition } from '@mailroom/core';
import { createSignedRequest } from '@mailroom/core/testing';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { createMailroom } from '../../src/next';
import { base64, keys, order, orderPlacedAt, receiverOptions } from '@mailroom/test-support';

const orderPlaced = orderPlacedAt('/api/orders');

const url = 'https://app.example.com/api/orders';
const signed = (extra: Partial<Parameters<typeof createSignedRequest>[0]> = {}) =>
  createSignedRequest({ url, body: order, ...keys, ...extra });

// What Next.js 15/16 check a route's POST export against (their `AppRouteHandlerFn`), rebuilt here
// without importing `next`: a `NextRequest`-like first argument and a context with Promise params.
type NextRequestLike = Request & { nextUrl: URL; cookies: { get(name: string): unknown } };
type NextRouteHandler = (request: NextRequestLike, context: { params: Promise<Record<string, string | string[] | undefined>> }) => unknown;

describe('App Router', () => {
  it('answers 200 to a valid signature and gives the handler the typed body', async () => {
    const seen = vi.fn();
    const POST = createMailroom(receiverOptions).destination(orderPlaced, (message) => {
      expectTypeOf(message.body).toEqualTypeOf<{ orderId: string; total: number }>();
      seen(message.body, message.messageId);
    });
    const res = await POST(await signed({ messageId: 'msg_1' }), { params: Promise.resolve({}) });
    expect(res.status).toBe(200);
    expect(seen).toHaveBeenCalledWith(order, 'msg_1');
  });

  it('has the shape Next.js type-checks route exports against', () => {
    const POST: NextRouteHandler = createMailroom(receiverOptions).destination(orderPlaced, () => {});
    expectTypeOf(POST).toBeFunction();
    expectTypeOf(createMailroom(receiverOptions).destination(orderPlaced, () => {}))
      .parameter(1)
      .toEqualTypeOf<unknown>();
  });

  it('accepts the next key, and refuses a tampered body with 401 without calling the handler', async () => {
    const handler = vi.fn();
    const POST = createMailroom(receiverOptions).destination(orderPlaced, handler);
    expect((await POST(await signed({ signWith: 'next' }))).status).toBe(200);
    const refused = await POST(await signed({ tampered: true }));
    expect(refused.status).toBe(401);
    expect(await refused.text()).toBe('Invalid signature');
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it('shows forwarded headers under their own names', async () => {
    let forwarded: Record<string, string> = {};
    const POST = createMailroom(receiverOptions).destination(orderPlaced, (message) => void (forwarded = message.forwardedHeaders));
    await POST(await signed({ headers: { 'X-Tenant': 'acme', 'Service-Forward-X-Trace': 'trace-1' } }));
    expect(forwarded).toMatchObject({ 'x-tenant': 'acme', 'x-trace': 'trace-1' });
  });

  it('checks the signed URL against publicUrl plus the request path', async () => {
    const mailroom = createMailroom({ ...receiverOptions, publicUrl: 'https://public.example.com' });
    const POST = mailroom.destination(orderPlaced, () => {});
    // The app sees its internal URL; the service signed the public one.
    const good = await createSignedRequest({
      url: 'http://localhost:3000/api/orders',
      signedUrl: 'https://public.example.com/api/orders',
      body: order,
      ...keys,
    });
    expect((await POST(good)).status).toBe(200);
    const other = await createSignedRequest({
      url: 'http://localhost:3000/api/orders',
      signedUrl: 'https://public.example.com/api/other',
      body: order,
      ...keys,
    });
    expect((await POST(other)).status).toBe(401);
  });

  it('answers 413 one byte over maxBodyBytes and 200 exactly at it', async () => {
    const text = JSON.stringify(order);
    const POST = createMailroom({ ...receiverOptions, maxBodyBytes: Buffer.byteLength(text) }).destination(orderPlaced, () => {});
    expect((await POST(await signed({ body: text, contentType: 'application/json' }))).status).toBe(200);
    expect((await POST(await signed({ body: `${text} `, contentType: 'application/json' }))).status).toBe(413);
  });

  it('answers 500 when the handler throws, and 489 with the header for NonRetryableError', async () => {
    const crash = createMailroom(receiverOptions).destination(orderPlaced, () => {
      throw new Error('database down');
    });
    const res = await crash(await signed());
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('{"error":"handler failed"}'); // no internals leak to the caller
    const permanent = createMailroom(receiverOptions).destination(orderPlaced, () => {
      throw new NonRetryableError('unknown order');
    });
    const refused = await permanent(await signed());
    expect(refused.status).toBe(489);
    expect(refused.headers.get('service-nonretryable-error')).toBe('true');
  });

  it('sends what the handler returns as JSON', async () => {
    const POST = createMailroom(receiverOptions).destination(orderPlaced, (message) => ({ saved: message.body.orderId }));
    const res = await POST(await signed());
    expect(await res.json()).toEqual({ saved: 'o_1' });
  });

  it('decodes callback and failure-callback bodies with the given schemas', async () => {
    const callbacks = vi.fn();
    const failures = vi.fn();
    const mailroom = createMailroom(receiverOptions);
    const onCallback = mailroom.callback(
      (message) => {
        if (message.sourceBody.valid) expectTypeOf(message.sourceBody.data).toEqualTypeOf<{ orderId: string; total: number }>();
        callbacks(message.status, message.sourceBody.data, message.body.text);
      },
      { source: orderPlaced },
    );
    const onFailure = mailroom.failureCallback((message) => failures(message.dlqId, message.sourceBody.data), { source: orderPlaced });
    const payload = { status: 500, sourceMessageId: 'msg_1', sourceBody: base64(order), body: base64('nope'), unknownField: true };
    expect((await onCallback(await signed({ body: payload }))).status).toBe(200);
    expect(callbacks).toHaveBeenCalledWith(500, order, 'nope');
    expect((await onFailure(await signed({ body: { ...payload, dlqId: 'dlq_1' } }))).status).toBe(200);
    expect(failures).toHaveBeenCalledWith('dlq_1', order);
  });

  it('rejects with a pointer to @mailroom/adapters/next/pages when called the Pages Router way', async () => {
    const POST = createMailroom(receiverOptions).destination(orderPlaced, () => {});
    const pagesCall = POST as unknown as (req: unknown, res: unknown) => Promise<Response>;
    await expect(pagesCall({ headers: {}, on() {} }, {})).rejects.toThrow(/@mailroom\/adapters\/next\/pages/);
  });

  it('refuses bad definitions, handlers and settings when the route module loads', () => {
    expect(() => createMailroom(receiverOptions).destination({ name: 'x' } as unknown as DestinationDefinition, () => {})).toThrow(
      ValidationError,
    );
    expect(() => createMailroom(receiverOptions).destination(orderPlaced, null as unknown as () => void)).toThrow(ValidationError);
    expect(() => createMailroom(receiverOptions).callback('x' as unknown as () => void)).toThrow(ValidationError);
    expect(() => createMailroom({ ...receiverOptions, maxBodyBytes: 1.5 })).toThrow(/maxBodyBytes/);
  });
});
