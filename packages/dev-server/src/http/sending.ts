import { type AcceptRequest, type Accepted, deliverable } from '../engine/acceptance';
import { badRequest, CANCELLED_RUN_REFUSAL, planLimit, resourceName, ServiceError } from '../errors';
import { readEnqueueSettings } from '../engine/enqueue-settings';
import { type Destination, parseDestination } from '../engine/enqueue-target';
import { yieldToOtherWork } from '../engine/timers';
import type { Service } from '../service';
import { headerSource } from '../state/header-values';
import { json, type Reply, type Route, type RouteRequest } from './router';

// The routes that turn a request into messages: enqueue (spec endpoint 8), publish, batch. Reading
// the request is theirs; accepting it is the engine's.

export function sendingRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/enqueue/:queue/*',
      auth: 'messaging',
      readOnly: 'refuse',
      query: 'not-read',
      sends: true,
      handler: (request) => send(service, request, resourceName('queue name', request.params.queue)),
    },
    {
      method: 'POST',
      path: '/v2/publish/*',
      auth: 'messaging',
      readOnly: 'refuse',
      query: 'not-read',
      sends: true,
      handler: (request) => send(service, request, undefined),
    },
    {
      method: 'POST',
      path: '/v2/batch',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      handler: (request) => batch(service, request),
    },
  ];
}

async function send(service: Service, request: RouteRequest, queue: string | undefined): Promise<Reply> {
  const { plan, config } = service;
  const destination = deliverable(parseDestination(request.rest));
  const now = config.now();
  const settings = readEnqueueSettings(request, config.headerPrefix, plan, now);
  const body = await request.body(plan.max_message_size, () =>
    planLimit(`message size exceeds the max message size of the ${plan.type} plan (${plan.max_message_size} bytes)`),
  );
  const accepted = await service.acceptance.accept({ destination, queue, settings, body, callerIp: request.callerIp, now });
  return json(answer(destination, accepted));
}

/**
 * `POST /v2/batch`: a JSON array of `{ destination, queue?, headers, body }`. Every item is read
 * and checked before any is accepted, so a bad item leaves nothing half sent, and the items are
 * committed as one journal record, so a crash leaves nothing half sent either.
 */
async function batch(service: Service, request: RouteRequest): Promise<Reply> {
  const { plan, config } = service;
  const raw = await request.body(plan.max_message_size * 100, () => planLimit(`batch exceeds ${plan.max_message_size * 100} bytes`));
  let items: unknown;
  try {
    items = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('batch body is not valid JSON: expected an array of { destination, queue?, headers, body }');
  }
  if (!Array.isArray(items) || items.length === 0) throw badRequest('batch body must be a non-empty JSON array of messages');
  // The service counts every message of a batch against the day's messages: more can never be accepted.
  if (items.length > plan.max_requests_per_day) {
    throw planLimit(
      `batch of ${items.length} messages exceeds the ${plan.max_requests_per_day} messages per day of the ${plan.type} plan; split it`,
    );
  }
  const now = config.now();
  const prepared: AcceptRequest[] = [];
  // Steps for a cancelled run: the service answers them as a list, an error for each (parallel steps come in one batch).
  const cancelledSteps: Array<{ error: string }> = [];
  for (const [index, item] of items.entries()) {
    const accept = batchItem(service, item, index, now, request.callerIp);
    try {
      service.acceptance.check(accept);
    } catch (error) {
      if (!(error instanceof ServiceError && error.message === CANCELLED_RUN_REFUSAL)) throw error;
      cancelledSteps.push({ error: error.message });
    }
    prepared.push(accept);
    if (index % BATCH_SLICE === BATCH_SLICE - 1) await yieldToOtherWork();
  }
  if (cancelledSteps.length > 0) return { status: 400, json: cancelledSteps };
  // The state may have moved while the reading above yielded: acceptAll checks every item again.
  const results = await service.acceptance.acceptAll(prepared);
  return json(results.map((result, index) => answer(prepared[index]!.destination, result)));
}

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Items of a batch handled between two turns of the event loop, so a large batch stalls nobody. */
const BATCH_SLICE = 256;

function batchItem(service: Service, item: unknown, index: number, now: number, callerIp: string): AcceptRequest {
  const at = `batch item ${index}`;
  if (item === null || typeof item !== 'object' || Array.isArray(item))
    throw badRequest(`${at}: expected { destination, queue?, headers, body }`);
  const { destination, queue, headers, body } = item as Record<string, unknown>;
  if (typeof destination !== 'string' || destination === '') throw badRequest(`${at}: destination is missing`);
  if (headers !== undefined && (headers === null || typeof headers !== 'object' || Array.isArray(headers))) {
    throw badRequest(`${at}: headers must be an object of name -> value`);
  }
  // A body that is not a string is its JSON text: the Workflow SDK sends a context.call's body so,
  // and the service takes it (a 400 here would read to the SDK as "run cancelled").
  const text = body === undefined || body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  // A request's own headers passed Node's parser; a batch item's are only JSON, and a name or value no
  // HTTP request can carry would fail every delivery, so it is refused here as a publish would be.
  const rawHeaders: string[] = [];
  for (const [name, value] of Object.entries((headers ?? {}) as Record<string, unknown>)) {
    const textValue = sendableHeader(at, name, value);
    rawHeaders.push(name, textValue);
  }
  const bytes = Buffer.from(text, 'utf8');
  const { plan, config } = service;
  if (bytes.length > plan.max_message_size) {
    throw planLimit(`${at}: message size exceeds the max message size of the ${plan.type} plan (${plan.max_message_size} bytes)`);
  }
  return {
    destination: deliverable(parseDestination(destination)),
    queue: queue === undefined || queue === null ? undefined : resourceName('queue name', queue),
    settings: readEnqueueSettings(headerSource(rawHeaders), config.headerPrefix, plan, now),
    body: bytes,
    callerIp,
    now,
  };
}

/** A URL destination answers one object; a URL group a bare array, one element per endpoint. */
function answer(destination: Destination, accepted: Accepted): unknown {
  const flag = accepted.deduplicated ? { deduplicated: true } : {};
  if (destination.kind === 'group') return accepted.results.map((result) => ({ messageId: result.messageId, url: result.url, ...flag }));
  const first = accepted.results[0];
  if (!first) throw new Error('an enqueue to a URL produced no message');
  return { messageId: first.messageId, ...flag };
}

/**
 * A header a delivery can carry, given as JSON (a batch item's, an edited resend's), as its text; a
 * name or value no HTTP request can carry would fail every delivery, so it is refused with 400.
 */
export function sendableHeader(at: string, name: string, value: unknown): string {
  if (!HEADER_NAME.test(name)) throw badRequest(`${at}: header name ${JSON.stringify(name)} is not a valid HTTP header name`);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw badRequest(
      `${at}: header ${name} must be a string, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  const text = String(value);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them (a tab is allowed, as in HTTP).
  if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(text)) {
    throw badRequest(`${at}: header ${name} holds a control character (a line break, NUL, ...), which no HTTP request can carry`);
  }
  if (/[\u0100-\uffff]/.test(text)) {
    throw badRequest(
      `${at}: header ${name} holds characters outside Latin-1, which no HTTP header can carry; percent-encode or base64 the value`,
    );
  }
  return text;
}
