import { createTestService } from '@mailroom/testing';
import { expect, it } from 'vitest';
import { orderPlaced } from '../app/destinations';
import { received } from '../app/mailroom.server';
import { action } from '../app/routes/api.order-placed';

it('delivers a message into the resource route action in-process', async () => {
  const service = await createTestService({
    // An action is handed its arguments: the request, the route's params, the app's context.
    app: { fetch: (request: Request) => action({ request, params: {}, context: {} } as never) },
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
