import { z } from 'zod';
import { defineDestination } from '@mailroom/core';

/** Shared by the sender (`client.send(orderPlaced, ...)`) and the route below. */
export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/api/orders',
  schema: z.object({ orderId: z.string(), total: z.number().nonnegative() }),
});
