// @mailroom/adapters/express: Express 4 and 5 route handlers over the core receiving pipeline. Everything but
// moving bytes (reading, limits, signature, parsing, status codes) is core's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import {
  bindReceiver,
  defaultOnError,
  exceptDeliveries as skipDeliveries,
  serveNodeRequest,
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
  '@mailroom/adapters/express), or register the Mailroom routes before app.use(express.json()).';

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
  return markMailroomRoute((req, res, next) => {
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
  });
}

// Marks the route handlers made here, so `exceptDeliveries` can tell that a request is routed to one.
const MAILROOM_ROUTE = Symbol.for('mailroom.express.route');

function markMailroomRoute(handler: MailroomRequestHandler): MailroomRequestHandler {
  (handler as MailroomRequestHandler & { [MAILROOM_ROUTE]?: true })[MAILROOM_ROUTE] = true;
  return handler;
}

/** The parts of Express's router (4: `app._router`, 5: the `router` package) this reads to find a request's route. */
interface RouterLayer {
  match(path: string): unknown;
  /** Express 4's `match` returns `true` and stores the matched part here. */
  path?: string;
  route?: { stack: Array<{ handle: unknown }>; _handlesMethod?(method: string): boolean; _handles_method?(method: string): boolean };
  handle?: { stack?: RouterLayer[]; router?: { stack?: RouterLayer[] }; _router?: { stack?: RouterLayer[] } };
}

/** The app's router layers: Express 4 keeps them in `app._router` (its `app.router` getter throws), Express 5 in `app.router`. */
function appRouterStack(req: IncomingMessage): readonly RouterLayer[] | undefined {
  const app = (req as { app?: { router?: { stack?: RouterLayer[] }; _router?: { stack?: RouterLayer[] } } }).app;
  if (!app) return undefined;
  if (app._router) return app._router.stack;
  try {
    return app.router?.stack;
  } catch {
    return undefined;
  }
}

/**
 * Whether Express will route this request to one of Mailroom's handlers: its router's layers in
 * order, into mounted routers and sub-apps. Read, never changed; anything unexpected reads as "no".
 */
function routedToMailroom(stack: readonly RouterLayer[] | undefined, method: string, path: string, depth = 0): boolean {
  if (!stack || depth > 8) return false;
  for (const layer of stack) {
    let matched: unknown;
    try {
      matched = layer.match(path);
    } catch {
      continue;
    }
    if (!matched) continue;
    const route = layer.route;
    if (route) {
      const handles = route._handlesMethod?.(method) ?? route._handles_method?.(method) ?? false;
      if (handles && route.stack.some((entry) => (entry.handle as { [MAILROOM_ROUTE]?: true } | undefined)?.[MAILROOM_ROUTE])) return true;
      continue;
    }
    const inner = layer.handle?.stack ?? layer.handle?.router?.stack ?? layer.handle?._router?.stack;
    if (!inner) continue;
    const prefix = typeof matched === 'object' ? String((matched as { path?: unknown }).path ?? '') : (layer.path ?? '');
    if (routedToMailroom(inner, method, path.slice(prefix.length) || '/', depth + 1)) return true;
  }
  return false;
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
 * Wraps a global body parser so it skips the service's deliveries: requests carrying
 * `<Prefix>-Signature`, and any request Express routes to one of Mailroom's handlers, signed or not.
 * Nothing is parsed, decompressed or refused by your parser before the signature is checked over the
 * bytes on the wire, so Mailroom's routes answer every refusal themselves (401, 413, 489 as small
 * text, never Express's HTML error page). Every other route still gets `req.body` from your parser.
 */
function exceptDeliveries<P extends MailroomRequestHandler>(parser: P, options: { headerPrefix?: string } = {}): P {
  const signed = skipDeliveries(parser, options) as MailroomRequestHandler;
  return ((req, res, next) => {
    const path = (req.originalUrl ?? req.url ?? '/').split('?')[0] ?? '/';
    if (routedToMailroom(appRouterStack(req), req.method ?? 'GET', path)) next();
    else signed(req, res, next);
  }) as P;
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit, `forwardErrors`) once for every
 * handler of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * import express from 'express';
 * import { createMailroom } from '@mailroom/adapters/express';
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
