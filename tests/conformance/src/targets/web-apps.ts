import { createMailroom, type WorkerHandler } from '@mailroom/adapters/cloudflare';
import type { TargetSetup } from '../target';
import { coreRoutes } from './core';

// The suite's three endpoints without a framework, as a user writes them for a runtime that serves
// Web requests itself: core's Web entry (`endpoint.fetch`) for `Deno.serve` and `Bun.serve`, and the
// Cloudflare entry for a Worker's `export default { fetch }`. Routing is a map of paths, as theirs is.

/** `Deno.serve(handler)` / `Bun.serve({ fetch })`: one receiver, each endpoint's `fetch`. */
export function webApp(setup: TargetSetup): { fetch: (request: Request) => Promise<Response> } {
  const routes = coreRoutes(setup);
  return {
    fetch: async (request) => routes.get(new URL(request.url).pathname)?.fetch(request) ?? new Response('Not found', { status: 404 }),
  };
}

/** `export default { fetch }` on Cloudflare: the keys come from the Worker's bindings, not from the options. */
export function workerApp(setup: TargetSetup): { fetch: WorkerHandler } {
  const mailroom = createMailroom(setup.options);
  const routes = new Map<string, WorkerHandler>([
    [setup.paths.destination, mailroom.destination(setup.destination.definition, setup.destination.handler)],
    [setup.paths.callback, mailroom.callback(setup.callback, setup.callbackOptions)],
    [setup.paths.failureCallback, mailroom.failureCallback(setup.failureCallback, setup.failureCallbackOptions)],
  ]);
  return {
    fetch: async (request, env, ctx) =>
      routes.get(new URL(request.url).pathname)?.(request, env, ctx) ?? new Response('Not found', { status: 404 }),
  };
}
