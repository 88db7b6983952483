import { RESOURCE_NAME, RESOURCE_NAME_RULE } from '@mailroom/core/protocol';
import type { IncomingMessage } from 'node:http';
import type { ServerContext, Route, RouteRequest } from './router';
import { inheritRunSettings, takeInvocation } from '../workflows/runs';
import type { DedupResult, MessageRecord } from '../state/records';
import { parseDestination, invalidScheme, type Destination, enqueueMessage, type EnqueueTarget } from './enqueue-target';
import { readEnqueueSettings, type EnqueueSettings } from './enqueue-settings';
import { headerSource } from '../state/header-values';
import { badRequest, notFound, planLimit, type HttpError, readBody, json, type Reply } from './exchange';
import { createHash } from 'node:crypto';
import { type DevState, type DedupEntry, dedupLive } from '../state/dev-state';

// Everything that turns a request into messages: enqueue (spec endpoint 8), publish, batch; and the
// one acceptance step they share with schedule firings and DLQ retries.

export function sendingRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/enqueue/:queue/*',
      auth: 'messaging',
      handler: (request) => send(ctx, request, readQueue(request.params.queue)),
    },
    { method: 'POST', path: '/v2/publish/*', auth: 'messaging', handler: (request) => send(ctx, request, undefined) },
    { method: 'POST', path: '/v2/batch', auth: 'messaging', handler: (request) => batch(ctx, request) },
  ];
}

/** A URL or a URL group: the dev server delivers to nothing else. */
export type DeliverableDestination = Exclude<Destination, { kind: 'api' }>;

/** One request to accept: where to, on which queue, how, and what. */
export interface Acceptance {
  destination: DeliverableDestination;
  queue: string | undefined;
  settings: EnqueueSettings;
  body: Buffer;
  callerIp: string;
  now: number;
  /** A schedule's firing: its id and the service-clock time it fired for. */
  schedule?: { id: string; time: number };
}

/** What an acceptance answered: one result per endpoint, and whether they are an earlier duplicate. */
export interface Accepted {
  results: DedupResult[];
  deduplicated: boolean;
  messages: MessageRecord[];
}

/**
 * Resolves the endpoints, deduplicates, and commits the messages. Nothing awaits between the
 * duplicate check and the commit's state change, so two copies racing in cannot both pass.
 */
export async function accept(ctx: ServerContext, input: Acceptance): Promise<Accepted> {
  const { store } = ctx;
  const { destination, now } = input;
  const { settings, body } = takeInvocation(input.settings, input.body);
  const targets = resolveTargets(ctx, destination);
  refuseStepOfCancelledRun(store.state, settings);
  const keys = dedupKeys(settings.deduplicationId, settings.contentBasedDeduplication, {
    destination: destination.kind === 'url' ? destination.url : destination.name,
    body,
    contentType: settings.contentType,
    forwardHeaders: settings.forwardHeaders,
  });
  const duplicate = findDuplicate(store.state, keys, now) ?? existingRun(store.state, settings);
  if (duplicate) {
    for (const result of duplicate.results) ctx.events.emit({ type: 'deduplicated', messageId: result.messageId, url: result.url });
    return { results: duplicate.results, deduplicated: true, messages: [] };
  }
  const messages = targets.map((target, index) =>
    enqueueMessage({
      settings,
      target,
      queue: input.queue,
      body,
      seq: store.state.nextSeq + index,
      now,
      callerIp: input.callerIp,
      timeScale: ctx.config.timeScale,
      ...(input.schedule ? { scheduleId: input.schedule.id } : {}),
    }),
  );
  for (const message of messages) inheritRunSettings(store.state, message, settings.retriesGiven);
  const commits: Promise<void>[] = [];
  if (input.queue !== undefined && !store.state.queues.has(input.queue)) {
    if (store.state.queues.size >= ctx.plan.max_queues) throw queueLimit(ctx);
    // The service creates a queue on its first message.
    const queue = { name: input.queue, parallelism: 1, paused: false, createdAt: now, updatedAt: now };
    commits.push(store.commit({ type: 'queue.updated', name: input.queue, queue }));
  }
  commits.push(
    store.commit({
      type: 'messages.accepted',
      at: now,
      messages,
      ...(keys.length > 0 ? { dedupKeys: keys } : {}),
      ...(input.schedule ? { schedule: input.schedule } : {}),
    }),
  );
  await Promise.all(commits);
  for (const message of messages) reportAccepted(ctx, message, now);
  ctx.engine.admit(messages);
  return { results: messages.map((message) => ({ messageId: message.id, url: message.url })), deduplicated: false, messages };
}

async function send(ctx: ServerContext, request: RouteRequest, queue: string | undefined): Promise<Reply> {
  const { plan, config } = ctx;
  const destination = deliverable(parseDestination(request.rest));
  const now = config.now();
  const settings = readEnqueueSettings(request.req, config.headerPrefix, plan, now);
  const body = await readBody(request.req, plan.max_message_size, () =>
    planLimit(`message size exceeds the max message size of the ${plan.type} plan (${plan.max_message_size} bytes)`),
  );
  const accepted = await accept(ctx, { destination, queue, settings, body, callerIp: callerIpOf(request.req), now });
  return json(answer(destination, accepted));
}

/**
 * `POST /v2/batch`: a JSON array of `{ destination, queue?, headers, body }`. Every item is read
 * and checked before any is accepted, so a bad item leaves nothing half sent.
 */
async function batch(ctx: ServerContext, request: RouteRequest): Promise<Reply> {
  const { plan, config } = ctx;
  const raw = await readBody(request.req, plan.max_message_size * 100, () =>
    planLimit(`batch exceeds ${plan.max_message_size * 100} bytes`),
  );
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
  const callerIp = callerIpOf(request.req);
  const prepared: Acceptance[] = [];
  for (const [index, item] of items.entries()) {
    prepared.push(prepareBatchItem(ctx, item, index, now, callerIp));
    if (index % BATCH_SLICE === BATCH_SLICE - 1) await yieldToOtherRequests();
  }
  const newQueues = new Set(
    prepared.map((input) => input.queue).filter((queue) => queue !== undefined && !ctx.store.state.queues.has(queue)),
  );
  if (ctx.store.state.queues.size + newQueues.size > plan.max_queues) throw queueLimit(ctx);
  const answers: unknown[] = [];
  for (const [index, input] of prepared.entries()) {
    answers.push(answer(input.destination, await accept(ctx, input)));
    if (index % BATCH_SLICE === BATCH_SLICE - 1) await yieldToOtherRequests();
  }
  return json(answers);
}

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Items of a batch handled between two turns of the event loop, so a large batch stalls nobody. */
const BATCH_SLICE = 256;
const yieldToOtherRequests = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function prepareBatchItem(ctx: ServerContext, item: unknown, index: number, now: number, callerIp: string): Acceptance {
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
    if (!HEADER_NAME.test(name)) throw badRequest(`${at}: header name ${JSON.stringify(name)} is not a valid HTTP header name`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw badRequest(
        `${at}: header ${name} must be a string, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
      );
    }
    const text = String(value);
    if (/[\r\n\0]/.test(text)) throw badRequest(`${at}: header ${name} holds a line break or NUL, which no HTTP request can carry`);
    if (/[\u0100-\uffff]/.test(text)) {
      throw badRequest(
        `${at}: header ${name} holds characters outside Latin-1, which no HTTP header can carry; percent-encode or base64 the value`,
      );
    }
    rawHeaders.push(name, text);
  }
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length > ctx.plan.max_message_size) {
    throw planLimit(`${at}: message size exceeds the max message size of the ${ctx.plan.type} plan (${ctx.plan.max_message_size} bytes)`);
  }
  const parsed = deliverable(parseDestination(destination));
  resolveTargets(ctx, parsed);
  const settings = readEnqueueSettings(headerSource(rawHeaders), ctx.config.headerPrefix, ctx.plan, now);
  // Checked with the rest, before any item is accepted.
  refuseStepOfCancelledRun(ctx.store.state, settings);
  return {
    destination: parsed,
    queue: queue === undefined || queue === null ? undefined : readQueue(typeof queue === 'string' ? queue : undefined),
    settings,
    body: bytes,
    callerIp,
    now,
  };
}

export function deliverable(destination: Destination): DeliverableDestination {
  if (destination.kind === 'api') {
    throw badRequest(
      `${destination.name} is not supported by the dev server: the service forwards api/... destinations to an LLM provider with your provider key, which a local emulator cannot. Send to the provider's own URL instead (e.g. https://api.openai.com/v1/chat/completions, its key in a Forward-Authorization header) with a callback for the answer, or try api/... against the real service`,
    );
  }
  return destination;
}

function resolveTargets(ctx: ServerContext, destination: DeliverableDestination): EnqueueTarget[] {
  if (destination.kind === 'url') return [{ url: destination.url }];
  const group = ctx.store.state.groups.get(destination.name);
  if (!group) {
    if (destination.looksLikeHost) throw invalidScheme();
    throw notFound(`topic ${destination.name} not found`);
  }
  return group.endpoints.map((endpoint) => ({
    url: endpoint.url,
    topicName: group.name,
    ...(endpoint.name ? { endpointName: endpoint.name } : {}),
  }));
}

/** A URL destination answers one object; a URL group a bare array, one element per endpoint. */
function answer(destination: Destination, accepted: Accepted): unknown {
  const flag = accepted.deduplicated ? { deduplicated: true } : {};
  if (destination.kind === 'group') return accepted.results.map((result) => ({ messageId: result.messageId, url: result.url, ...flag }));
  const first = accepted.results[0];
  if (!first) throw new Error('an enqueue to a URL produced no message');
  return { messageId: first.messageId, ...flag };
}

function reportAccepted(ctx: ServerContext, message: MessageRecord, now: number): void {
  ctx.events.emit({
    type: 'accepted',
    messageId: message.id,
    kind: message.kind,
    url: message.url,
    ...(message.queue !== undefined ? { queue: message.queue } : {}),
    ...(message.topicName !== undefined ? { topicName: message.topicName } : {}),
    delayMs: Math.max(0, message.notBefore - now),
  });
}

/** 412: one queue more than the plan allows. */
export function queueLimit(ctx: ServerContext): HttpError {
  return planLimit(`the ${ctx.plan.type} plan allows ${ctx.plan.max_queues} queues; delete one or use an existing queue`);
}

export function readQueue(name: string | undefined): string {
  if (name === undefined || !RESOURCE_NAME.test(name)) {
    throw badRequest(`invalid queue name ${JSON.stringify(name ?? '')}: use ${RESOURCE_NAME_RULE}`);
  }
  return name;
}

/** The publisher's address, without the IPv4-mapped IPv6 prefix Node reports on dual-stack sockets. */
export function callerIpOf(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}

/** What content-based deduplication compares (service-facts: destination, body, Content-Type, forwarded headers). */
interface DedupContent {
  destination: string;
  body: Buffer;
  contentType: string | undefined;
  forwardHeaders: Record<string, string>;
}

/**
 * The keys an enqueue is deduplicated by: its `<P>-Deduplication-Id`, and with
 * `<P>-Content-Based-Deduplication: true` a hash of its content. Forwarded headers are sorted so
 * their order does not make two equal messages differ.
 */
function dedupKeys(deduplicationId: string | undefined, contentBased: boolean, content: DedupContent): string[] {
  const keys: string[] = [];
  if (deduplicationId !== undefined) keys.push(`id:${deduplicationId}`);
  if (contentBased) {
    const headers = Object.entries(content.forwardHeaders).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const hash = createHash('sha256')
      .update(JSON.stringify([content.destination, content.body.toString('base64'), content.contentType ?? '', headers]))
      .digest('hex');
    keys.push(`content:${hash}`);
  }
  return keys;
}

/**
 * A second trigger of a run id that already exists is a duplicate of the first, as on the service:
 * the Workflow SDK reads `deduplicated` as "workflow-run-already-exists" and starts nothing.
 */
function existingRun(state: DevState, settings: EnqueueSettings): DedupEntry | undefined {
  const workflow = settings.workflow;
  const run = workflow?.init ? state.runs.get(workflow.runId) : undefined;
  return run && { at: run.createdAt, results: [{ messageId: run.trigger.id, url: run.trigger.url }] };
}

/** A step published for a cancelled run is refused with the 400 the Workflow SDK reads as "the run was cancelled". */
function refuseStepOfCancelledRun(state: DevState, settings: EnqueueSettings): void {
  const workflow = settings.workflow;
  if (!workflow || workflow.init) return;
  if (state.runs.get(workflow.runId)?.state === 'RUN_CANCELED') {
    throw badRequest(`workflow run ${workflow.runId} was cancelled: it takes no more steps`);
  }
}

/** The earlier enqueue one of `keys` matches within the 10-minute window, if any. */
function findDuplicate(state: DevState, keys: readonly string[], now: number): DedupEntry | undefined {
  for (const key of keys) {
    const entry = state.dedup.get(key);
    if (entry && dedupLive(entry.at, now)) return entry;
  }
  return undefined;
}
