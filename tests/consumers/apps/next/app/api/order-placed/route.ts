import { createMailroom } from '@mailroom/adapters/next';
import { orderPlaced, received } from '../../../lib/destinations';

export const POST = createMailroom().destination(orderPlaced, (message) => {
  received.push(message.body);
});
