export { createRequester, createRequesterWhenConfigured } from './requester';
export { createFetchTransport } from './transport';
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from './transport';
export type {
  HttpMethod,
  ParseResponse,
  QueryValue,
  RequestSpec,
  RetryOptions,
  Requester,
  RequesterAuth,
  RequesterOptions,
  RequesterResponse,
} from './options';
export { joinUrl, encodePath } from './requester';
export { buildQueryString } from './requester';
export { authorizationHeader, base64Utf8 } from './options';
export { mapErrorResponse, errorMessageFromBody, type ErrorResponse } from './failures';
export { parseRateLimit, parseResetTime, type RateLimitInfo } from './failures';
export { parseRetryAfter, retryAfterMs } from './failures';
export { backoffDelay, type RetryPolicy } from './failures';
export { isRetryableError } from './failures';
export { DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT } from './options';
