import type { APIEvent } from '@solidjs/start/server';
import { orderPlaced } from '../../lib/destinations';
import { client } from '../../lib/mailroom';

export async function POST({ request }: APIEvent) {
  const { orderId } = (await request.json()) as { orderId: string };
  return Response.json(await client.send(orderPlaced, { orderId }));
}
