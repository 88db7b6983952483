// @mailroom/adapters/koa: Koa 2 and 3 middleware over the core pipeline's Node path. Koa hands its
// middleware Node's own request, so core reads the exact bytes from it; what is Koa's here is the
// answer (through `ctx`, so Koa's own response handling and other middleware see it) and its body
// parsers, which read the stream before a route does.
import type { IncomingMessage } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import { headerNames } from '@mailroom/core/internal-protocol';
import { bindReceiver, handleNodeRequest, pipelineOf, type AdapterHandlers, type Endpoint } from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * The part of Koa's context Mailroom uses, typed by its shape (as the Express entry is): it fits
 * Koa 2 and 3 and `@koa/router` without `@types/koa`, whatever copy of them the app resolves.
 */
export interface KoaContext {
  req: IncomingMessage;
  originalUrl: string;
  /** `@koa/bodyparser` and `koa-body` keep the text they parsed here (`rawBody`). */
  request: { rawBody?: unknown };
  status: number;
  body: unknown;
  set(field: string, value: string): void;
  get(field: string): string;
}

/** Koa middleware: `router.post(path, handler)` (or `router.all`, to let Mailroom answer a wrong method). */
export type MailroomMiddleware = (ctx: KoaContext, next?: () => Promise<unknown>) => Promise<void>;

/** Ends the 500 that answers when a body parser ate the body without keeping it. */
const KOA_CONSUMED_HINT =
  "a body parser ran before this route and kept no raw body. Let it skip the service's deliveries with " +
  'app.use(mailroom.exceptDeliveries(bodyParser())) (createMailroom from @mailroom/adapters/koa), or mount the Mailroom routes before it.';

/**
 * Moves one request between Koa and a core endpoint. A parser that ran first left the stream read;
 * the text it kept (`ctx.request.rawBody`) is used then, checked against Content-Length by core and
 * by the signature like any body (a re-encoded body no longer matches it, and is refused).
 */
function toKoaMiddleware(endpoint: Endpoint): MailroomMiddleware {
  return async (ctx) => {
    const kept = ctx.request.rawBody;
    const req = ctx.req as { rawBody?: unknown };
    if (req.rawBody === undefined && (typeof kept === 'string' || kept instanceof Uint8Array)) req.rawBody = kept;
    const answer = await handleNodeRequest(endpoint, ctx.req, { url: ctx.originalUrl, context: ctx, consumedHint: KOA_CONSUMED_HINT });
    ctx.status = answer.status;
    for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value);
    ctx.body = answer.body;
  };
}

/** Koa middleware for `destination`, `callback` and `failureCallback`, sharing one receiver; handlers get the message and Koa's `ctx`. */
export interface KoaMailroom extends AdapterHandlers<MailroomMiddleware, KoaContext> {
  /**
   * Wraps a body parser so it skips the service's deliveries (requests carrying the signature
   * header): `app.use(mailroom.exceptDeliveries(bodyParser()))`. Every other route still gets
   * `ctx.request.body`.
   */
  exceptDeliveries<C extends { get(field: string): string }, N>(parser: (ctx: C, next: N) => unknown): (ctx: C, next: N) => unknown;
}

/**
 * Binds receiver settings once for every route of an app. Settings not given fall back to their
 * `MAILROOM_*` variables.
 *
 * @example
 * import Koa from 'koa';
 * import Router from '@koa/router';
 * import { bodyParser } from '@koa/bodyparser';
 * import { createMailroom } from '@mailroom/adapters/koa';
 *
 * const mailroom = createMailroom();
 * const app = new Koa();
 * app.use(mailroom.exceptDeliveries(bodyParser()));
 * const router = new Router();
 * router.post(orderPlaced.path, mailroom.destination(orderPlaced, (message, ctx) => save(message.body)));
 * app.use(router.routes());
 */
export function createMailroom(options: ReceiverOptions = {}): KoaMailroom {
  const handlers = bindReceiver<MailroomMiddleware, ReceiverOptions, KoaContext>(options, toKoaMiddleware);
  const pipeline = pipelineOf(handlers.receiver);
  return {
    ...handlers,
    exceptDeliveries(parser) {
      if (typeof parser !== 'function') throw new ValidationError('parser', 'expected a body-parser middleware such as bodyParser()');
      // The prefix is read at the first request, as the receiver reads its own.
      let signature: string | undefined;
      return (ctx, next) => {
        signature ??= headerNames(pipeline.headerPrefix).signature;
        return ctx.get(signature) === '' ? parser(ctx, next) : (next as () => unknown)();
      };
    },
  };
}
