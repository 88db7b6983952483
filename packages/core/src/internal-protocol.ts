/**
 * `@mailroom/core/internal-protocol`: the service's wire as Mailroom's own packages share it. For the dev
 * server and the adapters, not for applications, and not covered by semver.
 */

// The header table and the resource-name rule.
export {
  attemptEnding,
  headerNames,
  QUERY_PARAMETERS,
  RESOURCE_NAME,
  RESOURCE_NAME_RULE,
  parseTraceParent,
  SIGNATURE_REFUSED_HEADER,
  TRACE_PARENT_HEADER,
  type CallbackHeaders,
  type DeliverySettingHeaders,
  type ProtocolHeaderNames,
} from './wire';

// Signing deliveries: the synchronous node:crypto signer (the dev server signs every delivery with
// it) and the jose one (edge runtimes, tests), byte-identical.
export { createTokenSigner, type TokenSigner, type TokenSignerOptions } from './signature/node';
export { DEFAULT_SIGNATURE_TTL_SECONDS, sign, type SignOptions } from './signature/sign';
export { MAX_ISSUER_LENGTH, MAX_SIGNED_URL_BYTES, MAX_TOKEN_LENGTH, unsignableUrl } from './signature/token';

// Reading the wire the way the service does, shared by the clients and the dev server.
export { ENV_VARIABLES, resolveHeaderPrefix } from './config';
export { parseDuration } from './enqueue-headers';
export { forwardedHeaders } from './receive/delivery-headers';
export { DEFAULT_BACKOFF_EXPRESSION, defaultBackoffMs, parseEnqueuedRetryDelay, parseRetryDelay } from './retry-delay';
export { parseRetryAfter } from './http/failures';
export { PLAN_LIMITS } from './plans';
export { destinationLabel } from './tracing/hooks';
export { dispatchOnce, type DispatchRequest, type DispatchResult } from './http/dispatch';
export { parseCron, type ParsedCron } from './messaging/cron';
export { formatServiceTimestamp, parseServiceTimestamp } from './service-timestamp';
export { preloadResponseSchemas } from './schemas/lazy';
export { checkSearchIndexInput, SEARCH_INDEX_UNLIMITED, STATS_PERIODS } from './management-vocabulary';

// The errors' base class, for the dev server's own errors: the root would load the client's schemas.
export { MailroomError } from './errors';

// Dev mode: the dev server's documented credentials, shared with it, and its start in this process.
export { closeStartedDevServers, DEV_CREDENTIALS, DEV_SERVER_URL, serviceToken } from './dev-mode';
