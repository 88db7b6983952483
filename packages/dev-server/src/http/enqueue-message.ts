import { newMessageId } from '../ids';
import type { MessageRecord } from '../state/records';
import type { EnqueueSettings } from './enqueue-settings';

/** One endpoint an enqueue delivers to: its URL, and for a URL group the group and endpoint names. */
export interface EnqueueTarget {
  url: string;
  topicName?: string;
  endpointName?: string;
}

export interface EnqueueMessageInput {
  settings: EnqueueSettings;
  target: EnqueueTarget;
  queue: string | undefined;
  body: Buffer;
  seq: number;
  now: number;
  callerIp: string;
  timeScale: number;
  scheduleId?: string;
}

/** The message record of one endpoint of an enqueue. */
export function enqueueMessage(input: EnqueueMessageInput): MessageRecord {
  const { settings, target, now } = input;
  const workflow = settings.workflow;
  // Optional fields are assigned only when present (a record never holds `undefined`), by assignment
  // rather than conditional spreads: each of those builds and copies an object for every message.
  const message: MessageRecord = {
    id: newMessageId(),
    seq: input.seq,
    kind: 'message',
    url: target.url,
    method: settings.method,
    bodyBase64: input.body.toString('base64'),
    forwardHeaders: settings.forwardHeaders,
    sourceHeader: settings.sourceHeader,
    maxRetries: settings.maxRetries,
    timeoutSeconds: settings.timeoutSeconds,
    notBefore: settings.notBefore,
    // Only the wait is scaled; the reported `notBefore` stays what the service would show.
    dueAt: now + (settings.notBefore - now) * input.timeScale,
    createdAt: now,
    callerIp: input.callerIp,
  };
  if (input.queue !== undefined) message.queue = input.queue;
  if (settings.contentType !== undefined) message.contentType = settings.contentType;
  if (settings.retryDelay !== undefined) message.retryDelay = settings.retryDelay;
  if (target.topicName !== undefined) message.topicName = target.topicName;
  if (target.endpointName) message.endpointName = target.endpointName;
  if (settings.label !== undefined) message.label = settings.label;
  if (settings.flowControl) message.flowControl = settings.flowControl;
  if (settings.redact) message.redact = settings.redact;
  if (input.scheduleId !== undefined) message.scheduleId = input.scheduleId;
  if (workflow) {
    const { url, invoked: _invoked, ...rest } = workflow;
    message.workflow = { ...rest, url: url ?? target.url };
  }
  if (settings.callback) message.callback = settings.callback;
  if (settings.failureCallback) message.failureCallback = settings.failureCallback;
  return message;
}
