// @mailroom/adapters/next/pages: Pages Router API routes over the core Node bridge. A separate entry so the
// App Router entry (`@mailroom/adapters/next`) never pulls Node stream code into edge bundles.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import { bindReceiver, serveNodeRequest, type AdapterHandlers, type Endpoint } from '@mailroom/core/adapter';

export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * A Pages Router API route handler, typed by Node's own request and response: `NextApiRequest` and
 * `NextApiResponse` extend them, so it is a valid `export default` without importing `next` types.
 */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** Ends the 500 that answers when Next.js parsed the body first, in the Pages Router's own words. */
const PAGES_CONSUMED_HINT =
  'Next.js parsed the request body before Mailroom could read its exact bytes. Turn the built-in parser ' +
  'off in this API route file: export const config = { api: { bodyParser: false } }; (it must be written ' +
  'in the route file itself: Next.js reads it statically, so a library cannot set it for you).';

/**
 * Moves one request between a Pages Router API route and a core endpoint; everything but the
 * Pages-specific hint is core's (`serveNodeRequest`).
 */
function serveEndpoint(endpoint: Endpoint): ApiHandler {
  return async (req, res) => {
    // An App Router route calls handlers with (request, context): say so instead of crashing on `res`.
    if (typeof (res as Partial<typeof res> | undefined)?.setHeader !== 'function') {
      throw new ValidationError(
        'res',
        'expected a Node ServerResponse, as Pages Router API routes get. In the App Router (app/**/route.ts) ' +
          'import the handler from @mailroom/adapters/next instead.',
      );
    }
    // A handler crash is already reported through `onError` and answered 500 so the service retries;
    // rethrowing would only make Next.js log it a second time.
    await serveNodeRequest(endpoint, req, res, { consumedHint: PAGES_CONSUMED_HINT });
  };
}

/** Pages Router API handlers sharing one set of receiver settings. */
export type PagesMailroom = AdapterHandlers<ApiHandler>;

/**
 * Binds receiver settings once for every API route of an app. Each route file must also turn Next's
 * body parser off, which a library cannot do for it.
 *
 * @example
 * // pages/api/orders.ts
 * export const config = { api: { bodyParser: false } };
 * export default mailroom.destination(orderPlaced, (message) => save(message.body));
 */
export function createMailroom(options: ReceiverOptions = {}): PagesMailroom {
  return bindReceiver(options, serveEndpoint);
}
