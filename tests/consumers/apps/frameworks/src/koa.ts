// A Koa 3 app with @koa/router and a global body parser kept off deliveries, configured only by what
// `mailroom dev` printed.
import { createServer } from 'node:http';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import { createMailroom } from '@mailroom/adapters/koa';
import Koa from 'koa';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const mailroom = createMailroom();
const app = new Koa();
app.use(mailroom.exceptDeliveries(bodyParser()));
const router = new Router();
router.post(
  orderPlaced.path,
  mailroom.destination(orderPlaced, (message, ctx) => {
    seen.orders.push(message.body);
    seen.frameworkContext.push(ctx.originalUrl);
  }),
);
router.post(
  crashing.path,
  mailroom.destination(crashing, () => {
    throw new Error('the handler fails');
  }),
);
router.post(
  '/callbacks',
  mailroom.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt })),
);
router.post(
  '/failures',
  mailroom.failureCallback((message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }), {
    source: crashing,
  }),
);
app.use(router.routes());
const server = createServer(app.callback());
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? new URL(appUrl).port), '127.0.0.1', resolve));
console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
await runScenario(appUrl);
server.close();
process.exit(0);
