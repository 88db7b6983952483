// The Hono app of the framework measurement, on Node through @hono/node-server: the routes of
// express-app.mjs.
//   /bare             c.req.json() and the handler: no signature, no schema (the ceiling)
//   /mailroom/orders  @mailroom/adapters/hono destination: signature, JSON parse, zod, handler
//   /vendor/orders    the vendor SDK's Receiver over c.req.text(), plus the same JSON parse and zod
//   /floor/orders     the floor: a minimal hand-written verifying route (node:crypto, JSON.parse, zod)
import { serve } from '@hono/node-server';
import { defineDestination } from '@mailroom/core';
import { createMailroom } from '@mailroom/adapters/hono';
import { Receiver } from '@upstash/qstash';
import { Hono } from 'hono';
import { CURRENT_KEY, ISSUER, MAILROOM_OPTIONS, NEXT_KEY, PUBLIC_URL, orderSchema } from '../lib/fixtures.mjs';
import { createFloorVerifier } from '../lib/floor-verifier.mjs';
import { answerCommands } from './commands.mjs';

let handled = 0;
const handle = (order) => {
  if (order.items.length > 0) handled++;
};

const app = new Hono();
app.post('/bare', async (c) => {
  handle(await c.req.json());
  return c.body(null, 200);
});

const mailroom = createMailroom(MAILROOM_OPTIONS);
const orders = defineDestination({ name: 'orders', path: '/mailroom/orders', schema: orderSchema });
app.post(
  '/mailroom/orders',
  mailroom.destination(orders, (message) => handle(message.body)),
);

const receiver = new Receiver({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY });
app.post('/vendor/orders', async (c) => {
  const body = await c.req.text();
  try {
    await receiver.verify({ signature: c.req.header('upstash-signature') ?? '', body, url: PUBLIC_URL + c.req.path });
  } catch {
    return c.body(null, 401);
  }
  const parsed = orderSchema.safeParse(JSON.parse(body));
  if (!parsed.success) return c.body(null, 422);
  handle(parsed.data);
  return c.body(null, 200);
});

const floor = createFloorVerifier({ currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, issuer: ISSUER });
app.post('/floor/orders', async (c) => {
  const bytes = Buffer.from(await c.req.arrayBuffer());
  try {
    floor({ signature: c.req.header('upstash-signature') ?? '', bytes, url: PUBLIC_URL + c.req.path });
  } catch {
    return c.body(null, 401);
  }
  const parsed = orderSchema.safeParse(JSON.parse(bytes.toString('utf8')));
  if (!parsed.success) return c.body(null, 422);
  handle(parsed.data);
  return c.body(null, 200);
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.send({ ready: true, port: info.port });
});
server.keepAliveTimeout = 30_000;
answerCommands(() => handled);
