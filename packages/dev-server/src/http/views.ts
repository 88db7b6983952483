import {
  type AttemptDetail,
  bodyBase64,
  bodyBytes,
  type DlqEntry,
  type FlowControlSettings,
  type LogRecord,
  type MessageRecord,
  type RedactSettings,
} from '../state/records';
import { parseTraceParent, TRACE_PARENT_HEADER } from '@mailroom/core/internal-protocol';
import { createHash } from 'node:crypto';
import { type HeaderValues, canonicalHeaderName, deliveredHeaderValues } from '../state/header-values';
import { buildDeliveryRequest } from '../engine/delivery-request';
import type { EngineConfig } from '../settings';

// How the interface shows what the state holds: pending messages, DLQ entries and log events, each
// with the service's field names, and with `<P>-Redact-Fields` applied (delivery is never affected).

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * What a redacted body or header value reads as: `REDACTED:<sha256 hex>`, as the service shows it, so
 * a user can check a value they hold against it without the view revealing it.
 */
export function redacted(value: string | Buffer): string {
  return `REDACTED:${createHash('sha256').update(value).digest('hex')}`;
}

/** The headers a view shows for a message: as delivered, with `<P>-Redact-Fields` applied. */
function shownHeaders(message: MessageRecord): HeaderValues {
  return redactHeaders(deliveredHeaderValues(message.contentType, message.forwardHeaders), message.redact);
}

/** The fields every view of a message shares (`GET /v2/messages/{id}`, DLQ entries, schedules). */
export function messageFields(message: MessageRecord): Record<string, unknown> {
  const flow = message.flowControl;
  return {
    messageId: message.id,
    url: message.url,
    ...(message.topicName !== undefined ? { topicName: message.topicName } : {}),
    ...(message.endpointName !== undefined ? { endpointName: message.endpointName } : {}),
    method: message.method,
    header: shownHeaders(message),
    ...redactBody('body', bodyBase64(message), message.redact),
    maxRetries: message.maxRetries,
    ...(message.retryDelay !== undefined ? { retryDelayExpression: message.retryDelay } : {}),
    notBefore: message.notBefore,
    createdAt: message.createdAt,
    ...(message.callback ? { callback: message.callback.url } : {}),
    ...(message.failureCallback ? { failureCallback: message.failureCallback.url } : {}),
    ...(message.queue !== undefined ? { queueName: message.queue } : {}),
    ...(message.scheduleId !== undefined ? { scheduleId: message.scheduleId } : {}),
    callerIp: message.callerIp,
    ...flowFields(flow),
    ...labelFields(message.label),
  };
}

/** A message's or schedule's flow control, in the service's field names. */
export function flowFields(flow: FlowControlSettings | undefined): Record<string, unknown> {
  if (!flow) return {};
  return {
    flowControlKey: flow.key,
    ...(flow.parallelism !== undefined ? { parallelism: flow.parallelism } : {}),
    ...(flow.rate !== undefined ? { rate: flow.rate } : {}),
    ...(flow.periodSeconds !== undefined ? { period: flow.periodSeconds } : {}),
  };
}

/**
 * A DLQ entry, for both DLQ listings: the message, the last answer (`responseStatus`,
 * `responseHeader`, `responseBody` only when the destination answered), the workflow fields and
 * `failureCallbackInfo` when they apply.
 */
export function dlqView(entry: DlqEntry): Record<string, unknown> {
  const message = entry.message;
  const info = entry.failureCallbackInfo;
  return {
    dlqId: entry.dlqId,
    ...messageFields(message),
    // A failed workflow run is listed with the spec's spelling, `callerIP`; a message with the newer `callerIp`.
    ...(message.workflow
      ? {
          callerIp: undefined,
          callerIP: message.callerIp,
          workflowRunId: message.workflow.runId,
          workflowCreatedAt: message.workflow.createdAt,
          workflowUrl: message.workflow.url,
        }
      : {}),
    ...(entry.response
      ? {
          responseStatus: entry.response.status,
          responseHeader: entry.response.headers,
          ...bodyFields('responseBody', entry.response.bodyBase64),
        }
      : {}),
    ...(entry.error !== undefined ? { error: entry.error } : {}),
    ...(info
      ? {
          failureCallbackInfo: {
            state: info.state,
            ...(info.responseStatus !== undefined ? { responseStatus: info.responseStatus } : {}),
            ...(info.responseBodyBase64 !== undefined
              ? { responseBody: Buffer.from(info.responseBodyBase64, 'base64').toString('utf8') }
              : {}),
            ...(info.responseHeaders ? { responseHeaders: info.responseHeaders } : {}),
          },
        }
      : {}),
    ...(message.failureCallback ? { failureCallbackHeader: headerValues(message.failureCallback.headers) } : {}),
  };
}

/** One log event (`GET /v2/events`): the state change and the message it is about. */
export function logView(
  entry: LogRecord,
  message: MessageRecord,
  config: Pick<EngineConfig, 'headerPrefix' | 'region'>,
): Record<string, unknown> {
  return {
    time: entry.time,
    state: entry.state,
    messageId: entry.messageId,
    ...(entry.nextDeliveryTime !== undefined ? { nextDeliveryTime: entry.nextDeliveryTime } : {}),
    ...(entry.error !== undefined ? { error: entry.error } : {}),
    ...(entry.responseStatus !== undefined ? { responseStatus: entry.responseStatus } : {}),
    ...(entry.delaySource !== undefined ? { delaySource: entry.delaySource } : {}),
    // Beyond the service's fields, for the console: what each attempt sent and got back.
    ...(entry.attempt && message ? { attempt: attemptView(entry.attempt, message, config) } : {}),
    ...(message
      ? {
          kind: message.kind,
          ...(message.notBefore > message.createdAt ? { notBefore: message.notBefore } : {}),
          ...(message.resentFrom !== undefined ? { resentFrom: message.resentFrom } : {}),
          ...(message.workflow ? { workflowRunId: message.workflow.runId } : {}),
          ...(message.sourceMessageId !== undefined ? { sourceMessageId: message.sourceMessageId } : {}),
          method: message.method,
          url: message.url,
          ...(message.topicName !== undefined ? { topicName: message.topicName } : {}),
          ...(message.endpointName !== undefined ? { endpointName: message.endpointName } : {}),
          ...(message.queue !== undefined ? { queueName: message.queue } : {}),
          ...(message.scheduleId !== undefined ? { scheduleId: message.scheduleId } : {}),
          ...(message.flowControl ? { flowControlKey: message.flowControl.key } : {}),
          header: shownHeaders(message),
          body: message.redact?.body ? redacted(bodyBytes(message)) : bodyBase64(message),
          ...labelFields(message.label),
        }
      : {}),
  };
}

function attemptView(
  attempt: AttemptDetail,
  message: MessageRecord,
  config: Pick<EngineConfig, 'headerPrefix' | 'region'>,
): Record<string, unknown> {
  // The headers as sent: every one follows from the message and the attempt; the token was kept.
  const sent = buildDeliveryRequest(message, attempt.retried, config, () => attempt.signature ?? '').headers;
  const redact = message.redact?.headers;
  const hidden = (name: string) => redact === true || redact?.includes(name.toLowerCase());
  // The trace the sender's span started, carried to the destination with this attempt; under the
  // attempt's own span when the server exported one.
  const traceHeader = Object.keys(sent).find((name) => name.toLowerCase() === TRACE_PARENT_HEADER);
  const sender = parseTraceParent(traceHeader === undefined ? undefined : sent[traceHeader]);
  const trace = sender && attempt.spanId ? { traceId: sender.traceId, spanId: attempt.spanId, parentSpanId: sender.spanId } : sender;
  if (traceHeader !== undefined && sender && attempt.spanId) sent[traceHeader] = `00-${sender.traceId}-${attempt.spanId}-01`;
  const headers = Object.fromEntries(Object.entries(sent).map(([name, value]) => [name, hidden(name) ? redacted(value) : value]));
  return {
    retried: attempt.retried,
    startedAt: attempt.startedAt,
    durationMs: attempt.durationMs,
    requestHeaders: headers,
    ...(trace ? { trace } : {}),
    ...(attempt.response
      ? {
          response: {
            status: attempt.response.status,
            headers: attempt.response.headers,
            body: attempt.response.bodyBase64,
            truncated: attempt.response.truncated,
          },
        }
      : {}),
    ...(attempt.error !== undefined ? { error: attempt.error } : {}),
  };
}

/** As the service shows labels: every one in `labels`, and the first in `label` (its older field). */
export function labelFields(label: string | undefined): Record<string, unknown> {
  if (label === undefined) return {};
  const labels = label.split(',');
  return { label: labels[0], labels };
}

export function redactHeaders(headers: HeaderValues, redact: RedactSettings | undefined): HeaderValues {
  if (!redact || (redact.headers !== true && redact.headers.length === 0)) return headers;
  const names = redact.headers;
  return Object.fromEntries(
    Object.entries(headers).map(([name, values]) =>
      names === true || names.includes(name.toLowerCase()) ? [name, values.map(redacted)] : [name, values],
    ),
  );
}

function redactBody(name: 'body', base64: string, redact: RedactSettings | undefined): Record<string, string> {
  return redact?.body ? { [name]: redacted(Buffer.from(base64, 'base64')) } : bodyFields(name, base64);
}

/** `name` with the text when it is valid UTF-8, else `<name>Base64`. */
export function bodyFields(name: 'body' | 'responseBody', base64: string): Record<string, string> {
  const bytes = Buffer.from(base64, 'base64');
  try {
    return { [name]: strictUtf8.decode(bytes) };
  } catch {
    return { [`${name}Base64`]: base64 };
  }
}

function headerValues(headers: Record<string, string>): HeaderValues {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [canonicalHeaderName(name), [value]]));
}
