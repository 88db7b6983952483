import { defineDestination } from '@mailroom/core';
import { z } from 'zod';

export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/api/order-placed',
  schema: z.object({ orderId: z.string() }),
});

/** What the routes saw; on globalThis because each route is bundled on its own. */
export const received: unknown[] = ((globalThis as { __received?: unknown[] }).__received ??= []);
