// @mailroom/testing under Jest and ts-jest (CommonJS): the Nest app receives in-process from the
// service, on a virtual clock.
import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createTestService, ExploreError, explore, type MailroomMatchers, matchers, type TestService } from '@mailroom/testing';
import { AppModule } from './../src/app.module';
import { orderPlaced } from './../src/destinations';
import { received } from './../src/orders.controller';

declare global {
  namespace jest {
    interface Matchers<R> extends MailroomMatchers<R> {}
  }
}
expect.extend(matchers);

describe('message flows under @mailroom/testing', () => {
  const keys = { current: 'sig_flows_current', next: 'sig_flows_next' };
  let app: INestApplication;
  let service: TestService;

  beforeEach(async () => {
    process.env.MAILROOM_CURRENT_SIGNING_KEY = keys.current;
    process.env.MAILROOM_NEXT_SIGNING_KEY = keys.next;
    received.length = 0;
    const moduleFixture: TestingModule = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication({ rawBody: true, logger: false });
    await app.init();
    service = await createTestService({ app, signingKeys: keys });
  });

  afterEach(async () => {
    await service.close();
    await app.close();
  });

  it('delivers a delayed message when the virtual clock reaches it', async () => {
    await service.client.send(orderPlaced, { orderId: 'later' }, { delay: '1d' });
    await service.advance('23h');
    expect(received).toEqual([]);
    await service.advance('1h');
    expect(received).toEqual([{ orderId: 'later' }]);
  });

  it('retries a message whose answers are lost into the DLQ, and duplicates one on demand', async () => {
    service.faults.loseAnswer({ times: 3 });
    const { messageId } = await service.client.send(orderPlaced, { orderId: 'lost' }, { retries: 2 });
    await service.runUntilIdle();
    expect(received).toHaveLength(3);
    expect((await service.dlq()).map((entry) => entry.messageId)).toEqual([messageId]);
    service.faults.duplicate({ times: 1 });
    await service.client.send(orderPlaced, { orderId: 'twice' });
    await service.runUntilIdle();
    expect(received.filter((order) => order.orderId === 'twice')).toHaveLength(2);
  });

  it('explores delivery schedules under Jest: a handler without an idempotency store is caught', async () => {
    const error = await explore({ app, signingKeys: keys, runs: 30, seed: 1 }, async (explored) => {
      received.length = 0;
      await explored.client.send(orderPlaced, { orderId: 'once' });
      await explored.runUntilIdle();
      expect(received).toEqual([{ orderId: 'once' }]);
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ExploreError);
    expect((error as ExploreError).message).toMatch(/^seed \d+: /);
  });

  it("asserts with @mailroom/testing's matchers under Jest", async () => {
    await service.client.send(orderPlaced, { orderId: 'matched' });
    await service.runUntilIdle();
    expect(service).toHaveDelivered(orderPlaced, { orderId: 'matched' });
    expect(service).toHaveRetried(orderPlaced, 0);
    expect(service).not.toHaveDelivered(orderPlaced, { orderId: 'never-sent' });
    await expect(service).not.toHaveEndedInDlq(orderPlaced);
  });
});
