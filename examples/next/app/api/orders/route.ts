import { orderPlaced } from '../../../lib/destinations';
import { events } from '../../../lib/events';
import { mailroom } from '../../../lib/mailroom';

export const POST = mailroom.destination(orderPlaced, (message) => {
  events.push({ kind: 'order', orderId: message.body.orderId, total: message.body.total, retried: message.retried });
  return { stored: message.body.orderId };
});
