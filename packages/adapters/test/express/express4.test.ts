import type express5 from 'express';
import express4 from 'express4';
import { captureRawBody, createMailroom } from '../../src/express';
import { describeExpressAdapter } from './express-cases';
import { orderPlaced, receiverOptions } from '@mailroom/test-support';

// Compile-time proof that the same handlers fit Express 4's and Express 5's own types side by side
// (@types/express 4 and 5 are not assignable to each other, so this fails with types from `express`).
const app4: express4.Express = express4();
app4.use(express4.json({ verify: captureRawBody }));
app4.post(
  orderPlaced.path,
  createMailroom(receiverOptions).destination(orderPlaced, () => {}),
);
app4.use(
  '/hooks',
  express4.Router().post(
    '/orders',
    createMailroom(receiverOptions).callback(() => {}),
  ),
);
const handler4: express4.RequestHandler = createMailroom(receiverOptions).destination(orderPlaced, () => {});
const handler5: express5.RequestHandler = createMailroom(receiverOptions).destination(orderPlaced, () => {});
void [app4, handler4, handler5];

// The cases are written against Express 5's types; at runtime they only use what both majors share.
describeExpressAdapter('express 4', express4 as unknown as typeof express5);
