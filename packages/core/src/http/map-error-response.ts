import { ApiError, AuthError, NotFoundError, PlanLimitError, RateLimitError } from '../errors/api-error';
import { parseRateLimit } from './rate-limit';

/** A non-2xx answer, as read by one attempt. */
export interface ErrorResponse {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

const MAX_MESSAGE_CHARS = 500;

/**
 * The typed error for a non-2xx answer: 401/403 `AuthError`, 404 `NotFoundError`, 412 `PlanLimitError`,
 * 429 `RateLimitError` (with what its headers say about the limit), anything else `ApiError`.
 *
 * @example
 * mapErrorResponse({ status: 404, statusText: 'Not Found', headers: new Headers(), text: '{"error":"topic t not found"}' },
 *   { method: 'GET', url: 'http://h/v2/topics/t' })
 * // NotFoundError: GET http://h/v2/topics/t failed with 404: topic t not found
 */
export function mapErrorResponse(response: ErrorResponse, request: { method: string; url: string; now?: number }): ApiError {
  const init = {
    status: response.status,
    serviceMessage: errorMessageFromBody(response.text, response.status, response.statusText),
    method: request.method,
    url: request.url,
  };
  switch (response.status) {
    case 401:
    case 403:
      return new AuthError(init);
    case 404:
      return new NotFoundError(init);
    case 412:
      return new PlanLimitError(init);
    case 429:
      return new RateLimitError(init, parseRateLimit(response.headers, request.now ?? Date.now()));
    default:
      return new ApiError(init);
  }
}

/**
 * The service's message: `error` of a `{"error": "..."}` body; otherwise the body text (cut to 500
 * characters, since a proxy's HTML error page is no use in full); otherwise the status text.
 *
 * @example errorMessageFromBody('{"error":"invalid destination url"}', 400, 'Bad Request') // 'invalid destination url'
 */
export function errorMessageFromBody(text: string, status: number, statusText: string): string {
  const fromJson = jsonErrorField(text);
  if (fromJson !== undefined) return fromJson;
  const trimmed = text.trim();
  if (trimmed !== '') return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS)}...` : trimmed;
  return statusText.trim() || `HTTP ${status}`;
}

function jsonErrorField(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (body === null || typeof body !== 'object') return undefined;
  const error = (body as { error?: unknown }).error;
  return typeof error === 'string' && error !== '' ? error : undefined;
}
