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
  return {
    id: newMessageId(),
    seq: input.seq,
    kind: 'message',
    ...(input.queue !== undefined ? { queue: input.queue } : {}),
    url: target.url,
    method: settings.method,
    bodyBase64: input.body.toString('base64'),
    ...(settings.contentType !== undefined ? { contentType: settings.contentType } : {}),
    forwardHeaders: settings.forwardHeaders,
    sourceHeader: settings.sourceHeader,
    maxRetries: settings.maxRetries,
    ...(settings.retryDelay !== undefined ? { retryDelay: settings.retryDelay } : {}),
    timeoutSeconds: settings.timeoutSeconds,
    notBefore: settings.notBefore,
    // Only the wait is scaled; the reported `notBefore` stays what the service would show.
    dueAt: now + (settings.notBefore - now) * input.timeScale,
    createdAt: now,
    callerIp: input.callerIp,
    ...(target.topicName !== undefined ? { topicName: target.topicName } : {}),
    ...(target.endpointName ? { endpointName: target.endpointName } : {}),
    ...(settings.label !== undefined ? { label: settings.label } : {}),
    ...(settings.flowControl ? { flowControl: settings.flowControl } : {}),
    ...(settings.redact ? { redact: settings.redact } : {}),
    ...(input.scheduleId !== undefined ? { scheduleId: input.scheduleId } : {}),
    ...(workflow ? { workflow: { runId: workflow.runId, url: workflow.url ?? target.url, createdAt: workflow.createdAt } } : {}),
    ...(settings.callback ? { callback: settings.callback } : {}),
    ...(settings.failureCallback ? { failureCallback: settings.failureCallback } : {}),
  };
}
