import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMailroom } from '../../src/express';
import { delivery, order, orderPlaced, postBytes, receiverOptions } from '@mailroom/test-support';

afterEach(() => vi.restoreAllMocks());

describe('a crashing handler', () => {
  const crash = () => {
    throw new Error('database password is hunter2');
  };

  it('answers a small JSON 500 itself: no next(err), no HTML page, no stack, reported once', async () => {
    const onError = vi.fn();
    const appErrors = vi.fn();
    const app = express();
    app.post('/orders', createMailroom({ ...receiverOptions, onError }).destination(orderPlaced, crash));
    app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      appErrors(error);
      res.status(500).send('app error page');
    });
    const response = await postBytes(app, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.text).toBe('{"error":"handler failed"}');
    expect(appErrors).not.toHaveBeenCalled();
    expect(onError).toHaveBeenCalledOnce();
    expect(onError.mock.calls[0]?.[1]).toMatchObject({ stage: 'handler' });
  });

  it("never shows Express's default error page (which carries the stack) when nothing else is set up", async () => {
    const app = express();
    app.post('/orders', createMailroom(receiverOptions).destination(orderPlaced, crash));
    const response = await postBytes(app, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.text).not.toMatch(/<html|<pre|at .*\.(ts|js):\d+|hunter2/i);
  });

  it('hands the error to the app error middleware with forwardErrors: true', async () => {
    const appErrors = vi.fn();
    const app = express();
    app.post('/orders', createMailroom({ ...receiverOptions, forwardErrors: true }).destination(orderPlaced, crash));
    app.use((error: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      appErrors(error.message);
      res.status(503).json({ handled: true });
    });
    const response = await postBytes(app, '/orders', await delivery('http://127.0.0.1/orders', order));
    expect(response.status).toBe(503);
    expect(appErrors).toHaveBeenCalledWith('database password is hunter2');
  });

  it('checks the forwardErrors option', () => {
    expect(() => createMailroom({ ...receiverOptions, forwardErrors: 'yes' as never }).destination(orderPlaced, () => {})).toThrow(
      /forwardErrors/,
    );
  });
});

describe('signatures bound to the endpoint', () => {
  it('includes the mount path of a router: a token for /hooks/orders works there, one for /orders does not', async () => {
    const router = express.Router();
    router.post(
      '/orders',
      createMailroom(receiverOptions).destination(orderPlaced, () => {}),
    );
    const app = express();
    app.use('/hooks', router);
    expect((await postBytes(app, '/hooks/orders', await delivery('http://127.0.0.1/hooks/orders', order))).status).toBe(200);
    expect((await postBytes(app, '/hooks/orders', await delivery('http://127.0.0.1/orders', order))).status).toBe(401);
  });
});

describe('missing signing keys', () => {
  it('warns once at creation, naming both variables, before any delivery', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const mailroom = createMailroom({ env: {} });
    mailroom.destination(orderPlaced, () => {});
    mailroom.callback(() => {});
    expect(warn).toHaveBeenCalledOnce();
    expect(warn.mock.calls[0]?.[0]).toMatch(/MAILROOM_CURRENT_SIGNING_KEY.*MAILROOM_NEXT_SIGNING_KEY/);
  });

  it('says nothing when keys are configured or verification is off on purpose', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    createMailroom({ ...receiverOptions, onError: undefined });
    createMailroom({ env: {}, verify: false });
    expect(warn).not.toHaveBeenCalled();
  });
});
