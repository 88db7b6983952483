// The e2e test `nest new` scaffolds (Jest + ts-jest + supertest), for an app that imports
// MailroomModule: the set-up the NestJS README shows, run under Jest's own module system.
import type { INestApplication } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { signRequest } from '@mailroom/core/testing';
import * as request from 'supertest';
import { AppModule } from './../src/app.module';
import { received } from './../src/orders.controller';

describe('OrdersController (e2e)', () => {
  let app: INestApplication;
  const key = 'sig_e2e_current';

  beforeAll(() => {
    // What the app under test verifies with; signRequest below signs with the same key.
    process.env.MAILROOM_CURRENT_SIGNING_KEY = key;
    process.env.MAILROOM_NEXT_SIGNING_KEY = 'sig_e2e_next';
  });

  beforeEach(async () => {
    const moduleFixture: TestingModule = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleFixture.createNestApplication({ rawBody: true });
    await app.init();
  });

  afterEach(async () => {
    await app.close();
  });

  it('/order-placed (POST) receives a signed message', async () => {
    const signed = await signRequest({ url: 'http://127.0.0.1/order-placed', body: { orderId: 'jest-1' }, key });
    await request(app.getHttpServer()).post('/order-placed').set(signed.headers).send(signed.text).expect(200);
    expect(received).toContainEqual({ orderId: 'jest-1' });
  });

  it('/order-placed (POST) refuses an unsigned request', async () => {
    await request(app.getHttpServer()).post('/order-placed').set('content-type', 'application/json').send('{"orderId":"x"}').expect(401);
  });
});
