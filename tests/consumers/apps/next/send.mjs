// Sends as the app's own code would, with the settings mailroom dev printed.
import { createMessagingClient, defineDestination } from '@mailroom/core';
import { z } from 'zod';

const orderPlaced = defineDestination({ name: 'order-placed', path: '/api/order-placed', schema: z.object({ orderId: z.string() }) });
const { messageId } = await createMessagingClient().send(orderPlaced, { orderId: 'next-1' });
console.log(messageId);
