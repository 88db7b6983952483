// @mailroom/adapters/h3: h3 event handlers, for Nitro and Nuxt server routes
// (`export default defineEventHandler(mailroom.destination(...))`), h3 1 and 2 alike. h3 2 hands a
// handler a Web `Request` (`event.req`): core's Web path. h3 1 hands Node's request
// (`event.node.req`): core's Node path, or the bytes h3 kept when a handler before this one read the
// body (`readBody`, `readRawBody`).
import type { IncomingMessage } from 'node:http';
import { ValidationError, type ReceiverOptions } from '@mailroom/core';
import {
  bindReceiverPerEnvironment,
  handleNodeRequest,
  toWebResponse,
  type Endpoint,
  type EndpointFactories,
} from '@mailroom/core/adapter';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/**
 * The part of an h3 event Mailroom reads, typed by its shape so one handler fits h3 1 (Nuxt 3,
 * Nitro 2: `event.node.req`) and h3 2 (`event.req`, a Web Request) without importing either.
 */
export interface H3EventLike {
  req?: unknown;
  /** Node's request under h3 1 (h3 2 types it as its own Node request shape, hence `unknown`). */
  node?: { req?: unknown };
  /** Nitro on Cloudflare puts the Worker's bindings here. */
  context?: { cloudflare?: { env?: unknown } } & Record<string, unknown>;
}

/** An h3 event handler: wrap it in `defineEventHandler`, or hand it to `app.use` / a router as it is. */
export type MailroomEventHandler = (event: H3EventLike) => Promise<Response>;

/** Where h3 1 keeps the body when `readBody` or `readRawBody` read it first. */
const H3_RAW_BODY = Symbol.for('h3RawBody');

function toEventHandler(endpointFor: (env: unknown) => Endpoint): MailroomEventHandler {
  return async (event) => {
    const endpoint = endpointFor(event.context?.cloudflare?.env);
    if (isWebRequest(event.req)) return endpoint.fetch(event.req, event);
    const req = event.node?.req as IncomingMessage | undefined;
    if (!req)
      throw new ValidationError('event', 'expected an h3 event (event.req or event.node.req): use the handler as an h3 event handler');
    const url = (req as { originalUrl?: string }).originalUrl ?? req.url;
    const kept = (req as unknown as Record<symbol, unknown>)[H3_RAW_BODY];
    if (kept !== undefined) {
      // Read before this handler: h3 kept the bytes it read (a promise of a Buffer).
      const rawBody = (await kept) as Uint8Array | undefined;
      const inbound = { method: req.method ?? 'GET', url, headers: req.headers, rawBody: rawBody ?? new Uint8Array(0), context: event };
      return toWebResponse(await endpoint.handle(inbound));
    }
    return toWebResponse(await handleNodeRequest(endpoint, req, { url, context: event }));
  };
}

function isWebRequest(value: unknown): value is Request {
  return typeof value === 'object' && value !== null && typeof (value as Request).arrayBuffer === 'function' && 'headers' in value;
}

/**
 * `destination`, `callback` and `failureCallback` h3 handlers; handlers get the message and the h3
 * event, typed as `Event` (`createMailroom<H3Event>()` gives them h3's own event type).
 */
export type H3Mailroom<Event extends H3EventLike = H3EventLike> = EndpointFactories<MailroomEventHandler, Event>;

/**
 * Binds receiver settings once for every route of an app (make it in `server/utils/mailroom.ts`).
 * Settings not given fall back to their `MAILROOM_*` variables: from the Worker's bindings under
 * Nitro's Cloudflare presets, else from `process.env`.
 *
 * @example
 * // server/api/orders.post.ts (Nuxt or Nitro)
 * import { createMailroom } from '@mailroom/adapters/h3';
 *
 * export default defineEventHandler(createMailroom().destination(orderPlaced, (message, event) => save(message.body)));
 *
 * @example
 * // The handlers' event as h3 types it (this package imports neither h3 1 nor h3 2):
 * import type { H3Event } from 'h3';
 * const mailroom = createMailroom<H3Event>();
 */
export function createMailroom<Event extends H3EventLike = H3EventLike>(options: ReceiverOptions = {}): H3Mailroom<Event> {
  return bindReceiverPerEnvironment<MailroomEventHandler, ReceiverOptions, Event>(options, toEventHandler);
}
