// A Hono app on Node (@hono/node-server), configured only by what `mailroom dev` printed.
import { serve } from '@hono/node-server';
import { createMailroom } from '@mailroom/adapters/hono';
import { Hono } from 'hono';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const mailroom = createMailroom();
const app = new Hono();
app.post(
  orderPlaced.path,
  mailroom.destination(orderPlaced, (message, c) => {
    seen.orders.push(message.body);
    seen.frameworkContext.push(c.req.path);
  }),
);
app.post(
  crashing.path,
  mailroom.destination(crashing, () => {
    throw new Error('the handler fails');
  }),
);
app.post(
  '/callbacks',
  mailroom.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt })),
);
app.post(
  '/failures',
  mailroom.failureCallback((message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }), {
    source: crashing,
  }),
);
// Binds PORT (0: a free one) and says where; the dev server delivers to the public MAILROOM_APP_URL.
const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? new URL(appUrl).port), hostname: '127.0.0.1' }, (info) =>
  console.log(`listening on http://127.0.0.1:${info.port}`),
);
await new Promise((resolve) => server.once('listening', resolve));
await runScenario(appUrl);
server.close();
process.exit(0);
