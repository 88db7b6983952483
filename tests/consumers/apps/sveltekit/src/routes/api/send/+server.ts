import { json, type RequestHandler } from '@sveltejs/kit';
import { orderPlaced } from '$lib/destinations';
import { client } from '$lib/server/mailroom';

export const POST: RequestHandler = async ({ request }) => {
  const { orderId } = (await request.json()) as { orderId: string };
  return json(await client.send(orderPlaced, { orderId }));
};
