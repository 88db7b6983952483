import type { ActionFunctionArgs } from 'react-router';
import { orderPlaced } from '../destinations';
import { client } from '../mailroom.server';

export const action = async ({ request }: ActionFunctionArgs) => {
  const { orderId } = (await request.json()) as { orderId: string };
  return Response.json(await client.send(orderPlaced, { orderId }));
};
