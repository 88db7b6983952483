// One message end to end through `mailroom dev`, the same for every framework: a send with a
// callback, and a message whose handler always fails, with a failure callback. The app reports what
// its handlers saw as one JSON line for the test to check.
import { createMessagingClient, defineDestination, type Receiver } from '@mailroom/core';
import { z } from 'zod';

export const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
export const crashing = defineDestination({ name: 'crash', schema: z.object({ orderId: z.string() }) });

export interface Seen {
  orders: unknown[];
  frameworkContext: string[];
  callbacks: Array<{ status?: number; isFinalAttempt: boolean }>;
  failures: Array<{ dlqId: string; sourceBody: unknown }>;
}

export const seen: Seen = { orders: [], frameworkContext: [], callbacks: [], failures: [] };

/**
 * The scenario's endpoints by path, from core's Web entry alone (for servers that hand a handler the
 * Web Request: `Bun.serve`, `Deno.serve`); `context` is what the destination records it was given.
 */
export function webEndpoints(receiver: Receiver, context: string): Map<string, { fetch(request: Request): Promise<Response> }> {
  return new Map<string, { fetch(request: Request): Promise<Response> }>([
    [
      orderPlaced.path,
      receiver.destination(orderPlaced, (message) => {
        seen.orders.push(message.body);
        seen.frameworkContext.push(context);
      }),
    ],
    [
      crashing.path,
      receiver.destination(crashing, () => {
        throw new Error('the handler fails');
      }),
    ],
    [
      '/callbacks',
      receiver.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt })),
    ],
    [
      '/failures',
      receiver.failureCallback((message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }), {
        source: crashing,
      }),
    ],
  ]);
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 50) {
    if (waited > 20_000) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(seen)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Sends through the dev server (configured only by the printed variables); prints the report and answers it. */
export async function runScenario(
  appUrl: string,
  env?: Readonly<Record<string, string | undefined>>,
): Promise<{ seen: Seen; forged: number }> {
  // On Node the settings come from process.env; a Worker hands its bindings over instead.
  const client = createMessagingClient(env ? { env } : undefined);
  await client.send(orderPlaced, { orderId: 'o-1' }, { callback: `${appUrl}/callbacks` });
  await until(() => seen.orders.length === 1 && seen.callbacks.length === 1, 'the message and its callback');
  await client.send(crashing, { orderId: 'o-2' }, { retries: 0, failureCallback: `${appUrl}/failures` });
  await until(() => seen.failures.length === 1, 'the failure callback');
  const forged = await fetch(`${appUrl}${orderPlaced.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'upstash-signature': 'forged', 'service-signature': 'forged' },
    body: '{"orderId":"o-3"}',
  });
  const report = { seen, forged: forged.status };
  console.log(`REPORT ${JSON.stringify(report)}`);
  return report;
}
