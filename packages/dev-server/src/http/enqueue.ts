import type { IncomingMessage } from 'node:http';
import { dedupKeys, findDuplicate } from '../engine/deduplication';
import type { ServerContext } from '../server-context';
import type { DedupResult, MessageRecord } from '../state/records';
import { parseDestination, invalidScheme, type Destination } from './destination';
import { enqueueMessage, type EnqueueTarget } from './enqueue-message';
import { readEnqueueSettings } from './enqueue-settings';
import { badRequest, notFound, planLimit } from './http-error';
import { readBody } from './read-body';
import { json, type Reply } from './reply';
import type { Route, RouteRequest } from './router';

const QUEUE_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * `POST /v2/enqueue/{queue}/{destination}` (spec endpoint 8), and `POST /v2/publish/{destination}`
 * for messages outside any queue (delivered concurrently up to the plan's global parallelism).
 */
export function enqueueRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/enqueue/:queue/*',
      auth: 'messaging',
      handler: (request) => enqueue(ctx, request, readQueue(request.params.queue)),
    },
    { method: 'POST', path: '/v2/publish/*', auth: 'messaging', handler: (request) => enqueue(ctx, request, undefined) },
  ];
}

async function enqueue(ctx: ServerContext, request: RouteRequest, queue: string | undefined): Promise<Reply> {
  const { store, plan, config } = ctx;
  const destination = parseDestination(request.rest);
  if (destination.kind === 'api') {
    throw badRequest(`${destination.name} is not supported by the dev server: it delivers to URLs and URL groups only`);
  }
  const now = config.now();
  const settings = readEnqueueSettings(request.req, config.headerPrefix, plan, now);
  const body = await readBody(request.req, plan.max_message_size, () =>
    planLimit(`message size exceeds the max message size of the ${plan.type} plan (${plan.max_message_size} bytes)`),
  );
  // From here to the commit nothing awaits: the duplicate check and the acceptance are one step.
  const targets = resolveTargets(ctx, destination);
  const keys = dedupKeys(settings.deduplicationId, settings.contentBasedDeduplication, {
    destination: destination.kind === 'url' ? destination.url : destination.name,
    body,
    contentType: settings.contentType,
    forwardHeaders: settings.forwardHeaders,
  });
  const duplicate = findDuplicate(store.state, keys, now);
  if (duplicate) {
    for (const result of duplicate.results) ctx.events.emit({ type: 'deduplicated', messageId: result.messageId, url: result.url });
    return answer(destination, duplicate.results, true);
  }
  const callerIp = callerIpOf(request.req);
  const messages = targets.map((target, index) =>
    enqueueMessage({ settings, target, queue, body, seq: store.state.nextSeq + index, now, callerIp, timeScale: config.timeScale }),
  );
  await store.commit({ type: 'messages.accepted', at: now, messages, ...(keys.length > 0 ? { dedupKeys: keys } : {}) });
  for (const message of messages) reportAccepted(ctx, message, now);
  ctx.engine.admit(messages);
  return answer(
    destination,
    messages.map((message) => ({ messageId: message.id, url: message.url })),
    false,
  );
}

function resolveTargets(ctx: ServerContext, destination: Exclude<Destination, { kind: 'api' }>): EnqueueTarget[] {
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
function answer(destination: Destination, results: readonly DedupResult[], deduplicated: boolean): Reply {
  const flag = deduplicated ? { deduplicated: true } : {};
  if (destination.kind === 'group') return json(results.map((result) => ({ messageId: result.messageId, url: result.url, ...flag })));
  const first = results[0];
  if (!first) throw new Error('an enqueue to a URL produced no message');
  return json({ messageId: first.messageId, ...flag });
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

function readQueue(name: string | undefined): string {
  if (name === undefined || !QUEUE_NAME.test(name)) {
    throw badRequest(`invalid queue name ${JSON.stringify(name ?? '')}: use letters, digits, "-", "_" and "." only`);
  }
  return name;
}

/** The publisher's address, without the IPv4-mapped IPv6 prefix Node reports on dual-stack sockets. */
function callerIpOf(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
}
