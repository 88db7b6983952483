import { defineDestination } from '@mailroom/core';
import { z } from 'zod';

export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/api/order-placed',
  schema: z.object({ orderId: z.string() }),
});
