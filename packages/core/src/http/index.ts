export { createTransport } from './create-transport';
export { createFetchTransport } from './fetch-transport';
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from './http-transport';
export type {
  HttpMethod,
  ParseResponse,
  QueryValue,
  RequestSpec,
  RetryOptions,
  Transport,
  TransportAuth,
  TransportOptions,
  TransportResponse,
} from './transport-types';
export { joinUrl, encodePath } from './join-url';
export { buildQueryString } from './query-string';
export { authorizationHeader, base64Utf8 } from './auth-header';
export { mapErrorResponse, errorMessageFromBody, type ErrorResponse } from './map-error-response';
export { parseRateLimit, parseResetTime, type RateLimitInfo } from './rate-limit';
export { parseRetryAfter, retryAfterMs } from './retry-after';
export { backoffDelay, type RetryPolicy } from './backoff';
export { isRetryableError } from './retry-decision';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT } from './resolve-transport-options';
