// @mailroom/adapters/next: App Router route handlers over the core pipeline's Web Request path. Nothing here
// imports `next` or Node built-ins, so it also runs on the edge runtime; the Pages Router helpers
// live in `@mailroom/adapters/next/pages` to keep Node's stream code out of these bundles.
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import { bindReceiver, type AdapterHandlers, type Endpoint } from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * An App Router route handler. Typed over the Web `Request`, never `NextRequest`: two copies of
 * `next` in one workspace give two incompatible `NextRequest` types, and the user's build would
 * break. The context is `unknown` (and optional) so it fits `{ params: Promise<...> }` of every route.
 */
export type RouteHandler = (request: Request, context?: unknown) => Promise<Response>;

/** Hands the Web `Request` to the core endpoint as it is: core reads it once and answers. */
function toRouteHandler(endpoint: Endpoint): RouteHandler {
  return async (request) => {
    // A Pages Router route calls handlers with (req, res) and would otherwise hang on a TypeError.
    if (typeof (request as Partial<Request> | null)?.arrayBuffer !== 'function') {
      throw new ValidationError(
        'request',
        'expected a Web Request, as App Router route handlers get. In the Pages Router (pages/api) import ' +
          'the handler from @mailroom/adapters/next/pages instead.',
      );
    }
    return endpoint.fetch(request);
  };
}

/** App Router route handlers sharing one set of receiver settings. */
export type NextMailroom = AdapterHandlers<RouteHandler>;

/**
 * Binds receiver settings once for every route of an app. Settings not given fall back to their
 * `MAILROOM_*` variables.
 *
 * @example
 * // lib/mailroom.ts
 * export const mailroom = createMailroom();
 * // app/api/orders/route.ts
 * export const POST = mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): NextMailroom {
  return bindReceiver(options, toRouteHandler);
}
