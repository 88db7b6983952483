import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  NonRetryableError,
  RetryAfterError,
  type SignatureError,
  ValidationError,
  createReceiver,
  defineDestination,
  type CallbackMessage,
  type FailureCallbackMessage,
  type InboundRequest,
  type ReceivedMessage,
  type ReceiverOptions,
} from '../../src';
import { signRequest, createSignedRequest } from '../../src/testing';
import { pipelineOf } from '../../src/adapter';
import { callbackBody, failureCallbackBody, workflowFailureCallbackBody } from '../schemas/fixtures';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const keys = { currentSigningKey: 'sig_current', nextSigningKey: 'sig_next' };
const base: ReceiverOptions = { ...keys, now: () => NOW, onError: () => {} };
const orders = defineDestination({ name: 'orders', schema: z.object({ id: z.number(), note: z.string().optional() }) });
const url = 'http://app.test/orders';

async function inbound(body: unknown, extra: Partial<Parameters<typeof signRequest>[0]> = {}): Promise<InboundRequest> {
  const signed = await signRequest({ url, body, key: keys.currentSigningKey, now: () => NOW, ...extra });
  return { method: 'POST', url: '/orders', headers: signed.headers, rawBody: signed.body };
}

describe('what a destination handler receives', () => {
  it('gets the typed body, exact bytes, service fields and forwarded headers', async () => {
    let seen: ReceivedMessage<{ id: number; note?: string | undefined }> | undefined;
    const endpoint = createReceiver(base).destination(orders, (message) => {
      expectTypeOf(message.body).toEqualTypeOf<{ id: number; note?: string | undefined }>();
      seen = message;
    });
    const request = await inbound({ id: 7 }, { messageId: 'msg_1', retried: 2, headers: { 'X-Tenant': 'acme' } });
    request.headers = {
      ...(request.headers as Record<string, string>),
      'Service-Topic-Name': 'orders-group',
      'Service-Caller-Ip': '10.0.0.9',
      'Service-Workflow-RunId': 'wfr_1',
      'User-Agent': 'svc',
      Host: 'app.test',
    };
    const out = await endpoint.handle(request);
    expect(out).toEqual({ status: 200, headers: {}, body: '' });
    expect(seen?.body).toEqual({ id: 7 });
    expect(seen?.text()).toBe('{"id":7}');
    expect(seen?.messageId).toBe('msg_1');
    expect(seen?.retried).toBe(2);
    expect(seen?.topicName).toBe('orders-group');
    expect(seen?.callerIp).toBe('10.0.0.9');
    expect(seen?.workflowRunId).toBe('wfr_1');
    expect(seen?.forwardedHeaders).toEqual({ 'x-tenant': 'acme' });
    expect(seen?.signature?.key).toBe('current');
    expect(seen?.signature?.claims.sub).toBe(url);
  });

  it('keeps a forwarded header named __proto__ as an ordinary header', async () => {
    let seen: ReceivedMessage<unknown> | undefined;
    const endpoint = createReceiver(base).destination(orders, (message) => {
      seen = message;
    });
    const request = await inbound({ id: 7 });
    // A Web Headers object, as Next and fetch-style runtimes hand it over.
    // (Entries, not an object literal: `__proto__: 'x'` in a literal would not make a key.)
    request.headers = new Headers([
      ...Object.entries(request.headers as Record<string, string>),
      ['__proto__', 'x'],
      ['Service-Forward-constructor', 'y'],
    ]);
    expect((await endpoint.handle(request)).status).toBe(200);
    expect(Object.getPrototypeOf(seen?.forwardedHeaders)).toBe(Object.prototype);
    expect(Object.entries(seen?.forwardedHeaders ?? {})).toEqual(
      expect.arrayContaining([
        ['__proto__', 'x'],
        ['constructor', 'y'],
      ]),
    );
    expect(Object.hasOwn(seen?.headers ?? {}, '__proto__')).toBe(true);
  });

  it('snapshots the headers at receipt, builds the records only when read, and lets a handler replace them', async () => {
    let seen: ReceivedMessage<unknown> | undefined;
    const request = await inbound({ id: 7 }, { headers: { 'X-Tenant': 'acme' } });
    const headers = { ...(request.headers as Record<string, string>) };
    request.headers = headers;
    const endpoint = createReceiver(base).destination(orders, (message) => {
      // A later change to the framework's header object does not reach the message.
      headers['x-tenant'] = 'changed';
      seen = message;
      expect(message.headers['x-tenant']).toBe('acme');
      expect(message.forwardedHeaders).toEqual({ 'x-tenant': 'acme' });
      expect(message.headers).toBe(message.headers);
      message.headers = { replaced: 'yes' };
    });
    expect((await endpoint.handle(request)).status).toBe(200);
    expect(seen?.headers).toEqual({ replaced: 'yes' });
    // Logged as JSON, a message shows its headers like plain data would; the bytes' text is a method.
    const logged = JSON.parse(JSON.stringify(seen));
    expect(logged.forwardedHeaders).toEqual({ 'x-tenant': 'acme' });
    expect(logged.headers).toEqual({ replaced: 'yes' });
    expect(logged).toMatchObject({ body: { id: 7 }, retried: 0, method: 'POST' });
    expect(seen?.text()).toBe('{"id":7}');
  });

  it('waits for an asynchronous schema and the Web Crypto verifier, with the same answers', async () => {
    const asyncSchema = {
      '~standard': {
        version: 1 as const,
        vendor: 'test',
        validate: (value: unknown) =>
          Promise.resolve(
            (value as { id?: unknown }).id === 7 ? { value: { id: 7 } } : { issues: [{ message: 'id must be 7', path: ['id'] }] },
          ),
      },
    };
    const received: unknown[] = [];
    const endpoint = createReceiver({ ...base, implementation: 'webcrypto' }).message((message) => void received.push(message.body), {
      schema: asyncSchema,
    });
    expect((await endpoint.handle(await inbound({ id: 7 }))).status).toBe(200);
    expect((await endpoint.handle(await inbound({ id: 8 }))).status).toBe(489);
    const tampered = await inbound({ id: 7 });
    expect((await endpoint.handle({ ...tampered, rawBody: new TextEncoder().encode('{"id":70}') })).status).toBe(401);
    expect(received).toEqual([{ id: 7 }]);
    // The public receive() rejects (it never throws synchronously), whatever failed.
    const receiver = createReceiver(base);
    const early = pipelineOf(receiver).receive({ ...tampered, method: 'GET' });
    expect(early).toBeInstanceOf(Promise);
    await expect(early).rejects.toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers a returned object as JSON and a string as text', async () => {
    const json = await createReceiver(base)
      .destination(orders, () => ({ ok: true }))
      .handle(await inbound({ id: 1 }));
    expect(json).toEqual({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
    const text = await createReceiver(base)
      .destination(orders, () => 'done')
      .handle(await inbound({ id: 1 }));
    expect(text.body).toBe('done');
  });

  it('maps handler errors: throw 500 (error kept for adapters), NonRetryable 489, RetryAfter with header', async () => {
    const boom = new Error('db down');
    const failing = await createReceiver(base)
      .destination(orders, () => {
        throw boom;
      })
      .handle(await inbound({ id: 1 }));
    expect(failing.status).toBe(500);
    expect(failing.body).not.toContain('db down');
    expect(failing.error).toBe(boom);
    const permanent = await createReceiver(base)
      .destination(orders, () => {
        throw new NonRetryableError('unknown order');
      })
      .handle(await inbound({ id: 1 }));
    expect(permanent.status).toBe(489);
    expect(permanent.headers['Service-NonRetryable-Error']).toBe('true');
    expect(permanent.error).toBeUndefined();
    const later = await createReceiver(base)
      .destination(orders, async () => {
        throw new RetryAfterError(30);
      })
      .handle(await inbound({ id: 1 }));
    expect(later.status).toBe(503);
    expect(later.headers['retry-after']).toBe('30');
  });

  it('reports the failed check to onError, never in the body', async () => {
    const errors: unknown[] = [];
    const endpoint = createReceiver({ ...base, onError: (error) => void errors.push(error) }).destination(orders, () => {});
    const out = await endpoint.handle(await inbound({ id: 1 }, { expired: true }));
    expect(out.status).toBe(401);
    expect(out.body).toBe('Invalid signature');
    expect((errors[0] as SignatureError).reason).toBe('expired');
  });

  it('names the failed check in a header of the 401 (a code only) in development, tests and dev mode, and nowhere else', async () => {
    const named = await createReceiver({ ...base, env: { NODE_ENV: 'development' } })
      .destination(orders, () => {})
      .handle(await inbound({ id: 1 }, { expired: true }));
    expect([named.status, named.body, named.headers['Mailroom-Signature-Refused']]).toEqual([401, 'Invalid signature', 'expired']);
    const wrongKey = await createReceiver({ ...base, env: { NODE_ENV: 'test' } })
      .destination(orders, () => {})
      .handle(await inbound({ id: 1 }, { key: 'sig_someone_else' }));
    expect(wrongKey.headers['Mailroom-Signature-Refused']).toBe('bad-signature');
    for (const env of [{ NODE_ENV: 'production' }, {}]) {
      const silent = await createReceiver({ ...base, env })
        .destination(orders, () => {})
        .handle(await inbound({ id: 1 }, { expired: true }));
      expect([silent.status, silent.headers['Mailroom-Signature-Refused']]).toEqual([401, undefined]);
    }
  });

  it('uses the configured prefix and ignores the default one', async () => {
    const endpoint = createReceiver({ ...base, headerPrefix: 'Upstash' }).destination(orders, () => {});
    expect((await endpoint.handle(await inbound({ id: 1 }, { headerPrefix: 'Upstash' }))).status).toBe(200);
    expect((await endpoint.handle(await inbound({ id: 1 }))).status).toBe(401);
  });

  it('takes the issuer from MAILROOM_ISSUER, the option winning over it', async () => {
    const fromEnv = createReceiver({ ...base, env: { MAILROOM_ISSUER: 'Upstash' } }).destination(orders, () => {});
    expect((await fromEnv.handle(await inbound({ id: 1 }, { issuer: 'Upstash' }))).status).toBe(200);
    expect((await fromEnv.handle(await inbound({ id: 1 }))).status).toBe(401);
    const option = createReceiver({ ...base, issuer: 'Service', env: { MAILROOM_ISSUER: 'Upstash' } }).destination(orders, () => {});
    expect((await option.handle(await inbound({ id: 1 }))).status).toBe(200);
    const unset = createReceiver({ ...base, env: {} }).destination(orders, () => {});
    expect((await unset.handle(await inbound({ id: 1 }, { issuer: 'Upstash' }))).status).toBe(401);
  });

  it('checks the signed URL against publicUrl + request path', async () => {
    const endpoint = createReceiver({ ...base, publicUrl: 'http://app.test/' }).destination(orders, () => {});
    expect((await endpoint.handle(await inbound({ id: 1 }))).status).toBe(200);
    expect((await endpoint.handle(await inbound({ id: 1 }, { signedUrl: 'http://app.test/other' }))).status).toBe(401);
  });

  it('skips verification only with an explicit verify: false', async () => {
    const endpoint = createReceiver({ verify: false, onError: () => {}, env: {} }).destination(orders, () => {});
    expect(
      (
        await endpoint.handle({
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          rawBody: new TextEncoder().encode('{"id":1}'),
        })
      ).status,
    ).toBe(200);
  });
});

describe('fail closed', () => {
  it('answers 500 naming the variables when no key is configured, and never calls the handler', async () => {
    let called = false;
    const errors: unknown[] = [];
    const endpoint = createReceiver({ env: {}, onError: (e) => void errors.push(e) }).destination(orders, () => {
      called = true;
    });
    const out = await endpoint.handle(await inbound({ id: 1 }));
    expect(out.status).toBe(500);
    expect(out.body).toContain('MAILROOM_CURRENT_SIGNING_KEY');
    expect(errors[0]).toBeInstanceOf(ConfigError);
    expect(called).toBe(false);
  });

  it('reads the keys from MAILROOM_* variables', async () => {
    const endpoint = createReceiver({
      env: { MAILROOM_CURRENT_SIGNING_KEY: keys.currentSigningKey },
      now: () => NOW,
      onError: () => {},
    }).destination(orders, () => {});
    expect((await endpoint.handle(await inbound({ id: 1 }))).status).toBe(200);
  });

  it.each([
    ['a negative body limit', { maxBodyBytes: -1 }],
    ['a lower-case method', { methods: ['post'] }],
    ['a relative public URL', { publicUrl: 'app.test' }],
  ])('refuses %s at creation', (_name, options) => {
    expect(() => createReceiver({ ...base, ...(options as ReceiverOptions) })).toThrow();
  });

  it('refuses a handler that is not a function and a definition that is not one', () => {
    expect(() => createReceiver(base).destination(orders, 'x' as never)).toThrow(ValidationError);
    expect(() => createReceiver(base).destination({ name: 'x' } as never, () => {})).toThrow(ValidationError);
  });
});

describe('the Web Request path', () => {
  it('verifies a Request and answers a Response', async () => {
    const endpoint = createReceiver(base).destination(orders, (m) => ({ got: m.body.id }));
    const response = await endpoint.fetch(await createSignedRequest({ url, body: { id: 3 }, key: keys.currentSigningKey, now: () => NOW }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ got: 3 });
  });

  it('answers a fix-it 500 for a delivery whose body was read before the endpoint, and 401 for an unsigned one', async () => {
    const onError = vi.fn();
    const handler = vi.fn();
    const endpoint = createReceiver({ ...base, onError }).destination(orders, handler);
    const signed = await createSignedRequest({ url, body: { id: 3 }, key: keys.currentSigningKey, now: () => NOW });
    await signed.json();
    const response = await endpoint.fetch(signed);
    expect(response.status).toBe(500);
    expect(String(onError.mock.calls[0]?.[0])).toMatch(/read before the Mailroom endpoint got it/);
    const unsigned = new Request(url, { method: 'POST', body: '{"id":3}' });
    await unsigned.text();
    expect((await endpoint.fetch(unsigned)).status).toBe(401);
    expect(handler).not.toHaveBeenCalled();
  });

  it('stops reading a streamed body past the limit', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(1024));
        if (pulled > 1000) controller.close();
      },
    });
    const endpoint = createReceiver({ ...base, maxBodyBytes: 4096 }).destination(orders, () => {});
    const response = await endpoint.fetch(new Request(url, { method: 'POST', body: stream, duplex: 'half' } as RequestInit));
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThan(10);
  });

  it('answers 405 with Allow for another method', async () => {
    const response = await createReceiver(base)
      .destination(orders, () => {})
      .fetch(new Request(url, { method: 'GET' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('a signature is bound to the endpoint it was signed for', () => {
  const refusals: string[] = [];
  const options = { ...base, onError: (error: unknown) => void refusals.push((error as Error).message) };

  it('refuses a token signed for another path of the same app with 401, naming both paths and the fixes', async () => {
    refusals.length = 0;
    const handler = vi.fn();
    const endpoint = createReceiver(options).destination(orders, handler);
    const other = await inbound({ id: 1 }, { url: 'http://app.test/some-other-endpoint' });
    const out = await endpoint.handle(other);
    expect(out.status).toBe(401);
    expect(out.body).toBe('Invalid signature');
    expect(handler).not.toHaveBeenCalled();
    expect(refusals[0]).toContain('"/some-other-endpoint"');
    expect(refusals[0]).toContain('"/orders"');
    expect(refusals[0]).toMatch(/publicUrl.*MAILROOM_PUBLIC_URL.*allowAnyPath/);
  });

  it('compares paths only: another host or query is the same endpoint; an absolute request URL works too', async () => {
    const endpoint = createReceiver(base).destination(orders, () => {});
    expect((await endpoint.handle(await inbound({ id: 1 }, { url: 'https://public.example/orders?x=1' }))).status).toBe(200);
    expect((await endpoint.handle({ ...(await inbound({ id: 1 })), url: 'http://10.0.0.5:3000/orders?y=2' })).status).toBe(200);
    expect((await endpoint.handle({ ...(await inbound({ id: 1 })), url: '/orders/' })).status).toBe(401);
    expect((await endpoint.handle({ ...(await inbound({ id: 1 })), url: '/hooks/orders' })).status).toBe(401);
  });

  it('checks the whole URL with publicUrl, from the option or MAILROOM_PUBLIC_URL', async () => {
    for (const settings of [
      { publicUrl: 'https://public.example' },
      { env: { ...base.env, MAILROOM_PUBLIC_URL: 'https://public.example' } },
    ]) {
      const endpoint = createReceiver({ ...base, ...settings }).destination(orders, () => {});
      expect((await endpoint.handle(await inbound({ id: 1 }, { url: 'https://public.example/orders' }))).status).toBe(200);
      expect((await endpoint.handle(await inbound({ id: 1 }, { url: 'https://elsewhere.example/orders' }))).status).toBe(401);
    }
  });

  it('matches the query by meaning with publicUrl: a re-encoded query is the same URL, another value is not', async () => {
    const endpoint = createReceiver({ ...base, publicUrl: 'https://public.example' }).destination(orders, () => {});
    const signedFor = 'https://public.example/orders?note=a%20b&flag&tag=x%2Cy';
    const arrivingAt = async (path: string, signedUrl = signedFor) =>
      (await endpoint.handle({ ...(await inbound({ id: 1 }, { url: signedUrl })), url: path })).status;
    // React Router and Lambda events rebuild the query: `+` for a space, `=` after a bare name.
    expect(await arrivingAt('/orders?note=a+b&flag=&tag=x,y')).toBe(200);
    expect(await arrivingAt('/orders?note=a%20b&flag&tag=x%2Cy')).toBe(200);
    expect(await arrivingAt('/orders?note=a+c&flag=&tag=x,y')).toBe(401);
    expect(await arrivingAt('/orders?flag=&note=a+b&tag=x,y')).toBe(401);
    expect(await arrivingAt('/orders?note=a+b&flag=&tag=x,y&extra=1')).toBe(401);
    expect(await arrivingAt('/orders?note=a+b&flag=&tag=x,y', 'https://public.example/Orders?note=a%20b&flag&tag=x%2Cy')).toBe(401);
    expect(await arrivingAt('/orders?note=a+b', 'https://elsewhere.example/orders?note=a%20b')).toBe(401);
  });

  it('accepts any path only when asked with allowAnyPath: true, and checks that option', async () => {
    const endpoint = createReceiver({ ...base, allowAnyPath: true }).destination(orders, () => {});
    expect((await endpoint.handle(await inbound({ id: 1 }, { url: 'http://app.test/some-other-endpoint' }))).status).toBe(200);
    expect(() => createReceiver({ ...base, allowAnyPath: 'yes' as never })).toThrow(ValidationError);
  });

  it('binds receive() for guards and custom glue the same way', async () => {
    const receiver = createReceiver(base);
    await expect(pipelineOf(receiver).receive(await inbound({ id: 1 }, { url: 'http://app.test/elsewhere' }))).rejects.toMatchObject({
      name: 'SignatureError',
      reason: 'subject',
    });
  });
});

describe('callbacks', () => {
  it('decodes body and sourceBody and tells the final attempt', async () => {
    let seen: unknown;
    const endpoint = createReceiver(base).callback((message) => void (seen = message), { source: orders });
    const payload = { ...callbackBody, sourceBody: btoa('{"id":5}'), body: btoa('accepted'), retried: 3, maxRetries: 3, somethingNew: 1 };
    const out = await endpoint.handle(await inbound(payload));
    expect(out.status).toBe(200);
    const message = seen as {
      body: { text: string };
      sourceBody: { data: unknown; bytes: Uint8Array };
      isFinalAttempt: boolean;
      delivery: ReceivedMessage;
    };
    expect(message.body.text).toBe('accepted');
    expect(message.sourceBody.data).toEqual({ id: 5 });
    expect(message.isFinalAttempt).toBe(true);
    expect((message as unknown as { somethingNew: number }).somethingNew).toBe(1);
  });

  it('tells the final attempt: a 2xx, a 489 marked non-retryable, or the last retry', async () => {
    const finals: boolean[] = [];
    const endpoint = createReceiver(base).callback((message) => void finals.push(message.isFinalAttempt));
    const cases: Array<[Record<string, unknown>, boolean]> = [
      [{ status: 200, retried: 0, maxRetries: 3 }, true],
      [{ status: 204, retried: 1, maxRetries: 3 }, true],
      [{ status: 500, retried: 0, maxRetries: 3 }, false],
      [{ status: 500, retried: 3, maxRetries: 3 }, true],
      [{ status: 489, retried: 0, maxRetries: 3, header: { 'service-nonretryable-error': ['true'] } }, true],
      [{ status: 489, retried: 0, maxRetries: 3 }, false],
      [{ status: 489, retried: 0, maxRetries: 3, header: { 'Service-NonRetryable-Error': ['false'] } }, false],
      [{ status: 489, retried: 0, maxRetries: 3, header: { 'Service-NonRetryable-Error': [' TRUE '] } }, true],
      [{ status: 500, retried: 0, maxRetries: 3, header: { 'Service-NonRetryable-Error': ['true'] } }, false],
      [{ status: 489, retried: 0, maxRetries: 3, header: { 'Upstash-NonRetryable-Error': ['true'] } }, false],
      [{ retried: 1, maxRetries: 3 }, false],
      [{ retried: 3, maxRetries: 3 }, true],
    ];
    for (const [fields, _final] of cases) {
      const { status: _s, retried: _r, maxRetries: _m, header: _h, ...rest } = callbackBody as Record<string, unknown>;
      expect((await endpoint.handle(await inbound({ ...rest, ...fields }))).status).toBe(200);
    }
    expect(finals).toEqual(cases.map(([, final]) => final));
  });

  it('never refuses a callback whose bodies break their schemas: the handler branches on valid', async () => {
    const seen: Array<CallbackMessage<{ id: number; note?: string }, { stored: boolean }>> = [];
    const endpoint = createReceiver(base).callback((message) => void seen.push(message), {
      source: orders,
      response: z.object({ stored: z.boolean() }),
    });
    const out = await endpoint.handle(await inbound({ ...callbackBody, sourceBody: btoa('{"id":"x"}'), body: btoa('{"stored":"no"}') }));
    expect(out.status).toBe(200);
    const message = seen[0]!;
    expect(message.sourceBody).toMatchObject({ valid: false, data: undefined, text: '{"id":"x"}' });
    expect(message.body).toMatchObject({ valid: false, text: '{"stored":"no"}' });
    if (message.sourceBody.valid) expectTypeOf(message.sourceBody.data).toEqualTypeOf<{ id: number; note?: string | undefined }>();
    else {
      expectTypeOf(message.sourceBody.data).toEqualTypeOf<undefined>();
      expect(message.sourceBody.issues[0]?.path?.[0]).toBe('id');
    }
  });

  it('calls a failure callback whose source body broke the schema (the reason it failed)', async () => {
    const seen: Array<FailureCallbackMessage<{ id: number; note?: string }>> = [];
    const endpoint = createReceiver(base).failureCallback((message) => void seen.push(message), { source: orders });
    const out = await endpoint.handle(await inbound({ ...failureCallbackBody, sourceBody: btoa('not json') }));
    expect(out.status).toBe(200);
    expect(seen[0]).toMatchObject({
      dlqId: failureCallbackBody.dlqId,
      isFinalAttempt: true,
      sourceBody: { valid: false, text: 'not json' },
    });
    const id: string | undefined = seen[0]?.dlqId;
    expectTypeOf<FailureCallbackMessage['dlqId']>().toEqualTypeOf<string>();
    expect(id).toBe(failureCallbackBody.dlqId);
  });

  it('gives 489 when the base64 is broken', async () => {
    const broken = await createReceiver(base)
      .callback(() => {})
      .handle(await inbound({ ...callbackBody, body: '%%%' }));
    expect(broken.status).toBe(489);
  });

  it('passes dlqId and workflow fields to failure callbacks', async () => {
    const seen: Array<{ dlqId?: string; workflowRunId?: string; isFinalAttempt: boolean }> = [];
    const endpoint = createReceiver(base).failureCallback((message) => void seen.push(message));
    await endpoint.handle(await inbound(failureCallbackBody));
    await endpoint.handle(await inbound(workflowFailureCallbackBody));
    expect(seen[0]?.dlqId).toBe(failureCallbackBody.dlqId);
    expect(seen[0]?.isFinalAttempt).toBe(true);
    expect(seen[1]?.workflowRunId).toBe(workflowFailureCallbackBody.workflowRunId);
  });
});

describe('receiver helpers for frameworks with their own routing', () => {
  it('decodes callbacks without an endpoint', async () => {
    const receiver = createReceiver(base);
    const message = await pipelineOf(receiver).receiveCallback(await inbound({ ...callbackBody, sourceBody: btoa('{"id":9}') }), {
      source: orders,
    });
    if (message.sourceBody.valid) expectTypeOf(message.sourceBody.data).toEqualTypeOf<{ id: number; note?: string | undefined }>();
    expect(message.sourceBody).toMatchObject({ valid: true, data: { id: 9 } });
    const failure = await pipelineOf(receiver).receiveFailureCallback(await inbound(failureCallbackBody));
    expect(failure.dlqId).toBe(failureCallbackBody.dlqId);
  });

  it('shows apps only what builds endpoints; adapters get the pipeline with pipelineOf, and only of a real receiver', () => {
    const receiver = createReceiver(base);
    expect(Object.keys(receiver).sort()).toEqual(['callback', 'destination', 'failureCallback', 'message']);
    expect(pipelineOf(receiver).maxBodyBytes).toBe(1024 * 1024);
    expect(() => pipelineOf({ ...receiver })).toThrow(ValidationError);
    expect(() => pipelineOf(null as never)).toThrow(/made by createReceiver\(\)/);
  });

  it('assertConfigured throws the same ConfigError requests would get', () => {
    expect(() => pipelineOf(createReceiver({ env: {} })).assertConfigured()).toThrow(/MAILROOM_CURRENT_SIGNING_KEY/);
    expect(() => pipelineOf(createReceiver(base)).assertConfigured()).not.toThrow();
  });

  it('recognises our errors by code, so a second copy of core (ESM next to CJS) still maps them', async () => {
    const foreign = Object.assign(new Error('from another copy of @mailroom/core'), { code: 'NON_RETRYABLE' });
    const out = await createReceiver(base)
      .destination(orders, () => {
        throw foreign;
      })
      .handle(await inbound({ id: 1 }));
    expect(out.status).toBe(489);
    const later = Object.assign(new Error('later'), { code: 'RETRY_AFTER', seconds: 12, status: 429 });
    const retry = await createReceiver(base)
      .destination(orders, () => {
        throw later;
      })
      .handle(await inbound({ id: 1 }));
    expect(retry.status).toBe(429);
    expect(retry.headers['retry-after']).toBe('12');
  });

  it('names the management option as the caller spells it', async () => {
    const { createManagementClient } = await import('../../src');
    await expect(createManagementClient({ env: {} }).users()).rejects.toThrow(/Pass \{ baseUrl: \.\.\. \}.*MAILROOM_MANAGEMENT_URL/);
  });
});

describe('a receiver without signing keys', () => {
  it('reports it once at creation through onError (stage config, no request), and refuses every delivery', async () => {
    const onError = vi.fn();
    const receiver = createReceiver({ env: {}, onError });
    expect(onError).toHaveBeenCalledOnce();
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(ConfigError);
    expect(onError.mock.calls[0]?.[1]).toEqual({ stage: 'config' });
    expect(String(onError.mock.calls[0]?.[0].message)).toMatch(/MAILROOM_CURRENT_SIGNING_KEY.*MAILROOM_NEXT_SIGNING_KEY/);
    expect((await receiver.destination(orders, () => {}).handle(await inbound({ id: 1 }))).status).toBe(500);
  });

  it('warns once per process with the default onError, however many receivers a build loads (each route of next build)', async () => {
    vi.resetModules();
    const fresh = (await import('../../src')) as typeof import('../../src');
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      for (let route = 0; route < 5; route += 1) fresh.createReceiver({ env: {} });
      expect(warn).toHaveBeenCalledOnce();
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/MAILROOM_CURRENT_SIGNING_KEY/);
      // An onError of the app's own still hears from each receiver.
      const onError = vi.fn();
      fresh.createReceiver({ env: {}, onError });
      fresh.createReceiver({ env: {}, onError });
      expect(onError).toHaveBeenCalledTimes(2);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('a receiver made when its module loads', () => {
  it('reads its keys and header prefix from the process at the first request, not at creation (a test service, next build)', async () => {
    const names = ['MAILROOM_CURRENT_SIGNING_KEY', 'MAILROOM_NEXT_SIGNING_KEY', 'MAILROOM_HEADER_PREFIX'] as const;
    const saved = names.map((name) => process.env[name]);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      for (const name of names) delete process.env[name];
      const receiver = createReceiver({ now: () => NOW, onError: () => {} });
      const endpoint = receiver.destination(orders, () => {});
      // Nothing said at creation: the keys may well arrive before the first delivery.
      expect(warn).not.toHaveBeenCalled();
      Object.assign(process.env, { MAILROOM_CURRENT_SIGNING_KEY: keys.currentSigningKey, MAILROOM_NEXT_SIGNING_KEY: keys.nextSigningKey });
      process.env.MAILROOM_HEADER_PREFIX = 'Upstash';
      const signed = await signRequest({ url, body: { id: 7 }, key: keys.currentSigningKey, now: () => NOW, headerPrefix: 'Upstash' });
      const answer = await endpoint.handle({ method: 'POST', url: '/orders', headers: signed.headers, rawBody: signed.body });
      expect(answer.status).toBe(200);
      expect(pipelineOf(receiver).headerPrefix).toBe('Upstash');
    } finally {
      names.forEach((name, index) => {
        if (saved[index] === undefined) delete process.env[name];
        else process.env[name] = saved[index];
      });
      warn.mockRestore();
    }
  });

  it('still refuses at creation what code passed wrong', () => {
    expect(() => createReceiver({ ...base, publicUrl: 'ftp://x' })).toThrow(ConfigError);
    expect(() => createReceiver({ ...base, headerPrefix: 'no spaces allowed' })).toThrow(/header prefix/);
  });
});

describe('the default onError', () => {
  it('logs a handler that gives up or asks for later as what it is, not as "handler failed"', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const { onError: _ignored, ...withDefault } = base as ReceiverOptions;
      const receiver = createReceiver(withDefault);
      const request = () => createSignedRequest({ url, body: { id: 3 }, key: keys.currentSigningKey, now: () => NOW });
      const giveUp = receiver.destination(orders, () => {
        throw new NonRetryableError('order 3 does not exist');
      });
      const later = receiver.destination(orders, () => {
        throw new RetryAfterError(30, 'the stock service is busy');
      });
      const crash = receiver.destination(orders, () => {
        throw new Error('db down');
      });
      expect((await giveUp.fetch(await request())).status).toBe(489);
      expect((await later.fetch(await request())).status).toBe(503);
      expect((await crash.fetch(await request())).status).toBe(500);
      expect(warn.mock.calls.map(([line]) => line)).toEqual([
        '[mailroom] handler gave up on the message (489, no retry): NonRetryableError: order 3 does not exist',
        '[mailroom] handler asked for a retry in 30 s: RetryAfterError: the stock service is busy',
      ]);
      expect(error.mock.calls.map(([line]) => line)).toEqual(['[mailroom] handler failed: Error: db down']);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
