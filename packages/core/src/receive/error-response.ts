import { BodyReadError, BodyTooLargeError, RawBodyUnavailableError } from '../errors/body-errors';
import { ConfigError } from '../errors/config-error';
import { NonRetryableError, RetryAfterError } from '../errors/handler-errors';
import { InvalidBodyError, MethodNotAllowedError } from '../errors/receive-errors';
import { SignatureError } from '../errors/signature-error';
import { SchemaValidationError } from '../contract/schema-issues-error';
import type { OutboundResponse } from './inbound-request';
import type { ReceiveStage } from './receiver-options';

/** The status the service treats as "never retry": the message goes straight to the DLQ. */
export const NON_RETRYABLE_STATUS = 489;

export function textResponse(status: number, body: string, headers: Record<string, string> = {}): OutboundResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

/**
 * The one place that turns a failure into what the service sees. Bodies stay short and generic where
 * detail would help an attacker (signatures) or leak internals (handler errors); the detail goes to
 * `onError` instead.
 */
export function errorResponse(error: unknown, headerPrefix: string): { response: OutboundResponse; stage: ReceiveStage } {
  const nonRetryable = { [`${headerPrefix}-NonRetryable-Error`]: 'true' };
  if (error instanceof MethodNotAllowedError) {
    return { stage: 'method', response: textResponse(405, 'Method not allowed', { allow: error.allowed.join(', ') }) };
  }
  if (error instanceof BodyTooLargeError) return { stage: 'body', response: textResponse(413, 'Payload too large') };
  if (error instanceof BodyReadError) return { stage: 'body', response: textResponse(400, 'Incomplete request body') };
  if (error instanceof RawBodyUnavailableError) return { stage: 'config', response: textResponse(500, error.message) };
  if (error instanceof ConfigError) return { stage: 'config', response: textResponse(500, error.message) };
  if (error instanceof SignatureError) return { stage: 'signature', response: textResponse(401, 'Invalid signature') };
  if (error instanceof InvalidBodyError) return { stage: 'parse', response: textResponse(NON_RETRYABLE_STATUS, 'Invalid JSON body', nonRetryable) };
  if (error instanceof SchemaValidationError) {
    return { stage: 'schema', response: textResponse(NON_RETRYABLE_STATUS, 'Body does not match the schema', nonRetryable) };
  }
  if (error instanceof NonRetryableError) {
    return { stage: 'handler', response: textResponse(NON_RETRYABLE_STATUS, 'Not retryable', nonRetryable) };
  }
  if (error instanceof RetryAfterError) {
    return { stage: 'handler', response: textResponse(error.status, 'Retry later', { 'retry-after': String(error.seconds) }) };
  }
  return { stage: 'handler', response: textResponse(500, 'Handler failed') };
}
