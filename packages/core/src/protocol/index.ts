/**
 * `@mailroom/core/protocol`: the service's wire as Mailroom's own packages share it (header names,
 * the synchronous token signer, token limits). For the dev server and the adapters; not part of the
 * public API an application should use, and not covered by semver.
 */
export { headerNames, type CallbackHeaders, type DeliverySettingHeaders, type ProtocolHeaderNames } from './header-names';
export { createTokenSigner, type TokenSigner, type TokenSignerOptions } from '../signature/sign-node';
export { DEFAULT_SIGNATURE_TTL_SECONDS } from '../signature/sign';
export { MAX_TOKEN_LENGTH } from '../signature/parse-token';
export { sign, type SignOptions } from '../signature/sign';

// What the dev server reads off the wire the way the service does.
export { resolveHeaderPrefix } from '../config/header-prefix';
export { ENV_VARIABLES } from '../config/env-variables';
export { forwardedHeaders } from '../headers/forwarded-headers';
export { parseDuration } from '../headers/duration';
export { parseRetryDelay, defaultBackoffMs } from '../retry-delay';
export { parseRetryAfter } from '../http/retry-after';
export { formatServiceTimestamp, parseServiceTimestamp } from '../schemas/parse-service-timestamp';
export { STATS_PERIODS, SEARCH_INDEX_UNLIMITED, createSearchIndexInputSchema } from '../schemas';
