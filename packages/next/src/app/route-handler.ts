import { ValidationError } from '@mailroom/core';
import type { Endpoint } from '@mailroom/core/adapter';

/**
 * An App Router route handler. Typed over the Web `Request`, never `NextRequest`: two copies of
 * `next` in one workspace give two incompatible `NextRequest` types, and the user's build would
 * break. The context is `unknown` (and optional) so it fits `{ params: Promise<...> }` of every route.
 */
export type RouteHandler = (request: Request, context?: unknown) => Promise<Response>;

/** Hands the Web `Request` to the core endpoint as it is: core reads it once and answers. */
export function toRouteHandler(endpoint: Endpoint): RouteHandler {
  return async (request) => {
    // A Pages Router route calls handlers with (req, res) and would otherwise hang on a TypeError.
    if (typeof (request as Partial<Request> | null)?.arrayBuffer !== 'function') {
      throw new ValidationError(
        'request',
        'expected a Web Request, as App Router route handlers get. In the Pages Router (pages/api) import ' +
          'the handler from @mailroom/next/pages instead.',
      );
    }
    return endpoint.fetch(request);
  };
}
