import { headerNames } from '../protocol/header-names';
import type { OutboundResponse } from './inbound-request';
import type { ReceiveStage } from './receiver-options';

/** What a crashed handler answers, in every adapter. */
export const HANDLER_FAILED_BODY = '{"error":"handler failed"}';

/** The status the service treats as "never retry": the message goes straight to the DLQ. */
export const NON_RETRYABLE_STATUS = 489;

export function textResponse(status: number, body: string, headers: Record<string, string> = {}): OutboundResponse {
  return { status, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers }, body };
}

/** The fields our error classes carry; read by `code`, not `instanceof`, see below. */
interface CodedError {
  code?: unknown;
  message?: unknown;
  allowed?: unknown;
  seconds?: unknown;
  status?: unknown;
}

/**
 * The one place that turns a failure into what the service sees. Bodies stay short and generic where
 * detail would help an attacker (signatures) or leak internals (handler errors); the detail goes to
 * `onError` instead.
 *
 * Errors are recognised by their `code`, not `instanceof`: an app that loads core twice (its ESM and
 * CJS builds side by side) would otherwise turn a NonRetryableError into a 500 and retry it for a day.
 */
export function errorResponse(error: unknown, headerPrefix: string): { response: OutboundResponse; stage: ReceiveStage } {
  const coded = (typeof error === 'object' && error !== null ? error : {}) as CodedError;
  const nonRetryable = { [headerNames(headerPrefix).nonRetryableError]: 'true' };
  switch (coded.code) {
    case 'METHOD_NOT_ALLOWED': {
      const allowed = Array.isArray(coded.allowed) ? coded.allowed.join(', ') : 'POST';
      return { stage: 'method', response: textResponse(405, 'Method not allowed', { allow: allowed }) };
    }
    case 'BODY_TOO_LARGE':
      return { stage: 'body', response: textResponse(413, 'Payload too large') };
    case 'BODY_READ':
      return { stage: 'body', response: textResponse(400, 'Incomplete request body') };
    case 'RAW_BODY_UNAVAILABLE':
    case 'CONFIG':
      // Both are the app's own misconfiguration and the message says how to fix it: show it.
      return { stage: 'config', response: textResponse(500, String(coded.message)) };
    case 'SIGNATURE':
      return { stage: 'signature', response: textResponse(401, 'Invalid signature') };
    case 'INVALID_BODY':
      return { stage: 'parse', response: textResponse(NON_RETRYABLE_STATUS, 'Invalid JSON body', nonRetryable) };
    case 'SCHEMA_VALIDATION':
      return { stage: 'schema', response: textResponse(NON_RETRYABLE_STATUS, 'Body does not match the schema', nonRetryable) };
    case 'NON_RETRYABLE':
      return { stage: 'handler', response: textResponse(NON_RETRYABLE_STATUS, 'Not retryable', nonRetryable) };
    case 'RETRY_AFTER': {
      const status = typeof coded.status === 'number' ? coded.status : 503;
      return { stage: 'handler', response: textResponse(status, 'Retry later', { 'retry-after': String(coded.seconds) }) };
    }
    default:
      // A small fixed JSON body: the service stores it as the DLQ entry's responseBody, shown to anyone
      // with the token, so no message, stack or framework error page may reach it.
      return { stage: 'handler', response: { status: 500, headers: { 'content-type': 'application/json' }, body: HANDLER_FAILED_BODY } };
  }
}
