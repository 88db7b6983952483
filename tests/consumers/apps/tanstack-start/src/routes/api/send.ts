import { createFileRoute } from '@tanstack/react-router';
import { orderPlaced } from '../../lib/destinations';
import { client } from '../../lib/mailroom';

export const Route = createFileRoute('/api/send')({
  server: {
    handlers: {
      POST: async ({ request }) => {
        const { orderId } = (await request.json()) as { orderId: string };
        return Response.json(await client.send(orderPlaced, { orderId }));
      },
    },
  },
});
