import { orderPlaced } from '$lib/destinations';
import { mailroom, received } from '$lib/server/mailroom';

export const POST = mailroom.destination(orderPlaced, (message, event) => {
  received.push({ ...message.body, path: event.url.pathname });
});
