// `Bun.serve` with core's Web entry and no framework, as docs/frameworks/bun.md shows it: an
// endpoint's `fetch` is the handler, the keys read from the environment.
import { createReceiver } from '@mailroom/core';
import { crashing, orderPlaced, runScenario, seen } from './scenario.js';

// Bun's own types come with `@types/bun`; this app type-checks with tsc, so it names what it uses.
declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    routes: Record<string, (request: Request) => Response | Promise<Response>>;
    fetch(request: Request): Response | Promise<Response>;
  }): { port: number; stop(): Promise<void> };
};

const receiver = createReceiver();
const endpoints = new Map<string, { fetch(request: Request): Promise<Response> }>([
  [
    orderPlaced.path,
    receiver.destination(orderPlaced, (message) => {
      seen.orders.push(message.body);
      seen.frameworkContext.push('Bun.serve');
    }),
  ],
  [
    crashing.path,
    receiver.destination(crashing, () => {
      throw new Error('the handler fails');
    }),
  ],
  [
    '/callbacks',
    receiver.callback((message) => void seen.callbacks.push({ status: message.status, isFinalAttempt: message.isFinalAttempt })),
  ],
  [
    '/failures',
    receiver.failureCallback((message) => void seen.failures.push({ dlqId: message.dlqId, sourceBody: message.sourceBody.data }), {
      source: crashing,
    }),
  ],
]);

const server = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  // Bun's own router; each endpoint is handed the Request as Bun gave it.
  routes: Object.fromEntries([...endpoints].map(([path, endpoint]) => [path, (request: Request) => endpoint.fetch(request)])),
  fetch: () => new Response('Not found', { status: 404 }),
});
console.log(`listening on http://127.0.0.1:${server.port}`);
await runScenario(process.env.MAILROOM_APP_URL!);
await server.stop();
process.exit(0);
