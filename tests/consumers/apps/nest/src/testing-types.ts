// @mailroom/core/testing under the Nest CLI's node10 resolution: found, and typed (not `any`).
import { createSignedRequest, signRequest } from '@mailroom/core/testing';

export async function signedForTests(): Promise<Request> {
  // @ts-expect-error url must be a string
  await signRequest({ url: 1, body: {} });
  return createSignedRequest({ url: 'http://localhost/order-placed', body: { orderId: 'o-1' }, key: 'sig_test' });
}
