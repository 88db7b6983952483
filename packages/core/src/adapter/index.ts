/**
 * `@mailroom/core/adapter`: what a framework adapter needs, and nothing an application does. An
 * adapter moves bytes: it gets `{ method, url, headers, rawBody }` out of its framework, hands them
 * to an endpoint, and writes `{ status, headers, body }` back. Express, Next.js and NestJS are built
 * on exactly this; see docs/adapters.md for writing another (Fastify, Hono, ...).
 */

// One receiver, every endpoint through the adapter's own wrapper.
export { bindReceiver, standaloneHandlers, type AdapterHandlers, type StandaloneHandlers } from '../receive/adapter-handlers';
export type { Endpoint, HandledResponse, MessageHandler, Receiver } from '../receive/create-receiver';
export type { InboundRequest, OutboundResponse } from '../receive/inbound-request';
export { DEFAULT_MAX_BODY_BYTES } from '../receive/receiver-options';

// Node's http objects (Express, Fastify, Nest, the Pages Router, plain node:http).
export { handleNodeRequest, type HandleNodeRequestOptions } from '../node/handle-node-request';
export { readInbound, type ReadInboundOptions } from '../node/read-inbound';
export { writeOutbound } from '../node/write-outbound';
export { captureRawBody } from '../node/capture-raw-body';
export { DEFAULT_CONSUMED_HINT } from '../node/consumed-body';

// Web Request/Response (the App Router, edge runtimes, Hono, Bun): `endpoint.fetch` does it all;
// these are its two halves for frameworks that need them apart.
export { readWebRequest, toWebResponse } from '../receive/read-web-request';

// For frameworks that read definitions and schemas from decorator metadata.
export { isDestinationDefinition } from '../contract/define-destination';
export { isStandardSchema } from '../contract/validate-with-schema';
