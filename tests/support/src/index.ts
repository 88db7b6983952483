// What the adapters' suites share: one pair of signing keys, one destination, and signed deliveries
// sent as exact bytes. Each suite's own helpers (starting a Nest app, a Next route) stay with it.
import { defineDestination } from '@mailroom/core';
import { signRequest, type SignRequestOptions } from '@mailroom/core/testing';
import request from 'supertest';
import { z } from 'zod';

export const keys = { currentSigningKey: 'sig_current_test_key', nextSigningKey: 'sig_next_test_key' };

/** Receiver settings for tests: fixed keys, no env lookups (the machine's variables cannot leak in), no logging. */
export const receiverOptions = { ...keys, env: {}, onError: () => {} };

const orderSchema = z.object({ orderId: z.string(), total: z.number() });

/** The order destination served at `path` (a route must serve its definition's path). */
export function orderPlacedAt(path: string) {
  return defineDestination({ name: 'order-placed', path, schema: orderSchema });
}

export const orderPlaced = orderPlacedAt('/orders');

export const order = { orderId: 'o_1', total: 12.5 };

/** A delivery signed for `url` with {@link keys}, as the service would send it. */
export async function delivery(url: string, body: unknown, extra: Partial<SignRequestOptions> = {}) {
  const { headers, body: bytes } = await signRequest({ url, body, ...keys, ...extra });
  return { headers, body: Buffer.from(bytes) };
}

/** `value` (text as is, anything else as JSON) in base64, as callbacks carry bodies. */
export function base64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
}

/**
 * Posts a delivery's exact bytes to a Node server or listener. superagent would re-serialise a Buffer
 * as JSON under a JSON content type, which is the very thing a signature must catch, so its
 * serialiser is bypassed.
 */
export function postBytes(
  app: Parameters<typeof request>[0],
  path: string,
  { headers, body }: { headers: Record<string, string>; body: Buffer },
) {
  return request(app)
    .post(path)
    .set(headers)
    .serialize((bytes: unknown) => bytes as string)
    .send(body);
}
