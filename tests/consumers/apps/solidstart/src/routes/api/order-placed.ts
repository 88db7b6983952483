import type { APIEvent } from '@solidjs/start/server';
import { orderPlaced } from '../../lib/destinations';
import { received, receiver } from '../../lib/mailroom';

const orders = receiver.destination(orderPlaced, (message, event) => {
  received.push({ ...message.body, path: new URL((event as APIEvent).request.url).pathname });
});

export const POST = (event: APIEvent) => orders.fetch(event.request, event);
