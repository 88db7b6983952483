// @mailroom/adapters/fastify: Fastify 5 route handlers over the core receiving pipeline. Fastify parses a body
// before any handler sees it; the plugin lets Mailroom's routes skip that, so core reads the exact
// bytes from the request stream (limits, signature, parsing and status codes are all core's) while
// every other route of the app keeps Fastify's parsed body.
import { RawBodyUnavailableError, type ReceiverOptions } from '@mailroom/core';
import { bindReceiver, handleNodeRequest, type AdapterHandlers, type Endpoint, type OutboundResponse } from '@mailroom/core/adapter';
import type { FastifyPluginCallback, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

// The schema option types live in core so every adapter names them alike.
export type { CallbackHandlerOptions, ResponseSchema, Schema, SourceSchema } from '@mailroom/core';

/** What a handler gets second: Fastify's request and reply of the delivery. */
export interface FastifyDelivery {
  request: FastifyRequest;
  reply: FastifyReply;
}

/** A Fastify route handler for `app.post(path, handler)` (or `app.all`, to let Mailroom answer a wrong method). */
export type MailroomRouteHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** `plugin`, and the `destination`, `callback` and `failureCallback` route handlers sharing one set of receiver settings. */
export interface FastifyMailroom extends AdapterHandlers<MailroomRouteHandler, FastifyDelivery> {
  /**
   * Register it before Mailroom's routes (`await app.register(mailroom.plugin)`): their bodies reach
   * Mailroom as sent, and no other route changes.
   */
  readonly plugin: FastifyPluginCallback;
}

// Marks Mailroom's handlers, so the plugin finds their routes; and the body headers it set aside.
const MAILROOM_ROUTE = Symbol.for('mailroom.fastify.route');
const SET_ASIDE = Symbol.for('mailroom.fastify.body-headers');
const BODY_HEADERS = ['content-type', 'content-length', 'transfer-encoding'] as const;

type MarkedRequest = FastifyRequest['raw'] & { [SET_ASIDE]?: Record<string, string | undefined> };

const FORGOT_PLUGIN =
  "Mailroom cannot read the raw request body: the route was registered without Mailroom's Fastify plugin, so " +
  'Fastify parses (or refuses) the body before Mailroom sees its bytes, which the signature covers. Fix: ' +
  'await app.register(mailroom.plugin) before registering the Mailroom routes.';

/**
 * Fastify skips body parsing for a request with no body headers, so on Mailroom's routes they are set
 * aside before parsing and put back for core, which then reads the untouched stream itself.
 */
function setBodyHeadersAside(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const raw = request.raw as MarkedRequest;
  const aside: Record<string, string | undefined> = {};
  for (const name of BODY_HEADERS) {
    const value = raw.headers[name];
    if (typeof value === 'string') aside[name] = value;
    // Set to undefined, not deleted: a deleted key would turn the headers object slow for every later read.
    raw.headers[name] = undefined;
  }
  raw[SET_ASIDE] = aside;
  done();
}

const plugin: FastifyPluginCallback = fastifyPlugin(
  (app, _options, done) => {
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!(route.handler as { [MAILROOM_ROUTE]?: true })[MAILROOM_ROUTE]) return;
      const own = route.onRequest;
      route.onRequest = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), setBodyHeadersAside] as RouteOptions['onRequest'];
    });
    done();
  },
  { name: '@mailroom/adapters/fastify', fastify: '>=4' },
);

/** Moves one request between Fastify and a core endpoint, and the answer back through Fastify's reply. */
function toRouteHandler(endpoint: Endpoint): MailroomRouteHandler {
  const handler: MailroomRouteHandler = async (request, reply) => {
    const raw = request.raw as MarkedRequest;
    const aside = raw[SET_ASIDE];
    let out: OutboundResponse;
    if (aside === undefined) {
      const input = { method: request.method, url: request.url, headers: raw.headers, rawBody: new Uint8Array(0) };
      out = endpoint.errorResponse(new RawBodyUnavailableError(FORGOT_PLUGIN), input);
    } else {
      // The body headers back, for core to read the untouched stream by them.
      Object.assign(raw.headers, aside);
      out = await handleNodeRequest(endpoint, raw, { url: request.url, context: { request, reply } satisfies FastifyDelivery });
    }
    return reply.code(out.status).headers(out.headers).send(out.body);
  };
  return Object.assign(handler, { [MAILROOM_ROUTE]: true as const });
}

/**
 * Binds receiver settings (signing keys, header prefix, `publicUrl`, body limit) once for every
 * handler of an app. Settings not given fall back to their `MAILROOM_*` variables.
 *
 * @example
 * import Fastify from 'fastify';
 * import { createMailroom } from '@mailroom/adapters/fastify';
 *
 * const mailroom = createMailroom();
 * const app = Fastify();
 * await app.register(mailroom.plugin);
 * app.post(orderPlaced.path, mailroom.destination(orderPlaced, (message, { request }) => save(message.body, request.log)));
 * app.post('/callbacks', mailroom.callback((message) => log(message.status), { source: orderPlaced }));
 * app.post('/failures', mailroom.failureCallback((message) => alert(message.dlqId)));
 */
export function createMailroom(options: ReceiverOptions = {}): FastifyMailroom {
  return { ...bindReceiver<MailroomRouteHandler, ReceiverOptions, FastifyDelivery>(options, toRouteHandler), plugin };
}
