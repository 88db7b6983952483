// @mailroom/express: Express 4 and 5 route handlers over the core receiving pipeline. Everything but
// moving bytes (reading, limits, signature, parsing, status codes) is core's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import {
  bindReceiver,
  defaultOnError,
  exceptDeliveries as skipDeliveries,
  serveNodeRequest,
  standaloneHandlers,
  type AdapterHandlers,
  type Endpoint,
} from '@mailroom/core/adapter';

// Re-exported so an app with a global `express.json()` needs only this package to keep the raw bytes.
export { captureRawBody } from '@mailroom/core';
// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * An Express route handler, typed by its shape instead of by `express`'s own types.
 *
 * Why: the `@types/express` majors are mutually incompatible (a v5 `RequestHandler` is not assignable
 * to a v4 app's `post`, their `app.get` overloads differ), so a type imported from `express` only
 * fits the one copy it resolves to. In a monorepo with Express 4 and 5 side by side, or when this
 * package's `express` resolves elsewhere than the app's, that breaks the user's build. This shape is
 * what both majors pass a handler (their `Request` extends `IncomingMessage`, `Response` extends
 * `ServerResponse`), so it is assignable to `RequestHandler` of either and needs no `@types/express`.
 */
export type MailroomRequestHandler = (
  req: IncomingMessage & { originalUrl?: string },
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/** Ends the 500 that answers when a global parser ate the body, in Express's own words. */
const EXPRESS_CONSUMED_HINT =
  'a global body parser (such as app.use(express.json())) ran before this route. Let it skip the ' +
  "service's deliveries with app.use(mailroom.exceptDeliveries(express.json())) (createMailroom from " +
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
 * status codes are all core's (`serveNodeRequest`); this only chooses Express's URL and error path.
 */
function serveEndpoint(endpoint: Endpoint, options: ExpressOptions = {}): MailroomRequestHandler {
  if (options.forwardErrors !== undefined && typeof options.forwardErrors !== 'boolean') {
    throw new ValidationError('forwardErrors', `expected true or false, got ${JSON.stringify(options.forwardErrors)}`);
  }
  const forwardErrors = options.forwardErrors === true;
  return (req, res, next) => {
    // `originalUrl` keeps the router's mount path, which the `publicUrl` check needs. Express 4 does
    // not catch rejected promises or throws, so a failure to write the answer goes to `next` explicitly.
    try {
      serveNodeRequest(endpoint, req, res, {
        url: req.originalUrl ?? req.url,
        consumedHint: EXPRESS_CONSUMED_HINT,
        forwardError: forwardErrors ? next : undefined,
      })?.catch(next);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * With `forwardErrors`, a crashed handler's error goes to the app's error middleware *instead of*
 * `onError`: reporting it here too would log it twice. Refusals are still reported.
 */
function receiverOptions<O extends ExpressOptions>(options: O | undefined): O | undefined {
  if (options?.forwardErrors !== true) return options;
  const onError = options.onError ?? defaultOnError;
  return { ...options, onError: (error, where) => (where.stage === 'handler' ? undefined : onError(error, where)) };
}

/** `destination`, `callback` and `failureCallback` route handlers sharing one set of receiver settings. */
export interface ExpressMailroom extends AdapterHandlers<MailroomRequestHandler> {
  /**
   * Your global body parser, run for every request except the service's signed deliveries, which
   * Mailroom's routes read as they arrived: `app.use(mailroom.exceptDeliveries(express.json()))`.
   */
  exceptDeliveries<P extends MailroomRequestHandler>(parser: P): P;
}

/**
 * Wraps a global body parser so it skips the service's signed deliveries (requests carrying
 * `<Prefix>-Signature`): nothing unsigned is parsed, decompressed or refused by it before the
 * signature is checked over the bytes on the wire, and Mailroom's routes answer their own refusals
 * (401, 413, 489 as small JSON). Every other route still gets `req.body` from your parser.
 *
 * @example
 * app.use(exceptDeliveries(express.json()));
 */
export function exceptDeliveries<P extends MailroomRequestHandler>(parser: P, options: { headerPrefix?: string } = {}): P {
  return skipDeliveries(parser, options) as P;
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit, `forwardErrors`) once for every
 * handler of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * import express from 'express';
 * import { createMailroom } from '@mailroom/express';
 *
 * const mailroom = createMailroom({ publicUrl: 'https://app.example.com' });
 * const app = express();
 * app.use(mailroom.exceptDeliveries(express.json())); // your routes get req.body, deliveries stay raw
 * app.post(orderPlaced.path, mailroom.destination(orderPlaced, (message) => save(message.body)));
 * app.post('/callbacks', mailroom.callback((message) => log(message.status), { source: orderPlaced }));
 * app.post('/failures', mailroom.failureCallback((message) => alert(message.dlqId)));
 */
export function createMailroom(options: ExpressOptions = {}): ExpressMailroom {
  return { ...bindReceiver(receiverOptions(options), serveEndpoint), exceptDeliveries: (parser) => exceptDeliveries(parser, options) };
}

const standalone = standaloneHandlers<MailroomRequestHandler, ExpressOptions>(serveEndpoint);
const handlers: typeof standalone = {
  destination: (definition, handler, options) => standalone.destination(definition, handler, receiverOptions(options)),
  callback: (handler, options) => standalone.callback(handler, receiverOptions(options)),
  failureCallback: (handler, options) => standalone.failureCallback(handler, receiverOptions(options)),
};

/**
 * A route handler for one typed destination: verifies the signature over the exact bytes, validates
 * the body with the definition's schema and calls `handler` with the typed message. Keys come from
 * the options or `MAILROOM_CURRENT_SIGNING_KEY` / `MAILROOM_NEXT_SIGNING_KEY`.
 *
 * @example
 * app.post(orderPlaced.path, destination(orderPlaced, async (message) => orders.save(message.body)));
 */
export const destination = handlers.destination;

/**
 * A route handler for callbacks, called after every delivery attempt; `body` and `sourceBody` arrive
 * decoded (bytes, text and schema-checked data).
 *
 * @example
 * app.post('/callbacks', callback((m) => m.isFinalAttempt && metrics.count('final', m.status), { source: orderPlaced }));
 */
export const callback = handlers.callback;

/**
 * A route handler for failure callbacks, called once a message failed for good, with its DLQ id.
 *
 * @example
 * app.post('/failures', failureCallback((m) => alerts.send(`${m.sourceBody.data.orderId} -> DLQ ${m.dlqId}`), { source: orderPlaced }));
 */
export const failureCallback = handlers.failureCallback;
