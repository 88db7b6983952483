// Production without a deployment adapter: `vite build` writes the server as a fetch handler
// (dist/server/server.js), served here by srvx, the server TanStack Start itself uses, on a port the
// system picks, printed for the test.
import { serve } from 'srvx';
import app from './dist/server/server.js';

const server = serve({ fetch: app.fetch, port: Number(process.env.PORT ?? 3000), hostname: process.env.HOST ?? '127.0.0.1', silent: true });
await server.ready();
console.log(`listening on ${server.url}`);
