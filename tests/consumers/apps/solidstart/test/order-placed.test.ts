import type { APIEvent } from '@solidjs/start/server';
import { createTestService } from '@mailroom/testing';
import { expect, it } from 'vitest';
import { orderPlaced } from '../src/lib/destinations';
import { received } from '../src/lib/mailroom';
import { POST } from '../src/routes/api/order-placed';

it('delivers a message into the API route in-process', async () => {
  const service = await createTestService({
    // An API route is handed an event holding the request.
    app: { fetch: (request: Request) => POST({ request } as APIEvent) },
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
