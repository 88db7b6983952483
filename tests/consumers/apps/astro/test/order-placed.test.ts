import { createTestService } from '@mailroom/testing';
import { expect, it } from 'vitest';
import { orderPlaced } from '../src/lib/destinations';
import { received } from '../src/lib/mailroom';
import { ALL } from '../src/pages/api/order-placed';

it('delivers a message into the API route in-process', async () => {
  const service = await createTestService({
    // An API route is handed its context: the request, and the URL Astro parsed from it.
    app: { fetch: (request: Request) => ALL({ request, url: new URL(request.url) } as never) },
    // The pair .env.test holds, which astro:env/server gives the receiver.
    signingKeys: { current: 'sig_test_current', next: 'sig_test_next' },
  });
  try {
    await service.client.send(orderPlaced, { orderId: 'in-test' });
    await service.runUntilIdle();
    expect(received).toEqual([{ orderId: 'in-test', path: '/api/order-placed' }]);
  } finally {
    await service.close();
  }
});
