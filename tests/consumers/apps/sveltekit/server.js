// adapter-node's custom server (its docs: "Custom server"): the built handler on a port the system
// picks, printed for the test.
import { createServer } from 'node:http';
import { handler } from './build/handler.js';

const server = createServer(handler).listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
