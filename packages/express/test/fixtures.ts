import { defineDestination } from '@mailroom/core';
import request from 'supertest';
import { signRequest, type SignRequestOptions } from '@mailroom/core/testing';
import { z } from 'zod';

const keys = { currentSigningKey: 'sig_current_test_key', nextSigningKey: 'sig_next_test_key' };

/** Receiver settings for tests: fixed keys, and no env lookups so the machine's variables cannot leak in. */
export const options = { ...keys, env: {}, onError: () => {} };

export const orderPlaced = defineDestination({
  name: 'order-placed',
  path: '/orders',
  schema: z.object({ orderId: z.string(), total: z.number() }),
});

export const order = { orderId: 'o_1', total: 12.5 };

/** A delivery signed for `url`, as the service would send it. */
export async function delivery(url: string, body: unknown, extra: Partial<SignRequestOptions> = {}) {
  const { headers, body: bytes } = await signRequest({ url, body, ...keys, ...extra });
  return { headers, body: Buffer.from(bytes) };
}

export function base64(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
}

/**
 * Posts a delivery's exact bytes. superagent would re-serialise a Buffer as JSON under a JSON
 * content type, which is the very thing a signature must catch, so its serialiser is bypassed.
 */
export function post(
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
