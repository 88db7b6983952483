import { defineDestination } from '@mailroom/nestjs';
import { z } from 'zod';

export const orderPlaced = defineDestination({ name: 'order-placed', schema: z.object({ orderId: z.string() }) });
