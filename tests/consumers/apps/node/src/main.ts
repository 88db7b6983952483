// An Express 5 app configured only by the `.env` lines `mailroom dev` printed: it receives, sends
// through the dev server, and reports what it saw as one JSON line for the test to check.
import { createMessagingClient, type FailureCallbackMessage } from '@mailroom/core';
import { signRequest } from '@mailroom/core/testing';
import { createMailroom } from '@mailroom/adapters/express';
import express from 'express';
import { crashing, orderPlaced } from './destinations.js';

// The app's public URL (the dev server delivers there) and the port it binds (PORT=0: a free one).
const appUrl = process.env.MAILROOM_APP_URL!;
const port = Number(process.env.PORT ?? new URL(appUrl).port);
const seen = { orders: [] as unknown[], callbacks: [] as Array<{ status?: number; isFinalAttempt: boolean }>, failures: [] as unknown[] };

const mailroom = createMailroom();
const app = express();
// The README's set-up: the app's own routes get parsed JSON, deliveries reach Mailroom unparsed.
app.use(mailroom.exceptDeliveries(express.json()));
app.post('/echo', (req, res) => void res.json(req.body));
app.post(
  orderPlaced.path,
  mailroom.destination(orderPlaced, (message) => void seen.orders.push(message.body)),
);
app.post(
  crashing.path,
  mailroom.destination(crashing, () => {
    throw new Error('secret-connection-string at db.internal');
  }),
);
app.post(
  '/callbacks',
  mailroom.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt }), {
    source: orderPlaced,
  }),
);
app.post(
  '/failures',
  mailroom.failureCallback(
    (message: FailureCallbackMessage<{ orderId: string }>) => {
      const dlqId: string = message.dlqId;
      seen.failures.push({
        dlqId,
        valid: message.sourceBody.valid,
        text: message.sourceBody.text,
        issues: message.sourceBody.valid ? [] : message.sourceBody.issues.length,
      });
    },
    { source: orderPlaced },
  ),
);
const server = app.listen(port, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
console.log(`listening on http://127.0.0.1:${(server.address() as { port: number }).port}`);

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const client = createMessagingClient();
// 1: the first send of the README, with a callback after the attempt.
await client.send(orderPlaced, { orderId: 'o-1' }, { callback: `${appUrl}/callbacks` });
await until(() => seen.orders.length === 1 && seen.callbacks.length === 1, 'the message and its callback');

// 2: a body that breaks the schema: 489, DLQ, and a failure callback that still reaches the app.
await client.enqueueJSON({
  queue: 'broken',
  destination: `${appUrl}${orderPlaced.path}` as `http://${string}`,
  body: { orderId: 42 },
  retries: 0,
  failureCallback: `${appUrl}/failures`,
});
await until(() => seen.failures.length === 1, 'the failure callback');

// 3: a token signed for another endpoint of this app, replayed here.
const key = process.env.MAILROOM_CURRENT_SIGNING_KEY!;
const headerPrefix = process.env.MAILROOM_HEADER_PREFIX!;
const replay = await signRequest({ url: `${appUrl}/some-other-endpoint`, body: { orderId: 'o-2' }, key, headerPrefix });
const replayed = await fetch(`${appUrl}${orderPlaced.path}`, { method: 'POST', headers: replay.headers, body: replay.text });

// 4: a handler that crashes.
const crash = await signRequest({ url: `${appUrl}${crashing.path}`, body: { orderId: 'o-3' }, key, headerPrefix });
const crashed = await fetch(`${appUrl}${crashing.path}`, { method: 'POST', headers: crash.headers, body: crash.text });

// 5: the global parser: the app's route parses, a delivery with broken JSON gets our 489 (not
// Express's HTML page); unsigned broken JSON is refused by the app's own parser.
const json = { 'content-type': 'application/json' };
const echo = await (await fetch(`${appUrl}/echo`, { method: 'POST', headers: json, body: '{"a":1}' })).json();
const broken = await signRequest({
  url: `${appUrl}${orderPlaced.path}`,
  body: '{"orderId":',
  key,
  headerPrefix,
  contentType: 'application/json',
});
const badJson = await fetch(`${appUrl}${orderPlaced.path}`, { method: 'POST', headers: broken.headers, body: broken.text });
const unsigned = await fetch(`${appUrl}${orderPlaced.path}`, { method: 'POST', headers: json, body: '{"orderId":' });

console.log(
  `REPORT ${JSON.stringify({
    parsers: { echo, badJson: [badJson.status, (await badJson.text()).includes('<')], unsigned: unsigned.status },
    seen,
    replay: replayed.status,
    crash: { status: crashed.status, contentType: crashed.headers.get('content-type'), body: await crashed.text() },
  })}`,
);
server.close();
process.exit(0);
