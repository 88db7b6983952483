import type { MessageRecord } from '../state/records';
import { headerNames, type TokenSigner } from '@mailroom/core/protocol';
import type { EngineConfig } from '../options';

/** Sent as `User-Agent` on every delivery, so a destination can tell dev traffic apart. */
const DELIVERY_USER_AGENT = 'mailroom-dev-server';

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
 * `<P>-Message-Id`, `<P>-Retried`, `<P>-Caller-Ip`, `<P>-Topic-Name` (URL groups), `<P>-Schedule-Id`
 * (schedules), `<P>-Region` (when the server plays a region), the workflow
 * headers, a `User-Agent`, and `<P>-Signature` signed with the current key for this exact URL and body.
 */
export function buildDeliveryRequest(
  message: MessageRecord,
  retried: number,
  config: Pick<EngineConfig, 'headerPrefix' | 'region'>,
  sign: TokenSigner,
  /** What to send instead of the message's own body (a workflow run's history). */
  bodyOverride?: Buffer,
): DeliveryRequest {
  const body = bodyOverride ?? Buffer.from(message.bodyBase64, 'base64');
  const names = headerNames(config.headerPrefix);
  const headers: Record<string, string> = { 'User-Agent': DELIVERY_USER_AGENT };
  if (message.contentType !== undefined) headers['Content-Type'] = message.contentType;
  headers[names.messageId] = message.id;
  headers[names.retried] = String(retried);
  if (message.callerIp) headers[names.callerIp] = message.callerIp;
  if (message.topicName !== undefined) headers[names.topicName] = message.topicName;
  if (message.scheduleId !== undefined) headers[names.scheduleId] = message.scheduleId;
  if (config.region !== undefined) headers[names.region] = config.region;
  if (message.workflow) {
    headers[names.workflowRunId] = message.workflow.runId;
    headers[names.workflowUrl] = message.workflow.url;
    headers[names.workflowCreatedAt] = String(message.workflow.createdAt);
  }
  headers[names.signature] = sign(message.url, body);
  const forwarded = Object.keys(message.forwardHeaders);
  return {
    url: message.url,
    method: message.method,
    headers: forwarded.length === 0 ? headers : withForwarded(headers, message.forwardHeaders),
    body,
  };
}

// The framing of the hop is the HTTP client's own (undici refuses these, or they would contradict
// the body it sends), so a forwarded one is never sent, nor shown as sent.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-length',
]);

/**
 * Adds the forwarded headers, keyed by lower-case name so a forwarded header replaces a default
 * (User-Agent) rather than doubling it, while the service's own headers always win over forwarded
 * ones. The order is the one a single pass would give: defaults, forwarded, then the service's.
 */
function withForwarded(own: Record<string, string>, forwarded: Record<string, string>): Record<string, string> {
  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string) => headers.set(name.toLowerCase(), [name, value]);
  const ownEntries = Object.entries(own);
  const defaults = 'Content-Type' in own ? 2 : 1;
  for (const [name, value] of ownEntries.slice(0, defaults)) set(name, value);
  for (const [name, value] of Object.entries(forwarded)) if (!HOP_BY_HOP.has(name.toLowerCase())) set(name, value);
  for (const [name, value] of ownEntries.slice(defaults)) set(name, value);
  // fromEntries defines own properties: a forwarded header named `__proto__` stays a header.
  return Object.fromEntries(headers.values());
}
