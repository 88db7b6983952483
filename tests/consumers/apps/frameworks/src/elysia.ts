// An Elysia app on Bun with core's Web entry in its routes (no adapter: Elysia hands the Web Request),
// configured only by what `mailroom dev` printed. Mailroom's routes come before the app's own body
// parser, as docs/frameworks/elysia.md says.
import { createReceiver } from '@mailroom/core';
import { Elysia } from 'elysia';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const receiver = createReceiver();
const orders = receiver.destination(orderPlaced, (message, path) => {
  seen.orders.push(message.body);
  // What the route passed along with the request (core's Web entry types it `unknown`).
  seen.frameworkContext.push(String(path));
});
const crash = receiver.destination(crashing, () => {
  throw new Error('the handler fails');
});
const callbacks = receiver.callback(
  (message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt }),
);
const failures = receiver.failureCallback(
  (message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }),
  {
    source: crashing,
  },
);
const app = new Elysia()
  .all(orderPlaced.path, ({ request, path }) => orders.fetch(request, path))
  .all(crashing.path, ({ request }) => crash.fetch(request))
  .all('/callbacks', ({ request }) => callbacks.fetch(request))
  .all('/failures', ({ request }) => failures.fetch(request))
  .onParse(async ({ request }, contentType) => (contentType === 'application/json' ? ((await request.json()) as unknown) : undefined))
  .listen({ port: Number(process.env.PORT ?? new URL(appUrl).port), hostname: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${app.server?.port}`);
await runScenario(appUrl);
await app.stop();
process.exit(0);
