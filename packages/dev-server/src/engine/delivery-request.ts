import type { MessageRecord } from '../state/records';
import type { DeliverySigner } from './delivery-signer';
import { DELIVERY_USER_AGENT } from './engine-config';

/** What one attempt sends. */
export interface DeliveryRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The request of one attempt, as service-facts describes a delivery: the method, the raw body with
 * its original `Content-Type`, the forwarded headers under their own names, and the service's
 * `<P>-Message-Id`, `<P>-Retried`, `<P>-Caller-Ip`, `<P>-Topic-Name` (URL groups), the workflow
 * headers, a `User-Agent`, and `<P>-Signature` signed with the current key for this exact URL and body.
 */
export function buildDeliveryRequest(message: MessageRecord, retried: number, headerPrefix: string, sign: DeliverySigner): DeliveryRequest {
  const body = Buffer.from(message.bodyBase64, 'base64');
  const p = headerPrefix;
  // Keyed by lower-case name so a forwarded header replaces a default (User-Agent) rather than
  // doubling it, while the service's own headers always win over forwarded ones.
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  set('User-Agent', DELIVERY_USER_AGENT);
  if (message.contentType !== undefined) set('Content-Type', message.contentType);
  for (const [name, value] of Object.entries(message.forwardHeaders)) set(name, value);
  set(`${p}-Message-Id`, message.id);
  set(`${p}-Retried`, String(retried));
  if (message.callerIp) set(`${p}-Caller-Ip`, message.callerIp);
  if (message.topicName !== undefined) set(`${p}-Topic-Name`, message.topicName);
  if (message.workflow) {
    set(`${p}-Workflow-RunId`, message.workflow.runId);
    set(`${p}-Workflow-Url`, message.workflow.url);
    set(`${p}-Workflow-CreatedAt`, String(message.workflow.createdAt));
  }
  set(`${p}-Signature`, sign(message.url, body));
  return { url: message.url, method: message.method, headers: Object.fromEntries(headers.values()), body };
}
