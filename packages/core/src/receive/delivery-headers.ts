import { headerEntries, type HeaderLookup } from '../headers/header-lookup';

/** The service's own headers on a delivery, read once into typed fields. */
export interface DeliveryHeaders {
  all: Record<string, string>;
  signature: string | undefined;
  messageId: string | undefined;
  retried: number;
  topicName: string | undefined;
  scheduleId: string | undefined;
  callerIp: string | undefined;
  workflowRunId: string | undefined;
  workflowUrl: string | undefined;
  contentType: string | undefined;
  forwarded: Record<string, string>;
}

// Headers that belong to the HTTP exchange rather than to the message: a handler asking for
// "what the sender forwarded" must not see them.
const TRANSPORT_HEADERS = new Set([
  'host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'te', 'trailer', 'upgrade',
  'expect', 'accept-encoding', 'content-type', 'user-agent', 'proxy-connection', 'proxy-authorization',
  'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port', 'x-real-ip', 'forwarded', 'via',
]);

/**
 * Splits a delivery's headers into the service's fields and the forwarded ones. The service delivers
 * `<Prefix>-Forward-X: v` as `X: v`, so forwarded headers are whatever is neither the service's
 * (`<Prefix>-*`) nor the transport's; a still-prefixed `<Prefix>-Forward-X` is stripped too.
 */
export function readDeliveryHeaders(headers: HeaderLookup, headerPrefix: string): DeliveryHeaders {
  const prefix = `${headerPrefix.toLowerCase()}-`;
  const forwardPrefix = `${prefix}forward-`;
  const entries = headerEntries(headers);
  const forwardedEntries: Array<[string, string]> = [];
  for (const entry of entries) {
    const name = entry[0];
    if (name.startsWith(forwardPrefix)) {
      if (name.length > forwardPrefix.length) forwardedEntries.push([name.slice(forwardPrefix.length), entry[1]]);
    } else if (!name.startsWith(prefix) && !TRANSPORT_HEADERS.has(name)) {
      forwardedEntries.push(entry);
    }
  }
  // fromEntries defines own properties: a header named `__proto__` stays a header instead of
  // reaching the prototype setter (and it cannot change what the lookups below read).
  const all: Record<string, string> = Object.fromEntries(entries);
  const forwarded: Record<string, string> = Object.fromEntries(forwardedEntries);
  const retried = Number(all[`${prefix}retried`] ?? '0');
  return {
    all,
    forwarded,
    signature: all[`${prefix}signature`],
    messageId: all[`${prefix}message-id`],
    retried: Number.isSafeInteger(retried) && retried >= 0 ? retried : 0,
    topicName: all[`${prefix}topic-name`],
    scheduleId: all[`${prefix}schedule-id`],
    callerIp: all[`${prefix}caller-ip`],
    workflowRunId: all[`${prefix}workflow-runid`],
    workflowUrl: all[`${prefix}workflow-url`],
    contentType: all['content-type'],
  };
}
