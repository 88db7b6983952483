import { newMessageId } from '../ids';
import type { CallbackSettings, MessageKind, MessageRecord } from '../state/records';
import type { EngineConfig } from './engine-config';

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
    bodyBase64: Buffer.from(JSON.stringify(input.body)).toString('base64'),
    contentType: 'application/json',
    forwardHeaders: settings.headers,
    sourceHeader: {},
    maxRetries: settings.retries ?? source.maxRetries,
    ...(retryDelay !== undefined ? { retryDelay } : {}),
    timeoutSeconds: settings.timeoutSeconds ?? config.planTimeoutSeconds,
    notBefore: at + delayMs,
    dueAt: at + delayMs * config.timeScale,
    createdAt: at,
    callerIp: source.callerIp,
    sourceMessageId: source.id,
    ...(input.dlqId !== undefined ? { dlqId: input.dlqId } : {}),
  };
}
