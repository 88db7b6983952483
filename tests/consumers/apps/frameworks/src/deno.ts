// `Deno.serve` with core's Web entry and no framework, as docs/frameworks/deno.md shows it: an
// endpoint's `fetch` is the handler. Run with `deno run`, the packed packages resolved from this
// app's node_modules (Deno reads package.json), the keys from the environment (--allow-env).
import { createReceiver } from '@mailroom/core';
import { runScenario, webEndpoints } from './scenario.js';

// Deno's own types come with `deno check`; this app type-checks with tsc, so it names what it uses.
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    handler: (request: Request) => Response | Promise<Response>,
  ): { shutdown(): Promise<void> };
  exit(code: number): never;
};

// The scenario's four endpoints, each recording what it saw; `fetch` is what Deno hands a request to.
const routes = webEndpoints(createReceiver(), 'Deno.serve');

let server: { shutdown(): Promise<void> } | undefined;
const port = await new Promise<number>((resolve) => {
  server = Deno.serve(
    { port: 0, hostname: '127.0.0.1', onListen: (address) => resolve(address.port) },
    (request) => routes.get(new URL(request.url).pathname)?.fetch(request) ?? new Response('Not found', { status: 404 }),
  );
});
console.log(`listening on http://127.0.0.1:${port}`);
await runScenario(Deno.env.get('MAILROOM_APP_URL')!);
await server?.shutdown();
Deno.exit(0);
