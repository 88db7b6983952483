import { newDlqId } from '../ids';
import type { DevState } from '../state/dev-state';
import type { DevRecord, DlqEntry, MessageRecord, ResponseRecord } from '../state/records';
import type { ClassifiedAttempt } from './attempt-outcome';
import { callbackBody, failureCallbackBody } from './callback-body';
import { callbackMessage } from './callback-message';
import type { EngineConfig } from './engine-config';
import type { RetryWait } from './retry-wait';
import type { RequestResult } from './send-request';

/** The journal record of one attempt. */
export type AttemptRecord = Extract<DevRecord, { type: 'attempt' }>;

export interface AttemptRecordInput {
  state: DevState;
  message: MessageRecord;
  retried: number;
  result: RequestResult;
  classified: ClassifiedAttempt;
  wait: RetryWait | undefined;
  at: number;
  startedAt?: number;
  /** The token the attempt was signed with: with the message, it gives every header that was sent. */
  signature?: string | undefined;
}

/**
 * One attempt and everything that follows from it: the callback about it, and after the last failed
 * attempt the DLQ entry and the failure callback. Must be committed in the same synchronous step it
 * is built in: the sequence and DLQ numbers it reads from the state are taken only by the commit.
 */
export function attemptRecord(input: AttemptRecordInput, config: EngineConfig): AttemptRecord {
  const { state, message, retried, result, classified, at } = input;
  const response = result.ok ? responseRecord(result) : undefined;
  const error = result.ok ? undefined : result.error;
  const spawned: MessageRecord[] = [];
  let seq = state.nextSeq;
  if (message.kind === 'message' && message.callback) {
    const body = callbackBody(message, retried, response);
    spawned.push(callbackMessage({ source: message, settings: message.callback, kind: 'callback', body, seq: seq++, at }, config));
  }
  let dlq: DlqEntry | undefined;
  if (classified.outcome === 'failed' && message.kind === 'message') {
    const order = state.nextDlqOrder;
    const dlqId = newDlqId(at, order);
    if (message.failureCallback) {
      const body = failureCallbackBody(message, retried, response, dlqId);
      spawned.push(
        callbackMessage(
          { source: message, settings: message.failureCallback, kind: 'failure-callback', body, seq: seq++, at, dlqId },
          config,
        ),
      );
    }
    dlq = { dlqId, order, at, message, retried };
    if (response) dlq.response = response;
    if (error !== undefined) dlq.error = error;
    if (message.failureCallback) dlq.failureCallbackInfo = { state: 'CALLBACK_INPROGRESS' };
  }
  // Optional fields by assignment, not conditional spreads: this runs for every attempt.
  const record: AttemptRecord = {
    type: 'attempt',
    id: message.id,
    at,
    retried,
    outcome: classified.outcome,
    bytes: Buffer.byteLength(message.bodyBase64, 'base64') + (result.ok ? result.bytesReceived : 0),
    spawned,
  };
  if (input.startedAt !== undefined) record.startedAt = input.startedAt;
  if (input.signature !== undefined) record.signature = input.signature;
  if (input.wait) {
    record.delaySource = input.wait.source;
    record.dueAt = at + input.wait.delayMs * config.timeScale;
  }
  if (response) record.response = response;
  if (error !== undefined) record.error = error;
  if (dlq) record.dlq = dlq;
  return record;
}

function responseRecord(result: Extract<RequestResult, { ok: true }>): ResponseRecord {
  return { status: result.status, headers: result.headers, bodyBase64: result.body.toString('base64') };
}
