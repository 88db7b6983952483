import type { Request as ExpressRequest, Response as ExpressResponse } from 'express';
import { Client, Receiver } from '@upstash/qstash';
import { serve } from '@upstash/workflow';

// A durable workflow of the vendor's Workflow SDK, served by this app: reserve the order, cool off
// for a day, wait up to a week for its payment, ship. It runs on the real service, on `mailroom dev`,
// and under @mailroom/testing (test/workflow.test.ts) where the day and the week take milliseconds.

export type FulfilmentStep = { step: 'reserved' | 'shipped' | 'payment timed out'; orderId: string };

/** The route handler; QSTASH_URL, QSTASH_TOKEN and the signing keys come from `env`, read on the first request. */
export function fulfilmentRoute(env: Readonly<Record<string, string | undefined>>, log: FulfilmentStep[]) {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  const workflow = () =>
    serve<{ orderId: string }>(
      async (context) => {
        const { orderId } = context.requestPayload;
        await context.run('reserve', () => void log.push({ step: 'reserved', orderId }));
        await context.sleep('cool-off', '1d');
        const { timeout } = await context.waitForEvent('payment', `paid-${orderId}`, { timeout: '7d' });
        await context.run('ship', () => void log.push({ step: timeout ? 'payment timed out' : 'shipped', orderId }));
      },
      {
        qstashClient: new Client({ baseUrl: env.QSTASH_URL, token: env.QSTASH_TOKEN ?? '' }),
        receiver: new Receiver({
          currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY ?? '',
          nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY ?? '',
        }),
        disableTelemetry: true,
      },
    ).handler;
  // The SDK verifies the raw bytes: this route reads them itself (mounted before any body parser).
  return async (req: ExpressRequest, res: ExpressResponse) => {
    handler ??= workflow();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handler(
      new Request(`${req.protocol}://${req.get('host')}${req.originalUrl}`, { method: 'POST', headers, body }),
    );
    res.status(response.status);
    for (const [name, value] of response.headers) res.setHeader(name, value);
    res.end(Buffer.from(await response.arrayBuffer()));
  };
}
