import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import { handleNodeRequest, writeOutbound, type Endpoint, type HandledResponse } from '@mailroom/core/adapter';
import type { MailroomRequestHandler } from './request-handler';

/** Ends the 500 that answers when a global parser ate the body, in Express's own words. */
export const EXPRESS_CONSUMED_HINT =
  'a global body parser (such as app.use(express.json())) ran before this route. Either keep the exact ' +
  'bytes for Mailroom with app.use(express.json({ verify: captureRawBody })) (captureRawBody from ' +
  '@mailroom/express), or register the Mailroom routes before app.use(express.json()).';

/** Receiver settings plus what only Express has: its error middleware. */
export interface ExpressOptions extends ReceiverOptions {
  /**
   * `true` hands a crashed handler's error to `next(err)`, i.e. to the app's error middleware, which
   * then writes the answer. Default: answer a plain JSON 500 (no stack, no HTML: the service stores the
   * answer in the DLQ) after reporting the error once through `onError`.
   */
  forwardErrors?: boolean;
}

/**
 * Moves one request between Express and a core endpoint. Reading, limits, signature, parsing and
 * status codes are all core's (`handleNodeRequest`); this only chooses Express's URL and error path.
 */
export function serveEndpoint(endpoint: Endpoint, options: ExpressOptions = {}): MailroomRequestHandler {
  if (options.forwardErrors !== undefined && typeof options.forwardErrors !== 'boolean') {
    throw new ValidationError('forwardErrors', `expected true or false, got ${JSON.stringify(options.forwardErrors)}`);
  }
  const forwardErrors = options.forwardErrors === true;
  return (req, res, next) => {
    const answer = (out: HandledResponse): void => {
      try {
        if (forwardErrors && out.error) next(out.error);
        else writeOutbound(res, out);
      } catch (error) {
        next(error);
      }
    };
    // `originalUrl` keeps the router's mount path, which the `publicUrl` check needs. Express 4 does
    // not catch rejected promises, so anything unexpected goes to `next` explicitly (as the second
    // argument of `then`, not a `.catch`: one promise less per request).
    handleNodeRequest(endpoint, req, { url: req.originalUrl ?? req.url, consumedHint: EXPRESS_CONSUMED_HINT }).then(answer, next);
  };
}
