import { createFileRoute } from '@tanstack/react-router';
import { orderPlaced } from '../../lib/destinations';
import { received, receiver } from '../../lib/mailroom';

const orders = receiver.destination(orderPlaced, (message, context) => {
  received.push({ ...message.body, path: new URL((context as { request: Request }).request.url).pathname });
});

export const Route = createFileRoute('/api/order-placed')({
  server: { handlers: { POST: (context) => orders.fetch(context.request, context) } },
});
