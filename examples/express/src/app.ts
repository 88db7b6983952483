import express, { type Express } from 'express';
import { createMessagingClient, type MessagingClient, type ReceiverOptions } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/express';
import { orderPlaced } from './destinations';
import { type FulfilmentStep, fulfilmentRoute } from './workflow';

export { orderPlaced };

/** What the app saw, in order; the tour and the tests read it from GET /events. */
export type AppEvent =
  | { kind: 'order'; orderId: string; total: number; retried: number; messageId: string | undefined; outcome: 'stored' | 'failed' }
  | { kind: 'callback'; status: number | undefined; retried: number | undefined; isFinalAttempt: boolean; orderId: string | undefined }
  | { kind: 'failure-callback'; dlqId: string | undefined; status: number | undefined; orderId: string | undefined };

/**
 * The example app: one typed destination, its callback and its failure callback. Signing keys come
 * from `options` or MAILROOM_CURRENT_SIGNING_KEY / MAILROOM_NEXT_SIGNING_KEY; `options.idempotency`
 * and `options.tracing` (server.ts sets both) apply to every endpoint, and `tracing` to `/send` too.
 */
export function createApp(options: ReceiverOptions = {}): { app: Express; events: AppEvent[]; fulfilment: FulfilmentStep[] } {
  const events: AppEvent[] = [];
  const fulfilment: FulfilmentStep[] = [];
  const mailroom = createMailroom(options);
  const app = express();
  // A Workflow SDK workflow (src/workflow.ts); before the parser, since the SDK verifies the raw bytes.
  app.post('/workflows/fulfil', fulfilmentRoute(options.env ?? process.env, fulfilment));
  // Every route gets parsed JSON except the service's deliveries, which Mailroom verifies as sent.
  app.use(mailroom.exceptDeliveries(express.json()));

  app.post(
    orderPlaced.path,
    mailroom.destination(orderPlaced, (message) => {
      const { orderId, total, failTimes = 0 } = message.body;
      const failing = message.retried < failTimes;
      events.push({
        kind: 'order',
        orderId,
        total,
        retried: message.retried,
        messageId: message.messageId,
        outcome: failing ? 'failed' : 'stored',
      });
      if (failing) throw new Error(`payment provider unavailable (attempt ${message.retried + 1})`);
      return { stored: orderId };
    }),
  );

  app.post(
    '/callbacks',
    mailroom.callback(
      (message) => {
        events.push({
          kind: 'callback',
          status: message.status,
          retried: message.retried,
          isFinalAttempt: message.isFinalAttempt,
          orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
        });
      },
      { source: orderPlaced },
    ),
  );

  app.post(
    '/failures',
    mailroom.failureCallback(
      (message) => {
        events.push({
          kind: 'failure-callback',
          dlqId: message.dlqId,
          status: message.status,
          orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
        });
      },
      { source: orderPlaced },
    ),
  );

  app.get('/events', (_req, res) => {
    res.json(events);
  });

  // Sends an order to this very app through the service (or `mailroom dev`): with MAILROOM_DEV=1
  // the whole loop runs with no settings at all. The client is made on first use, so an app that
  // only receives starts without sending settings.
  let client: MessagingClient | undefined;
  app.post('/send', async (req, res, next) => {
    try {
      // The client traces its sends when the receivers trace their handlers: one trace from here to the handler.
      client ??= createMessagingClient({ env: options.env, ...(options.tracing ? { tracing: options.tracing } : {}) });
      res.json(await client.send(orderPlaced, req.body));
    } catch (error) {
      next(error);
    }
  });

  // Handler failures reach the app's own error middleware (so the service sees 500 and retries).
  app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res
      .status(500)
      .type('text/plain')
      .send(error instanceof Error ? error.message : 'failed');
  });

  return { app, events, fulfilment };
}
