import { orderPlaced } from '../../../lib/destinations';
import { events } from '../../../lib/events';
import { mailroom } from '../../../lib/mailroom';

export const POST = mailroom.failureCallback(
  (message) => {
    events.push({
      kind: 'failure-callback',
      dlqId: message.dlqId,
      orderId: message.sourceBody.valid ? message.sourceBody.data.orderId : undefined,
    });
  },
  { source: orderPlaced },
);
