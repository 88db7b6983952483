import { createMessagingClient } from '@mailroom/core';
import { orderPlaced } from '../../../lib/destinations';

// At module level, as the README writes it: `next build` evaluates this file without any MAILROOM_*
// setting, and the client must not throw until it is used.
const client = createMessagingClient();

export async function POST(request: Request): Promise<Response> {
  const { orderId } = (await request.json()) as { orderId: string };
  return Response.json(await client.send(orderPlaced, { orderId }));
}
