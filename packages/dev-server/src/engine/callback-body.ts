import type { MessageRecord, ResponseRecord } from '../state/records';

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
    sourceHeader: source.sourceHeader,
    sourceBody: source.bodyBase64,
    notBefore: source.notBefore,
    createdAt: source.createdAt,
    callerIP: source.callerIp,
  };
}

/** A failure callback's body: the callback body of the last attempt plus `dlqId` and the workflow fields. */
export function failureCallbackBody(
  source: MessageRecord,
  retried: number,
  response: ResponseRecord | undefined,
  dlqId: string,
): Record<string, unknown> {
  return {
    ...callbackBody(source, retried, response),
    dlqId,
    ...(source.workflow ? { workflowRunId: source.workflow.runId, workflowCreatedAt: source.workflow.createdAt } : {}),
  };
}
