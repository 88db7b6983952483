// @mailroom/hono: Hono handlers over the core pipeline's Web Request path. Nothing here imports a
// Node built-in, so the same handlers run on Node (@hono/node-server), Bun, Deno and Cloudflare
// Workers (Web Crypto there). Reading, limits, signature, parsing and status codes are core's.
import type { ReceiverOptions } from '@mailroom/core';
import { bindReceiverPerEnvironment, type Endpoint, type EndpointFactories } from '@mailroom/core/adapter';
import type { Context } from 'hono';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/** A Hono handler for `app.post(path, handler)` (or `app.all`, to let Mailroom answer a wrong method). */
export type MailroomHandler = (c: Context) => Promise<Response>;

/** `destination`, `callback` and `failureCallback` Hono handlers sharing one set of receiver settings; handlers get the message and Hono's `Context`. */
export type HonoMailroom = EndpointFactories<MailroomHandler, Context>;

/** Hands Hono's raw Web `Request` to the endpoint for the request's environment, with the `Context` for the handler. */
function toHonoHandler(endpointFor: (env: unknown) => Endpoint): MailroomHandler {
  return (c) => endpointFor(c.env).fetch(c.req.raw, c);
}

/**
 * Binds receiver settings once for every handler of an app. Settings not given fall back to their
 * `MAILROOM_*` variables: from a Worker's `env` bindings (read on the first request, since a Worker
 * has no `process.env`), else from `process.env` (Node, Bun, Deno with `--allow-env`).
 *
 * @example
 * import { Hono } from 'hono';
 * import { createMailroom } from '@mailroom/hono';
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
