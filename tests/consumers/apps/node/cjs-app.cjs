// A CommonJS consumer: require() of the root and both Node subpaths, receiving and sending for real.
const http = require('node:http');
const { createMessagingClient, createReceiver, defineDestination } = require('@mailroom/core');
const { handleNodeRequest, writeOutbound } = require('@mailroom/core/adapter');
const { signRequest } = require('@mailroom/core/testing');
const { z } = require('zod');

const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });

async function main() {
  const received = [];
  const endpoint = createReceiver().destination(orderPlaced, (message) => void received.push(message.body));
  const server = http.createServer(async (req, res) => writeOutbound(res, await handleNodeRequest(endpoint, req)));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const appUrl = `http://127.0.0.1:${server.address().port}`;

  const client = createMessagingClient({ appUrl });
  await client.send(orderPlaced, { orderId: 'cjs-1' });
  for (let waited = 0; received.length === 0 && waited < 20000; waited += 50) await new Promise((r) => setTimeout(r, 50));

  const forged = await signRequest({
    url: `${appUrl}/order-placed`,
    body: { orderId: 'x' },
    key: 'sig_not_the_key',
    headerPrefix: process.env.MAILROOM_HEADER_PREFIX,
  });
  const refused = await fetch(`${appUrl}/order-placed`, { method: 'POST', headers: forged.headers, body: forged.body });
  console.log(`REPORT ${JSON.stringify({ received, forged: refused.status })}`);
  server.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
