// `Bun.serve` with core's Web entry and no framework, as docs/frameworks/bun.md shows it: an
// endpoint's `fetch` is the handler, the keys read from the environment.
import { createReceiver } from '@mailroom/core';
import { runScenario, webEndpoints } from './scenario.js';

// Bun's own types come with `@types/bun`; this app type-checks with tsc, so it names what it uses.
declare const Bun: {
  serve(options: {
    port: number;
    hostname: string;
    routes: Record<string, (request: Request) => Response | Promise<Response>>;
    fetch(request: Request): Response | Promise<Response>;
  }): { port: number; stop(): Promise<void> };
};

// The scenario's four endpoints, each recording what it saw; `fetch` is what Bun hands a request to.
const endpoints = webEndpoints(createReceiver(), 'Bun.serve');

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
