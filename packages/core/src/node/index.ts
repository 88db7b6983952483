/**
 * `@mailroom/core/node`: the one bridge between Node's `http` objects and the receiving pipeline.
 * Express, Next.js Pages and NestJS adapters all read bodies and write answers through it.
 */
export { readInbound, type ReadInboundOptions } from './read-inbound';
export { writeOutbound } from './write-outbound';
export { captureRawBody } from './capture-raw-body';
export { DEFAULT_MAX_BODY_BYTES } from './body-limit';
export { DEFAULT_CONSUMED_HINT } from './consumed-body';
export type { InboundRequest, OutboundResponse } from '../receive/inbound-request';
export { handleNodeRequest, type HandleNodeRequestOptions } from './handle-node-request';
