import type { APIRoute } from 'astro';
import { orderPlaced } from '../../lib/destinations';
import { received, receiver } from '../../lib/mailroom';

export const prerender = false;

const orders = receiver.destination(orderPlaced, (message, context) => {
  received.push({ ...message.body, path: (context as { url: URL }).url.pathname });
});

export const ALL: APIRoute = (context) => orders.fetch(context.request, context);
