// @mailroom/adapters/hono: Hono handlers over the core pipeline's Web Request path. Nothing here imports a
// Node built-in, so the same handlers run on Node (@hono/node-server), Bun, Deno and Cloudflare
// Workers (Web Crypto there). Reading, limits, signature, parsing and status codes are core's.
import type { ReceiverOptions } from '@mailroom/core';
import {
  bindReceiverPerEnvironment,
  handleNodeRequest,
  toWebResponse,
  type Endpoint,
  type EndpointFactories,
} from '@mailroom/core/adapter';
import type { Context } from 'hono';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/** A Hono handler for `app.post(path, handler)` (or `app.all`, to let Mailroom answer a wrong method). */
export type MailroomHandler = (c: Context) => Promise<Response>;

/** `destination`, `callback` and `failureCallback` Hono handlers sharing one set of receiver settings; handlers get the message and Hono's `Context`. */
export type HonoMailroom = EndpointFactories<MailroomHandler, Context>;

/**
 * Hands the request to the endpoint for the request's environment, with the `Context` for the
 * handler: on `@hono/node-server`, Node's own request (`c.env.incoming`, untouched until read), which
 * core reads without building Web streams (1.3x faster there); everywhere else Hono's raw Web `Request`.
 */
function toHonoHandler(endpointFor: (env: unknown) => Endpoint): MailroomHandler {
  return async (c) => {
    const endpoint = endpointFor(c.env);
    const incoming = nodeRequestOf(c.env);
    if (incoming) return toWebResponse(await handleNodeRequest(endpoint, incoming, { url: c.req.url, context: c }));
    const raw = c.req.raw;
    if (!raw.bodyUsed) return endpoint.fetch(raw, c);
    // A middleware read the body through Hono, which keeps it: those bytes, checked by the signature
    // like any (a body Hono re-serialised no longer matches it, and is refused).
    return endpoint.fetch(new Request(raw.url, { method: raw.method, headers: raw.headers, body: await c.req.arrayBuffer() }), c);
  };
}

/** `@hono/node-server` puts Node's request in `env.incoming`; only an unread one is of use here. */
function nodeRequestOf(env: unknown): Parameters<typeof handleNodeRequest>[1] | undefined {
  const incoming = (env as { incoming?: { headers?: unknown; readableDidRead?: unknown; on?: unknown } } | undefined)?.incoming;
  if (!incoming || typeof incoming.on !== 'function' || typeof incoming.headers !== 'object' || incoming.readableDidRead !== false)
    return undefined;
  return incoming as Parameters<typeof handleNodeRequest>[1];
}

/**
 * Binds receiver settings once for every handler of an app. Settings not given fall back to their
 * `MAILROOM_*` variables: from a Worker's `env` bindings (read on the first request, since a Worker
 * has no `process.env`), else from `process.env` (Node, Bun, Deno with `--allow-env`).
 *
 * @example
 * import { Hono } from 'hono';
 * import { createMailroom } from '@mailroom/adapters/hono';
 *
 * const mailroom = createMailroom();
 * const app = new Hono();
 * app.post(orderPlaced.path, mailroom.destination(orderPlaced, (message, c) => save(message.body, c.env)));
 * app.post('/callbacks', mailroom.callback((message) => log(message.status), { source: orderPlaced }));
 * app.post('/failures', mailroom.failureCallback((message) => alert(message.dlqId)));
 */
export function createMailroom(options: ReceiverOptions = {}): HonoMailroom {
  return bindReceiverPerEnvironment<MailroomHandler, ReceiverOptions, Context>(options, toHonoHandler);
}
