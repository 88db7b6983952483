import { orderPlaced } from '../../../lib/destinations';
import { events } from '../../../lib/events';
import { mailroom } from '../../../lib/mailroom';

export const POST = mailroom.callback(
  (message) => {
    events.push({
      kind: 'callback',
      status: message.status,
      isFinalAttempt: message.isFinalAttempt,
      orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
    });
  },
  { source: orderPlaced },
);
