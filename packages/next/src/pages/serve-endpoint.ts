import { ValidationError } from '@mailroom/core';
import { handleNodeRequest, writeOutbound, type Endpoint } from '@mailroom/core/adapter';
import type { ApiHandler } from './api-handler';

/** Ends the 500 that answers when Next.js parsed the body first, in the Pages Router's own words. */
export const PAGES_CONSUMED_HINT =
  'Next.js parsed the request body before Mailroom could read its exact bytes. Turn the built-in parser ' +
  'off in this API route file: export const config = { api: { bodyParser: false } }; (it must be written ' +
  'in the route file itself: Next.js reads it statically, so a library cannot set it for you).';

/**
 * Moves one request between a Pages Router API route and a core endpoint; everything but the
 * Pages-specific hint is core's (`handleNodeRequest`).
 */
export function serveEndpoint(endpoint: Endpoint): ApiHandler {
  return async (req, res) => {
    // An App Router route calls handlers with (request, context): say so instead of crashing on `res`.
    if (typeof (res as Partial<typeof res> | undefined)?.setHeader !== 'function') {
      throw new ValidationError(
        'res',
        'expected a Node ServerResponse, as Pages Router API routes get. In the App Router (app/**/route.ts) ' +
          'import the handler from @mailroom/next instead.',
      );
    }
    // A handler crash is already reported through `onError` and answered 500 so the service retries;
    // rethrowing would only make Next.js log it a second time.
    const { error: _reported, ...out } = await handleNodeRequest(endpoint, req, { consumedHint: PAGES_CONSUMED_HINT });
    writeOutbound(res, out);
  };
}
