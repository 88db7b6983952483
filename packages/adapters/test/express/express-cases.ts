import { gzipSync } from 'node:zlib';
import { NonRetryableError } from '@mailroom/core';
import type express from 'express';
import type { ErrorRequestHandler } from 'express';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import { captureRawBody, createMailroom } from '../../src/express';
import { base64, delivery, order, orderPlaced, postBytes, receiverOptions } from '@mailroom/test-support';

type ExpressModule = typeof express;

/**
 * The adapter's behaviour, run once per Express major: both must give the same answers. Requests go
 * through real sockets (supertest listens on port 0).
 */
export function describeExpressAdapter(name: string, expressModule: ExpressModule): void {
  // supertest signs for the origin it connects to; the path is what matters without `publicUrl`.
  const url = (path: string) => `http://127.0.0.1${path}`;

  describe(name, () => {
    it('answers 200 to a valid signature and gives the handler the typed body', async () => {
      const seen = vi.fn();
      const app = expressModule();
      app.post(
        orderPlaced.path,
        createMailroom(receiverOptions).destination(orderPlaced, (message) => {
          expectTypeOf(message.body).toEqualTypeOf<{ orderId: string; total: number }>();
          seen(message.body, message.messageId, message.retried);
        }),
      );
      const { headers, body } = await delivery(url('/orders'), order, { messageId: 'msg_1', retried: 2 });
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(200);
      expect(seen).toHaveBeenCalledWith(order, 'msg_1', 2);
    });

    it('accepts a message signed with the next key and refuses a bad signature with 401', async () => {
      const handler = vi.fn();
      const app = expressModule();
      app.post('/orders', createMailroom(receiverOptions).destination(orderPlaced, handler));
      const rotated = await delivery(url('/orders'), order, { signWith: 'next' });
      expect((await postBytes(app, '/orders', rotated)).status).toBe(200);
      const tampered = await delivery(url('/orders'), order, { tampered: true });
      const refused = await postBytes(app, '/orders', tampered);
      expect(refused.status).toBe(401);
      expect(refused.text).toBe('Invalid signature');
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('shows forwarded headers under their own names', async () => {
      let forwarded: Record<string, string> = {};
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, (message) => void (forwarded = message.forwardedHeaders)),
      );
      const { headers, body } = await delivery(url('/orders'), order, {
        headers: { 'X-Tenant': 'acme', 'Service-Forward-X-Trace': 'trace-1' },
      });
      expect((await postBytes(app, '/orders', { headers, body })).status).toBe(200);
      expect(forwarded).toMatchObject({ 'x-tenant': 'acme', 'x-trace': 'trace-1' });
      expect(forwarded).not.toHaveProperty('service-signature');
    });

    it('checks the signed URL against publicUrl plus the mount path of a router', async () => {
      const seenUrls: (string | undefined)[] = [];
      const mailroom = createMailroom({ ...receiverOptions, publicUrl: 'https://app.example.com' });
      const router = expressModule.Router();
      router.post(
        '/orders',
        mailroom.destination(orderPlaced, (message) => void seenUrls.push(message.url)),
      );
      const app = expressModule();
      app.use('/hooks', router);

      const good = await delivery('https://app.example.com/hooks/orders?tenant=acme', order);
      expect((await postBytes(app, '/hooks/orders?tenant=acme', good)).status).toBe(200);
      expect(seenUrls).toEqual(['/hooks/orders?tenant=acme']);

      // Signed for the path without the mount point: a token meant for another endpoint.
      const other = await delivery('https://app.example.com/orders', order);
      expect((await postBytes(app, '/hooks/orders', other)).status).toBe(401);
    });

    it('verifies behind a global express.json({ verify: captureRawBody }), over the bytes as sent', async () => {
      let raw = '';
      const app = expressModule();
      app.use(expressModule.json({ verify: captureRawBody }));
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, (message) => void (raw = message.text())),
      );
      // Equal in meaning to `order` but not in bytes: only the captured bytes can match the signature.
      const text = '{ "total": 12.5,\n  "orderId": "o_1" }';
      const { headers, body } = await delivery(url('/orders'), text, { contentType: 'application/json' });
      expect((await postBytes(app, '/orders', { headers, body })).status).toBe(200);
      expect(raw).toBe(text);
    });

    describe('behind app.use(mailroom.exceptDeliveries(express.json()))', () => {
      const setUp = () => {
        const seen: unknown[] = [];
        const mailroom = createMailroom(receiverOptions);
        const app = expressModule();
        app.use(mailroom.exceptDeliveries(expressModule.json()));
        app.post(
          '/orders',
          mailroom.destination(orderPlaced, (message) => void seen.push(message.text())),
        );
        app.post('/other', (req, res) => void res.json({ parsed: req.body }));
        return { app, seen };
      };

      it('verifies the bytes as sent, and the app’s other routes still get parsed JSON', async () => {
        const { app, seen } = setUp();
        const text = '{ "total": 12.5,\n  "orderId": "o_1" }';
        expect((await postBytes(app, '/orders', await delivery(url('/orders'), text, { contentType: 'application/json' }))).status).toBe(
          200,
        );
        expect(seen).toEqual([text]);
        const other = await postBytes(app, '/other', { headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1}') });
        expect(other.body).toEqual({ parsed: { a: 1 } });
      });

      it('answers bad JSON, a body over the parser’s 100 kB and an unknown encoding itself: small JSON or plain text, no HTML, no stack', async () => {
        const { app, seen } = setUp();
        const badJson = await postBytes(app, '/orders', await delivery(url('/orders'), '{"orderId":', { contentType: 'application/json' }));
        expect([badJson.status, badJson.headers['content-type']]).toEqual([489, 'text/plain; charset=utf-8']);
        const large = { orderId: 'x'.repeat(200_000), total: 1 };
        expect((await postBytes(app, '/orders', await delivery(url('/orders'), large))).status).toBe(200);
        // An encoding the parser does not know: verified over the bytes on the wire, never decoded.
        const brotli = await delivery(url('/orders'), order, { headers: { 'Content-Encoding': 'br' } });
        expect((await postBytes(app, '/orders', brotli)).status).toBe(200);
        expect(badJson.text).not.toMatch(/<html|<pre|at .*\(|node_modules/i);
        expect(seen).toHaveLength(2);
      });

      it('answers an unsigned request to a Mailroom route itself, 401, whatever its body: no parser, no HTML, no stack', async () => {
        const { app, seen } = setUp();
        const bomb = gzipSync(Buffer.alloc(20_000_000, 'a'));
        for (const [headers, body] of [
          [{ 'content-type': 'application/json' }, Buffer.from('{"orderId":')],
          [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, bomb],
          [{ 'content-type': 'application/json', 'content-encoding': 'br' }, Buffer.from('x')],
        ] as const) {
          const res = await postBytes(app, '/orders', { headers, body });
          expect([res.status, res.text]).toEqual([401, 'Invalid signature']);
        }
        expect(seen).toEqual([]);
        // Behind a mounted router too.
        const mailroom = createMailroom(receiverOptions);
        const outer = expressModule();
        outer.use(mailroom.exceptDeliveries(expressModule.json()));
        const router = expressModule.Router();
        router.post(
          '/orders',
          mailroom.destination(orderPlaced, () => {}),
        );
        outer.use('/api', router);
        const mounted = await postBytes(outer, '/api/orders', {
          headers: { 'content-type': 'application/json' },
          body: Buffer.from('{bad'),
        });
        expect([mounted.status, mounted.text]).toEqual([401, 'Invalid signature']);
        // The app's own routes still meet the parser and its refusals.
        expect(
          (await postBytes(app, '/other', { headers: { 'content-type': 'application/json' }, body: Buffer.from('{bad') })).status,
        ).toBe(400);
      });

      it('verifies a gzip body over its compressed bytes, as sent, and refuses a forgery with 401 before parsing anything', async () => {
        const { app } = setUp();
        const compressed = gzipSync(JSON.stringify(order));
        const signed = await delivery(url('/orders'), compressed, {
          contentType: 'application/json',
          headers: { 'Content-Encoding': 'gzip' },
        });
        // The signature covers the gzip bytes: the route verifies them, then finds they are not JSON.
        expect((await postBytes(app, '/orders', signed)).status).toBe(489);
        const forged = await postBytes(app, '/orders', {
          headers: { 'content-type': 'application/json', 'service-signature': 'x.y.z' },
          body: Buffer.from('{bad'),
        });
        expect([forged.status, forged.text]).toEqual([401, 'Invalid signature']);
      });
    });

    it('answers 500 with the fix-it message behind a plain global express.json() and never calls the handler', async () => {
      const handler = vi.fn();
      const app = expressModule();
      app.use(expressModule.json());
      app.post('/orders', createMailroom(receiverOptions).destination(orderPlaced, handler));
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(500);
      expect(res.text).toContain('app.use(mailroom.exceptDeliveries(express.json()))');
      expect(res.text).toContain('@mailroom/adapters/express');
      expect(handler).not.toHaveBeenCalled();
    });

    it('still reads bodies a global express.json() skipped (not JSON)', async () => {
      const app = expressModule();
      app.use(expressModule.json());
      app.post(
        '/text',
        createMailroom(receiverOptions).destination(orderPlaced, () => {}),
      );
      const plain = await delivery(url('/text'), 'hello', { contentType: 'text/plain' });
      const res = await postBytes(app, '/text', plain);
      // The pipeline got the exact bytes: the signature passed, then the schema refused the text.
      expect(res.status).toBe(489);
      expect(res.text).toBe('Body does not match the schema');
    });

    it('takes the bytes a route-level express.raw() left in req.body', async () => {
      const seen = vi.fn();
      const app = expressModule();
      app.post(
        '/orders',
        expressModule.raw({ type: () => true }),
        createMailroom(receiverOptions).destination(orderPlaced, (m) => seen(m.body)),
      );
      const { headers, body } = await delivery(url('/orders'), order);
      expect((await postBytes(app, '/orders', { headers, body })).status).toBe(200);
      expect(seen).toHaveBeenCalledWith(order);
    });

    it("passes a handler's error to the app's error middleware with forwardErrors: true", async () => {
      const failure = new Error('database down');
      const caught = vi.fn();
      const reported = vi.fn();
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom({ ...receiverOptions, onError: reported, forwardErrors: true }).destination(orderPlaced, () =>
          Promise.reject(failure),
        ),
      );
      const onError: ErrorRequestHandler = (error, _req, res, _next) => {
        caught(error);
        res.status(503).json({ caught: (error as Error).message });
      };
      app.use(onError);
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ caught: 'database down' });
      expect(caught).toHaveBeenCalledWith(failure);
      // Instead of onError, not as well: the app's middleware is the one report.
      expect(reported).not.toHaveBeenCalled();
      // A refusal is still reported.
      const tampered = await delivery(url('/orders'), order, { tampered: true });
      expect((await postBytes(app, '/orders', tampered)).status).toBe(401);
      expect(reported).toHaveBeenCalledOnce();
      expect(reported.mock.calls[0]![1]).toMatchObject({ stage: 'signature' });
    });

    it('reports a crashed handler once with forwardErrors through createMailroom too, and never to the console', async () => {
      const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const mailroom = createMailroom({ ...receiverOptions, onError: undefined, forwardErrors: true });
        const app = expressModule();
        app.post(
          '/orders',
          mailroom.destination(orderPlaced, () => Promise.reject(new Error('db'))),
        );
        app.use(((_error, _req, res, _next) => void res.status(503).end()) as ErrorRequestHandler);
        expect((await postBytes(app, '/orders', await delivery(url('/orders'), order))).status).toBe(503);
        expect(errors).not.toHaveBeenCalled();
      } finally {
        errors.mockRestore();
      }
    });

    it('answers 500 through Express’s default error handler when the app has none', async () => {
      const app = expressModule();
      app.set('env', 'test'); // keeps finalhandler from logging the stack during tests
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, () => {
          throw new Error('boom');
        }),
      );
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(500);
    });

    it('answers 413 one byte over maxBodyBytes and 200 exactly at it', async () => {
      const text = JSON.stringify(order);
      const handler = vi.fn();
      const app = expressModule();
      app.post('/orders', createMailroom({ ...receiverOptions, maxBodyBytes: Buffer.byteLength(text) }).destination(orderPlaced, handler));
      const atLimit = await delivery(url('/orders'), text, { contentType: 'application/json' });
      expect((await postBytes(app, '/orders', atLimit)).status).toBe(200);
      const over = await delivery(url('/orders'), `${text} `, { contentType: 'application/json' });
      const res = await postBytes(app, '/orders', over);
      expect(res.status).toBe(413);
      expect(handler).toHaveBeenCalledTimes(1);
    });

    it('answers 500 itself when a handler throws a value Express would not read as an error', async () => {
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, () => {
          throw undefined;
        }),
      );
      const res = await postBytes(app, '/orders', await delivery(url('/orders'), order));
      expect(res.status).toBe(500);
      expect(res.text).toBe('{"error":"handler failed"}');
    });

    it('answers 489 with the non-retryable header when the handler throws NonRetryableError', async () => {
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, () => {
          throw new NonRetryableError('unknown order');
        }),
      );
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(489);
      expect(res.headers['service-nonretryable-error']).toBe('true');
    });

    it('answers 500 with a clear message when no signing key is configured', async () => {
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom({ env: {}, onError: () => {} }).destination(orderPlaced, () => {}),
      );
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(500);
      expect(res.text).toContain('MAILROOM_CURRENT_SIGNING_KEY');
    });

    it('decodes callback and failure-callback bodies with the given schemas', async () => {
      const callbacks = vi.fn();
      const failures = vi.fn();
      const app = expressModule();
      app.post(
        '/callback',
        createMailroom(receiverOptions).callback(
          (message) => {
            if (message.sourceBody.valid) expectTypeOf(message.sourceBody.data).toEqualTypeOf<{ orderId: string; total: number }>();
            callbacks(message.status, message.sourceBody.data, message.body.text, message.isFinalAttempt);
          },
          { source: orderPlaced },
        ),
      );
      app.post(
        '/failure',
        createMailroom(receiverOptions).failureCallback((message) => failures(message.dlqId, message.sourceBody.data), {
          source: orderPlaced,
        }),
      );
      const payload = {
        status: 200,
        sourceMessageId: 'msg_1',
        sourceBody: base64(order),
        body: base64('ok'),
        retried: 3,
        maxRetries: 3,
        extra: 1,
      };
      const cb = await delivery(url('/callback'), payload);
      expect((await postBytes(app, '/callback', cb)).status).toBe(200);
      expect(callbacks).toHaveBeenCalledWith(200, order, 'ok', true);
      const fail = await delivery(url('/failure'), { ...payload, dlqId: 'dlq_1' });
      expect((await postBytes(app, '/failure', fail)).status).toBe(200);
      expect(failures).toHaveBeenCalledWith('dlq_1', order);
    });

    it('sends what the handler returns as JSON', async () => {
      const app = expressModule();
      app.post(
        '/orders',
        createMailroom(receiverOptions).destination(orderPlaced, (message) => ({ saved: message.body.orderId })),
      );
      const { headers, body } = await delivery(url('/orders'), order);
      const res = await postBytes(app, '/orders', { headers, body });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ saved: 'o_1' });
    });
  });
}
