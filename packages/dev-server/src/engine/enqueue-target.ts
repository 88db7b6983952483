// Where an enqueue goes: the destination read from the rest of its path (a URL, a URL group, or an
// `api/...` name the dev server refuses), and the message record each endpoint it reaches gets.
import { RESOURCE_NAME, unsignableUrl } from '@mailroom/core/internal-protocol';
import { badRequest } from '../errors';
import { newMessageId } from '../ids';
import { isSharedString, sharedForwardHeaders, sharedSourceHeaders, sharedString } from '../state/message-codec';
import type { MessageRecord } from '../state/records';
import type { EnqueueSettings } from './enqueue-settings';

/** Where an enqueue goes, read from the rest of its path. */
export type Destination =
  | { kind: 'url'; url: string }
  | { kind: 'api'; name: string }
  | { kind: 'group'; name: string; looksLikeHost: boolean };

/**
 * Reads the destination from the raw rest of the path (`/v2/enqueue/{queue}/` stripped), exactly as
 * sent: a client puts a URL destination verbatim in the path, query included
 * (`POST /v2/enqueue/q/https://app.test/hook?a=1`), so it must not be taken from a decoded segment.
 * A percent-encoded URL (`https%3A%2F%2F...`) and a scheme whose `//` a proxy merged (`https:/host`)
 * are read too. Anything that is neither a URL, an `api/...` name nor a possible group name is 400.
 */
export function parseDestination(rest: string): Destination {
  const raw = /^https?%3A/i.test(rest) ? safeDecode(rest) : rest;
  const merged = /^(https?):\/(?!\/)/i.exec(raw);
  const candidate = merged ? `${merged[1]}://${raw.slice(merged[0].length)}` : raw;
  if (/^https?:\/\//i.test(candidate)) {
    // A URL already shared was validated when it first came.
    if (!isSharedString(candidate)) {
      try {
        new URL(candidate);
      } catch {
        throw badRequest(`invalid destination url: ${JSON.stringify(candidate)} is not a valid URL`);
      }
      const unsignable = unsignableUrl(candidate);
      if (unsignable) throw badRequest(`invalid destination url: it ${unsignable}`);
    }
    return { kind: 'url', url: sharedString(candidate) };
  }
  const queryAt = raw.indexOf('?');
  const name = safeDecode(queryAt === -1 ? raw : raw.slice(0, queryAt));
  if (name.startsWith('api/')) return { kind: 'api', name };
  if (!RESOURCE_NAME.test(name)) throw invalidScheme();
  // `app.test` is a legal group name, and also what a user who forgot `https://` sends: when no such
  // group exists, a dotted name ending in a letter label reads as the latter (400, not 404).
  return { kind: 'group', name, looksLikeHost: /\.[A-Za-z]{2,}$/.test(name) };
}

/** The service's answer to a destination without http:// or https://. */
export function invalidScheme(): ReturnType<typeof badRequest> {
  return badRequest('invalid destination url: endpoint has invalid scheme, add http:// or https://');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw badRequest(`invalid destination: malformed percent-encoding in ${JSON.stringify(value)}`);
  }
}

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
    body: input.body.toString('latin1'),
    forwardHeaders: sharedForwardHeaders(settings.forwardHeaders),
    sourceHeader: sharedSourceHeaders(settings.sourceHeader),
    maxRetries: settings.maxRetries,
    timeoutSeconds: settings.timeoutSeconds,
    notBefore: settings.notBefore,
    // Only the wait is scaled; the reported `notBefore` stays what the service would show.
    dueAt: Math.round(now + (settings.notBefore - now) * input.timeScale),
    createdAt: now,
    callerIp: sharedString(input.callerIp),
  };
  if (input.queue !== undefined) message.queue = input.queue;
  if (settings.contentType !== undefined) message.contentType = sharedString(settings.contentType);
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
