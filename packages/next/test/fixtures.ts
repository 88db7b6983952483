import { defineDestination } from '@mailroom/core';
import { z } from 'zod';

export const keys = { currentSigningKey: 'sig_current_test_key', nextSigningKey: 'sig_next_test_key' };

/** Receiver settings for tests: fixed keys, and no env lookups so the machine's variables cannot leak in. */
export const options = { ...keys, env: {}, onError: () => {} };

export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/api/orders',
  schema: z.object({ orderId: z.string(), total: z.number() }),
});

export const order = { orderId: 'o_1', total: 12.5 };

export function base64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
}
