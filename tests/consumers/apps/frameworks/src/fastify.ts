// A Fastify 5 app configured only by what `mailroom dev` printed; its own JSON route keeps Fastify's parser.
import { createMailroom } from '@mailroom/adapters/fastify';
import Fastify from 'fastify';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

const appUrl = process.env.MAILROOM_APP_URL!;
const mailroom = createMailroom();
const app = Fastify();
await app.register(mailroom.plugin);
app.post(
  orderPlaced.path,
  mailroom.destination(orderPlaced, (message, { request }) => {
    seen.orders.push(message.body);
    seen.frameworkContext.push(request.url);
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
app.post('/echo', async (request) => request.body);
// Binds PORT (0: a free one) and says where; the dev server delivers to the public MAILROOM_APP_URL.
await app.listen({ port: Number(process.env.PORT ?? new URL(appUrl).port), host: '127.0.0.1' });
console.log(`listening on http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
const echo = await (
  await fetch(`${appUrl}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' })
).json();
seen.frameworkContext.push(JSON.stringify(echo));
await runScenario(appUrl);
await app.close();
process.exit(0);
