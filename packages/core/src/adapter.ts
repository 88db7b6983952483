/**
 * `@mailroom/core/adapter`: what a framework adapter needs, and nothing an application does. An
 * adapter moves bytes: it gets `{ method, url, headers, rawBody }` out of its framework, hands them
 * to an endpoint, and writes `{ status, headers, body }` back. Every adapter of ours is built on
 * exactly this; docs/adapters.md shows how to write another.
 */

// One receiver, every endpoint through the adapter's own wrapper.
export {
  bindReceiver,
  bindReceiverPerEnvironment,
  type AdapterHandlers,
  type EndpointFactories,
} from './receive/adapter-handlers';
export { pipelineOf, type Endpoint, type MessageHandler, type Receiver, type ReceiverPipeline } from './receive/create-receiver';
export { defaultOnError } from './receive/answers';
export type { InboundRequest, OutboundResponse } from './receive/receiver-options';
export { DEFAULT_MAX_BODY_BYTES } from './receive/receiver-options';

// Node's http objects (Express, Fastify, Nest, the Pages Router, plain node:http).
export { handleNodeRequest, serveNodeRequest, type HandleNodeRequestOptions, type ServeNodeRequestOptions } from './node/handle';
export { readInbound, type ReadInboundOptions } from './node/read';
export { writeOutbound } from './node/handle';
export { captureRawBody, exceptDeliveries } from './node/read';
export { DEFAULT_CONSUMED_HINT } from './node/read';

// Web Request/Response (the App Router, edge runtimes, Hono, Bun): `endpoint.fetch` does it all;
// these are its two halves for frameworks that need them apart.
export { readWebRequest, toWebResponse } from './receive/answers';

// For frameworks whose handlers run outside an endpoint (Nest's controller methods): the idempotency
// guard around a handler, what it answers for a message already handled, and the handler's span.
export { ALREADY_HANDLED, guardedDelivery, idempotencyGuard, type IdempotencyGuard } from './idempotency/guard';
export { checkTracing } from './tracing/hooks';
export { tracedDelivery } from './receive/received-messages';
export { ALREADY_HANDLED_HEADER } from './wire';

// For frameworks that read definitions and schemas from decorator metadata.
export { isDestinationDefinition, isStandardSchema } from './contract';

// Clients that read their settings at once, for frameworks that check their wiring at start-up.
export { createMessagingClientNow } from './messaging/client';
export { createManagementClientNow } from './management';
