// The Express app of measurement 2: one app, three routes doing the same job, so they share
// everything but the receiving code. Started in its own process by framework-throughput.mjs.
//   /bare             express.json() and the handler: no signature, no schema (the ceiling)
//   /mailroom/orders  @mailroom/adapters/express destination: signature, JSON parse, zod, handler
//   /vendor/orders    the vendor SDK's Receiver as its docs show it, plus the same JSON parse and zod
//   /idempotent/orders the Mailroom destination with a memory idempotency store
//   /untraced/orders  the Mailroom destination with `tracing: openTelemetry()` and no SDK started (tracing off)
//   /traced/orders    the same with an SDK recording every span (a batch processor, spans dropped at export)
//   /floor/orders     the floor: a minimal hand-written verifying route (node:crypto, JSON.parse, zod)
import { defineDestination } from '@mailroom/core';
import { createMemoryStore } from '@mailroom/core/idempotency';
import { openTelemetry } from '@mailroom/core/tracing';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createMailroom } from '@mailroom/adapters/express';
import { Receiver } from '@upstash/qstash';
import express from 'express';
import { CURRENT_KEY, ISSUER, MAILROOM_OPTIONS, NEXT_KEY, PUBLIC_URL, orderSchema } from '../lib/fixtures.mjs';
import { createFloorVerifier } from '../lib/floor-verifier.mjs';
import { answerCommands } from './commands.mjs';

let handled = 0;
const handle = (order) => {
  // Trivial but not dead: the order is read.
  if (order.items.length > 0) handled++;
};

const app = express();
app.disable('x-powered-by');

app.post('/bare', express.json(), (req, res) => {
  handle(req.body);
  res.status(200).end();
});

const mailroom = createMailroom(MAILROOM_OPTIONS);
const orders = defineDestination({ name: 'orders', path: '/mailroom/orders', schema: orderSchema });
app.post(
  '/mailroom/orders',
  mailroom.destination(orders, (message) => handle(message.body)),
);

// The same destination with a memory idempotency store (measurement 10's row in situ): each
// request carries a new message id, so every one is claimed and completed.
const idempotent = createMailroom({ ...MAILROOM_OPTIONS, idempotency: createMemoryStore() });
const idempotentOrders = defineDestination({ name: 'orders', path: '/idempotent/orders', schema: orderSchema });
app.post(
  '/idempotent/orders',
  idempotent.destination(idempotentOrders, (message) => handle(message.body)),
);

// Tracing as an app would leave it before starting an SDK (the global API's no-op tracer), and with
// one recording every span; the exporter drops them, so only the spans' own cost is measured.
const untraced = createMailroom({ ...MAILROOM_OPTIONS, tracing: openTelemetry() });
app.post(
  '/untraced/orders',
  untraced.destination(defineDestination({ name: 'orders', path: '/untraced/orders', schema: orderSchema }), (message) =>
    handle(message.body),
  ),
);
const dropSpans = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
const recording = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: dropSpans })] });
const traced = createMailroom({ ...MAILROOM_OPTIONS, tracing: openTelemetry({ tracerProvider: recording }) });
app.post(
  '/traced/orders',
  traced.destination(defineDestination({ name: 'orders', path: '/traced/orders', schema: orderSchema }), (message) => handle(message.body)),
);

const receiver = new Receiver({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY });
app.post('/vendor/orders', express.text({ type: () => true }), async (req, res, next) => {
  try {
    await receiver.verify({ signature: req.get('upstash-signature') ?? '', body: req.body, url: PUBLIC_URL + req.originalUrl });
  } catch {
    // Out of the box the vendor's Receiver throws (a 500); a fair app answers 401 like ours.
    res.status(401).end();
    return;
  }
  try {
    const parsed = orderSchema.safeParse(JSON.parse(req.body));
    if (!parsed.success) {
      res.status(422).end();
      return;
    }
    handle(parsed.data);
    res.status(200).end();
  } catch (error) {
    next(error);
  }
});

const floor = createFloorVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });
app.post('/floor/orders', express.raw({ type: () => true }), (req, res) => {
  try {
    floor({ signature: req.get('upstash-signature') ?? '', bytes: req.body, url: PUBLIC_URL + req.originalUrl });
  } catch {
    res.status(401).end();
    return;
  }
  const parsed = orderSchema.safeParse(JSON.parse(req.body.toString('utf8')));
  if (!parsed.success) {
    res.status(422).end();
    return;
  }
  handle(parsed.data);
  res.status(200).end();
});

const server = app.listen(0, '127.0.0.1', () => {
  process.send({ ready: true, port: server.address().port });
});
server.keepAliveTimeout = 30_000;
answerCommands(() => handled);
