// @mailroom/adapters/cloudflare: Cloudflare Workers handlers without a framework, for
// `export default { fetch }`. A Worker has no `process.env`: its keys arrive with each request, in
// the `env` bindings, so the receiver is made per set of bindings (and kept). The rest is core's Web
// path; nothing here imports a Node built-in.
import type { ReceiverOptions } from '@mailroom/core';
import { bindReceiverPerEnvironment, type Endpoint, type EndpointFactories } from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/** A Worker's `fetch`: `export default { fetch: handler }`, or called from your own router. */
export type WorkerHandler = (request: Request, env?: unknown, ctx?: unknown) => Promise<Response>;

/** The handler's second argument: the Worker's bindings and its execution context (`ctx.waitUntil`). */
export interface WorkerDelivery {
  env: unknown;
  ctx: unknown;
}

function toWorkerHandler(endpointFor: (env: unknown) => Endpoint): WorkerHandler {
  return (request, env, ctx) => endpointFor(env).fetch(request, { env, ctx } satisfies WorkerDelivery);
}

/** `destination`, `callback` and `failureCallback` Worker handlers; handlers get the message and `{ env, ctx }`. */
export type WorkerMailroom = EndpointFactories<WorkerHandler, WorkerDelivery>;

/**
 * Binds receiver settings once for every handler of a Worker. Settings not given in code come from
 * the request's `env` bindings (`MAILROOM_CURRENT_SIGNING_KEY`, `MAILROOM_NEXT_SIGNING_KEY`, ...: `wrangler
 * secret put`, or `[vars]`), read at each request's bindings and kept per set of values.
 *
 * @example
 * import { createMailroom } from '@mailroom/adapters/cloudflare';
 *
 * const mailroom = createMailroom();
 * const orders = mailroom.destination(orderPlaced, (message, { env }) => save(message.body, env));
 *
 * export default {
 *   fetch: (request, env, ctx) =>
 *     new URL(request.url).pathname === orderPlaced.path ? orders(request, env, ctx) : new Response('Not found', { status: 404 }),
 * };
 */
export function createMailroom(options: ReceiverOptions = {}): WorkerMailroom {
  return bindReceiverPerEnvironment<WorkerHandler, ReceiverOptions, WorkerDelivery>(options, toWorkerHandler);
}
