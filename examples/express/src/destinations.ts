import { z } from 'zod';
import { defineDestination } from '@mailroom/core';

/**
 * One definition, imported by the sender (`client.send(orderPlaced, ...)`, type-checked) and by the
 * receiver below (the handler gets the parsed, typed body).
 */
export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/orders',
  schema: z.object({
    orderId: z.string(),
    total: z.number().nonnegative(),
    /** Demo only: the handler fails while fewer than this many retries were made, to show retries. */
    failTimes: z.number().int().nonnegative().optional(),
  }),
});
