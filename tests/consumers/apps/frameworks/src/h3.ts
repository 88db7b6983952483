// A bare h3 2 app (Nitro 3's server) served by h3's own Node handler, configured only by what
// `mailroom dev` printed.
import { createServer } from 'node:http';
import { createMailroom } from '@mailroom/adapters/h3';
import { defineEventHandler, H3, type H3Event } from 'h3';
import { toNodeHandler } from 'h3/node';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const mailroom = createMailroom<H3Event>();
const app = new H3();
app.all(
  orderPlaced.path,
  defineEventHandler(
    mailroom.destination(orderPlaced, (message, event) => {
      seen.orders.push(message.body);
      seen.frameworkContext.push(event.url.pathname);
    }),
  ),
);
app.all(
  crashing.path,
  defineEventHandler(
    mailroom.destination(crashing, () => {
      throw new Error('the handler fails');
    }),
  ),
);
app.all(
  '/callbacks',
  defineEventHandler(
    mailroom.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt })),
  ),
);
app.all(
  '/failures',
  defineEventHandler(
    mailroom.failureCallback((message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }), {
      source: crashing,
    }),
  ),
);
const server = createServer(toNodeHandler(app));
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? new URL(appUrl).port), '127.0.0.1', resolve));
console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);
await runScenario(appUrl);
server.close();
process.exit(0);
