export { buildQueryString, createRequester, createRequesterWhenConfigured, encodePath, joinUrl } from './requester';
export type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from './transport';
export type { QueryValue, RequestSpec, RetryOptions, Requester, RequesterAuth, RequesterOptions } from './requester-options';
export { authorizationHeader, base64Utf8 } from './requester-options';
export { backoffDelay, errorMessageFromBody, isRetryableError, parseRateLimit, parseResetTime, retryAfterMs } from './failures';
