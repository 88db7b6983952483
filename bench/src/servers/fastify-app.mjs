// The Fastify app of the framework measurement: the routes of express-app.mjs, in Fastify 5.
//   /bare             Fastify's JSON parser and the handler: no signature, no schema (the ceiling)
//   /mailroom/orders  @mailroom/adapters/fastify destination (plugin registered): signature, JSON parse, zod, handler
//   /vendor/orders    the vendor SDK's Receiver over the body as text, plus the same JSON parse and zod
//   /floor/orders     the floor: a minimal hand-written verifying route (node:crypto, JSON.parse, zod)
import { defineDestination } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/fastify';
import { Receiver } from '@upstash/qstash';
import Fastify from 'fastify';
import { CURRENT_KEY, ISSUER, MAILROOM_OPTIONS, NEXT_KEY, PUBLIC_URL, orderSchema } from '../lib/fixtures.mjs';
import { createFloorVerifier } from '../lib/floor-verifier.mjs';
import { answerCommands } from './commands.mjs';

let handled = 0;
const handle = (order) => {
  if (order.items.length > 0) handled++;
};

const app = Fastify({ logger: false, keepAliveTimeout: 30_000 });
const mailroom = createMailroom(MAILROOM_OPTIONS);
await app.register(mailroom.plugin);

app.post('/bare', async (request, reply) => {
  handle(request.body);
  return reply.code(200).send();
});

const orders = defineDestination({ name: 'orders', path: '/mailroom/orders', schema: orderSchema });
app.post(
  '/mailroom/orders',
  mailroom.destination(orders, (message) => handle(message.body)),
);

const receiver = new Receiver({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY });
const floor = createFloorVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });

// The raw routes each get the body as Fastify hands it raw: text for the vendor, bytes for the floor.
await app.register(async (raw) => {
  raw.removeAllContentTypeParsers();
  raw.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  raw.post('/vendor/orders', async (request, reply) => {
    try {
      await receiver.verify({ signature: request.headers['upstash-signature'] ?? '', body: request.body, url: PUBLIC_URL + request.url });
    } catch {
      return reply.code(401).send();
    }
    const parsed = orderSchema.safeParse(JSON.parse(request.body));
    if (!parsed.success) return reply.code(422).send();
    handle(parsed.data);
    return reply.code(200).send();
  });
});
await app.register(async (raw) => {
  raw.removeAllContentTypeParsers();
  raw.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  raw.post('/floor/orders', async (request, reply) => {
    try {
      floor({ signature: request.headers['upstash-signature'] ?? '', bytes: request.body, url: PUBLIC_URL + request.url });
    } catch {
      return reply.code(401).send();
    }
    const parsed = orderSchema.safeParse(JSON.parse(request.body.toString('utf8')));
    if (!parsed.success) return reply.code(422).send();
    handle(parsed.data);
    return reply.code(200).send();
  });
});

await app.listen({ port: 0, host: '127.0.0.1' });
process.send({ ready: true, port: app.server.address().port });
answerCommands(() => handled);
