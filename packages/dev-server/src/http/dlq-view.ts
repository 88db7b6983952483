import type { DlqWorkflowMessage } from '@mailroom/core';
import type { DlqEntry, HeaderValues } from '../state/records';
import { canonicalHeaderName } from './header-names';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A DLQ entry as the listing answers it: every field of the spec's table (`responseStatus`,
 * `responseHeader`, `responseBody` only when the destination answered), and the extra fields real
 * entries carry: `label`, `body` or `bodyBase64`, `responseBodyBase64` for a non-UTF-8 answer,
 * `failureCallbackHeader`. `failureCallbackInfo` is absent when the message had no failure callback.
 */
export function dlqView(entry: DlqEntry): DlqWorkflowMessage {
  const message = entry.message;
  const info = entry.failureCallbackInfo;
  return {
    dlqId: entry.dlqId,
    messageId: message.id,
    url: message.url,
    method: message.method,
    header: message.sourceHeader,
    maxRetries: message.maxRetries,
    notBefore: message.notBefore,
    createdAt: message.createdAt,
    ...(message.failureCallback ? { failureCallback: message.failureCallback.url } : {}),
    callerIP: message.callerIp,
    ...(message.workflow
      ? { workflowRunId: message.workflow.runId, workflowCreatedAt: message.workflow.createdAt, workflowUrl: message.workflow.url }
      : {}),
    ...(entry.response
      ? {
          responseStatus: entry.response.status,
          responseHeader: entry.response.headers,
          ...bodyFields('responseBody', entry.response.bodyBase64),
        }
      : {}),
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
    ...(message.label !== undefined ? { label: message.label } : {}),
    ...bodyFields('body', message.bodyBase64),
    ...(message.failureCallback ? { failureCallbackHeader: headerValues(message.failureCallback.headers) } : {}),
  };
}

/** `name` with the text when it is valid UTF-8, else `<name>Base64`. */
function bodyFields(name: 'body' | 'responseBody', base64: string): Record<string, string> {
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
