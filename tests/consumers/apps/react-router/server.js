// The built app on @react-router/node's request listener (what react-router-serve wraps), on a port
// the system picks, printed for the test.
import { createServer } from 'node:http';
import { createRequestListener } from '@react-router/node';
import * as build from './build/server/index.js';

const server = createServer(createRequestListener({ build })).listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
