import type { APIRoute } from 'astro';
import { orderPlaced } from '../../lib/destinations';
import { client } from '../../lib/mailroom';

export const prerender = false;
export const POST: APIRoute = async ({ request }) => {
  const { orderId } = (await request.json()) as { orderId: string };
  return Response.json(await client.send(orderPlaced, { orderId }));
};
