import { defineDestination } from '@mailroom/core';
import { z } from 'zod';

export const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
export const crashing = defineDestination({ name: 'crash', schema: z.object({ orderId: z.string() }) });
