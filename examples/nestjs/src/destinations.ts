import { z } from 'zod';
import { defineDestination } from '@mailroom/core';

/** Shared by the sender (`client.send(orderPlaced, ...)`) and the controller below. */
export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/orders',
  schema: z.object({ orderId: z.string(), total: z.number().nonnegative() }),
});
