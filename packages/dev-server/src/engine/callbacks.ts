import { newMessageId } from '../ids';
import { bodyBase64, type CallbackSettings, type MessageKind, type MessageRecord, type ResponseRecord } from '../state/records';
import type { EngineConfig } from '../settings';
import type { DevState } from '../state/dev-state';
import { runHistory } from '../state/runs';
import { deliveredHeaderValues } from '../state/header-values';

// The callbacks an attempt spawns: their JSON bodies, field for field as the service sends them, and
// the messages that carry them.

/**
 * The JSON body of a callback about one attempt, field for field as service-facts lists it: `status`,
 * `header` and base64 `body` of the destination's answer (absent when there was none, e.g. a timeout),
 * `retried` and `maxRetries` (equal on the final attempt), the source message's id, URL, method,
 * headers, base64 body, `notBefore`, `createdAt` (ms) and `callerIP`, plus `topicName` and
 * `endpointName` for URL groups.
 */
export function callbackBody(source: MessageRecord, retried: number, response: ResponseRecord | undefined): Record<string, unknown> {
  return {
    ...(response ? { status: response.status, header: response.headers, body: response.bodyBase64 } : { body: '' }),
    retried,
    maxRetries: source.maxRetries,
    sourceMessageId: source.id,
    ...(source.topicName !== undefined ? { topicName: source.topicName } : {}),
    ...(source.endpointName !== undefined ? { endpointName: source.endpointName } : {}),
    url: source.url,
    method: source.method,
    sourceHeader: deliveredHeaderValues(source.contentType, source.forwardHeaders),
    sourceBody: bodyBase64(source),
    notBefore: source.notBefore,
    createdAt: source.createdAt,
    callerIP: source.callerIp,
  };
}

/** What a failure callback reports beyond the last attempt. */
export interface FailureDetail {
  dlqId: string;
  /** Why the last attempt failed when nothing answered it (a refused connection, a timeout). */
  error?: string | undefined;
  /** A workflow run's `sourceBody` (its trigger body, or its history), instead of the failed message's own. */
  sourceBodyBase64?: string | undefined;
}

/**
 * A failure callback's body: the callback body of the last attempt plus `dlqId` and the workflow
 * fields. A workflow run's failure function reads its error from `body`: when nothing answered, that
 * is the error the server knows (`{"message": "..."}`), not an empty object.
 */
export function failureCallbackBody(
  source: MessageRecord,
  retried: number,
  response: ResponseRecord | undefined,
  detail: FailureDetail,
): Record<string, unknown> {
  const body = callbackBody(source, retried, response);
  if (!source.workflow) return { ...body, dlqId: detail.dlqId };
  return {
    ...body,
    ...(response === undefined && detail.error !== undefined
      ? { body: Buffer.from(JSON.stringify({ error: 'delivery failed', message: detail.error })).toString('base64') }
      : {}),
    ...(detail.sourceBodyBase64 !== undefined ? { sourceBody: detail.sourceBodyBase64 } : {}),
    dlqId: detail.dlqId,
    workflowRunId: source.workflow.runId,
    workflowCreatedAt: source.workflow.createdAt,
  };
}

/**
 * A workflow failure callback's `sourceBody`: the run's trigger body for an SDK with `InitialBody`
 * (its failure function's `requestPayload`), else the run's history up to the failed step, as older
 * SDKs read it. A message of no known run keeps its own body.
 */
export function failureSourceBody(state: DevState, message: MessageRecord): string {
  const run = message.workflow && state.runs.get(message.workflow.runId);
  if (!run) return bodyBase64(message);
  if (run.trigger.workflow?.initialBody) return bodyBase64(run.trigger);
  return Buffer.from(JSON.stringify(runHistory(state, run.runId, message.id))).toString('base64');
}

export interface CallbackMessageInput {
  source: MessageRecord;
  settings: CallbackSettings;
  kind: Exclude<MessageKind, 'message'>;
  body: Record<string, unknown>;
  seq: number;
  at: number;
  dlqId?: string;
}

/**
 * A callback as a message of its own ("charged as a regular message"): signed for the callback URL,
 * retried with its own `<P>-Callback-*` settings or else the source's retry settings, never queued
 * (it must not wait behind the message it reports on), and journaled like any message, so a restart
 * does not lose it.
 */
export function callbackMessage(input: CallbackMessageInput, config: EngineConfig): MessageRecord {
  const { source, settings, at } = input;
  const delayMs = (settings.delaySeconds ?? 0) * 1000;
  const retryDelay = settings.retryDelay ?? source.retryDelay;
  return {
    id: newMessageId(),
    seq: input.seq,
    kind: input.kind,
    url: settings.url,
    method: settings.method,
    body: Buffer.from(JSON.stringify(input.body)).toString('latin1'),
    contentType: 'application/json',
    forwardHeaders: settings.headers,
    sourceHeader: {},
    maxRetries: settings.retries ?? source.maxRetries,
    ...(retryDelay !== undefined ? { retryDelay } : {}),
    timeoutSeconds: settings.timeoutSeconds ?? config.planTimeoutSeconds,
    notBefore: at + delayMs,
    dueAt: Math.round(at + delayMs * config.timeScale),
    createdAt: at,
    callerIp: source.callerIp,
    sourceMessageId: source.id,
    ...(input.dlqId !== undefined ? { dlqId: input.dlqId } : {}),
    // A callback's body carries its source's headers and body: what the source redacts, its callbacks'
    // views redact too (their delivery is untouched).
    ...(isRedacting(source.redact) ? { redact: { body: true, headers: [] } } : {}),
  };
}

const isRedacting = (redact: MessageRecord['redact']): boolean =>
  redact !== undefined && (redact.body || redact.headers === true || redact.headers.length > 0);
