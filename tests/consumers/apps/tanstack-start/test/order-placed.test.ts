import { createTestService } from '@mailroom/testing';
import { expect, it } from 'vitest';
import { orderPlaced } from '../src/lib/destinations';
import { received } from '../src/lib/mailroom';
import { Route } from '../src/routes/api/order-placed';

it('delivers a message into the server route in-process', async () => {
  // A server route's handler is handed a context holding the request.
  const { POST } = Route.options.server!.handlers as { POST: (context: { request: Request }) => Promise<Response> };
  const service = await createTestService({
    app: { fetch: (request: Request) => POST({ request }) },
    // The pair vitest.config.ts puts in process.env, where the module-level receiver reads it.
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
