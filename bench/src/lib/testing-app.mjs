// The app the testing measurements test: a node:http listener whose /fail route always fails (after
// verifying the delivery) and whose /workflow is a Workflow SDK run of 5 steps around a sleep('1d').
import { createReceiver } from '@mailroom/core';
import { handleNodeRequest, writeOutbound } from '@mailroom/core/adapter';
import { Client, Receiver } from '@upstash/qstash';
import { serve } from '@upstash/workflow';

/** A node:http listener: every delivery to /fail fails (after verifying it), /workflow is the SDK's. */
export function appFor(env) {
  const receiver = createReceiver({
    currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY,
    nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY,
    headerPrefix: 'Upstash',
    issuer: 'Upstash',
    onError: () => {},
  });
  const failing = receiver.message(() => {
    throw new Error('always fails');
  });
  const { handler: workflow } = serve(
    async (context) => {
      await context.run('one', () => 1);
      await context.run('two', () => 2);
      await context.sleep('a day', '1d');
      await context.run('three', () => 3);
      await context.run('four', () => 4);
      await context.run('five', () => 5);
    },
    {
      qstashClient: new Client({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN }),
      receiver: new Receiver({ currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY, nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY }),
      disableTelemetry: true,
    },
  );
  return async (req, res) => {
    if (req.url === '/fail') {
      writeOutbound(res, await handleNodeRequest(failing, req));
      return;
    }
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const headers = new Headers(Object.entries(req.headers).filter(([, value]) => typeof value === 'string'));
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, ...(body.length ? { body } : {}) });
    const response = await workflow(request);
    res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
  };
}
