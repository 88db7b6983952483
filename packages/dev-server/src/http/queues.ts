import { type Route, type RouteRequest, readJson, empty, json, type Reply } from './router';
import type { FlowKeyRecord, QueueRecord } from '../state/records';
import { badRequest, notFound, resourceName } from '../errors';
import { queueLimit } from '../engine/acceptance';
import type { Filters } from './filters';
import type { Service } from '../service';

// How fast messages go out: queues (parallelism, pause/resume, delete) and flow-control keys (their
// limits and counters, pause/resume, pin/unpin, resetRate), and the account's global parallelism.

export function queueRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/queues',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => upsert(service, request),
    },
    {
      method: 'GET',
      path: '/v2/queues',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => {
        const queues = [...service.store.state.queues.values()];
        const lags = queues.length === 0 ? new Map<string, number>() : service.store.state.pending.countPerQueue();
        return json(queues.map((queue) => queueView(queue, lags.get(queue.name) ?? 0)));
      },
    },
    {
      method: 'GET',
      path: '/v2/queues/:name',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => {
        const queue = existingQueue(service, request.params.name);
        return json(queueView(queue, service.store.state.pending.countPerQueue().get(queue.name) ?? 0));
      },
    },
    {
      method: 'DELETE',
      path: '/v2/queues/:name',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => deleteQueue(service, request.params.name),
    },
    {
      method: 'POST',
      path: '/v2/queues/:name/pause',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => setPaused(service, request.params.name, true),
    },
    {
      method: 'POST',
      path: '/v2/queues/:name/resume',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => setPaused(service, request.params.name, false),
    },
    {
      method: 'GET',
      path: '/v2/flowControl',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => json(flowKeys(service).map((key) => flowView(service, key))),
    },
    {
      method: 'GET',
      path: '/v2/flowControl/:key',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => json(flowView(service, knownKey(service, request.params.key))),
    },
    {
      method: 'POST',
      path: '/v2/flowControl/:key/:action',
      auth: 'messaging',
      readOnly: 'refuse',
      // A pin's settings, an unpin's choices: not filters, so never read from a body.
      query: ['parallelism', 'rate', 'period'],
      body: 'payload',
      handler: (request) => changeFlow(service, request),
    },
    {
      method: 'GET',
      path: '/v2/globalParallelism',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => json({ parallelismMax: service.plan.max_global_parallelism, parallelismCount: service.engine.inFlight() }),
    },
  ];
}

/** `POST /v2/queues` `{ queueName, parallelism?, paused? }`: creates or updates. */
async function upsert(service: Service, request: RouteRequest): Promise<Reply> {
  const body = await readJson(request);
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('body must be {"queueName": "...", "parallelism": n}');
  const { parallelism, paused } = body as Record<string, unknown>;
  const queueName = resourceName('queueName', (body as Record<string, unknown>).queueName);
  if (parallelism !== undefined && (!Number.isSafeInteger(parallelism) || (parallelism as number) < 1)) {
    throw badRequest(`invalid parallelism ${JSON.stringify(parallelism)}: expected a whole number >= 1`);
  }
  if (paused !== undefined && typeof paused !== 'boolean')
    throw badRequest(`invalid paused ${JSON.stringify(paused)}: expected true or false`);
  const now = service.config.now();
  const current = service.store.state.queues.get(queueName);
  if (!current && service.store.state.queues.size >= service.plan.max_queues) throw queueLimit(service.plan);
  const queue: QueueRecord = {
    name: queueName,
    parallelism: (parallelism as number | undefined) ?? 1,
    paused: (paused as boolean | undefined) ?? false,
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
  };
  await service.store.commit({ type: 'queue.updated', name: queueName, queue });
  service.engine.refresh();
  return empty();
}

async function setPaused(service: Service, name: string | undefined, paused: boolean): Promise<Reply> {
  const current = existingQueue(service, name);
  await service.store.commit({ type: 'queue.updated', name: current.name, queue: { ...current, paused, updatedAt: service.config.now() } });
  service.engine.refresh();
  return empty();
}

/** Deleting a queue cancels the messages still waiting on it (logged `CANCELED`), as the service does. */
async function deleteQueue(service: Service, name: string | undefined): Promise<Reply> {
  const current = existingQueue(service, name);
  const waiting = service.store.state.pending.heldIdsWhere((record) => record.queue === current.name);
  await service.actions.cancelMessages(waiting);
  await service.store.commit({ type: 'queue.updated', name: current.name, queue: null });
  return empty();
}

function existingQueue(service: Service, name: string | undefined): QueueRecord {
  const queue = service.store.state.queues.get(name ?? '');
  if (!queue) throw notFound(`queue ${name ?? ''} not found`);
  return queue;
}

function queueView(queue: QueueRecord, lag: number): Record<string, unknown> {
  return {
    name: queue.name,
    parallelism: queue.parallelism,
    lag,
    paused: queue.paused,
    createdAt: queue.createdAt,
    updatedAt: queue.updatedAt,
  };
}

/** Every key a message or a setting has used. */
function flowKeys(service: Service): string[] {
  return [...new Set([...service.store.state.flowKeys.keys(), ...service.engine.flowKeys()])].sort();
}

function knownKey(service: Service, given: string | undefined): string {
  const key = resourceName('flow-control key', given);
  if (!service.engine.flow(key).known) throw notFound(`flow control key ${key} not found`);
  return key;
}

function flowView(service: Service, key: string): Record<string, unknown> {
  const { limits, counters } = service.engine.flow(key);
  const setting = service.store.state.flowKeys.get(key);
  const scale = service.config.timeScale > 0 ? service.config.timeScale : 1;
  return {
    flowControlKey: key,
    waitListSize: counters.waiting,
    parallelismMax: limits.parallelism ?? 0,
    parallelismCount: counters.running,
    rateMax: limits.rate ?? 0,
    rateCount: counters.windowCount,
    ratePeriod: Math.round(limits.periodMs / 1000 / scale),
    ratePeriodStart: counters.windowStart,
    isPaused: limits.paused,
    isPinnedParallelism: setting?.pinned.parallelism !== undefined,
    isPinnedRate: setting?.pinned.rate !== undefined,
  };
}

/** `POST /v2/flowControl/{key}/pause | resume | pin | unpin | resetRate`. */
async function changeFlow(service: Service, request: RouteRequest): Promise<Reply> {
  const key = request.params.key ?? '';
  resourceName('flow-control key', key);
  const current: FlowKeyRecord = service.store.state.flowKeys.get(key) ?? { key, paused: false, pinned: {} };
  const action = request.params.action;
  let next: FlowKeyRecord;
  if (action === 'pause' || action === 'resume') next = { ...current, paused: action === 'pause' };
  else if (action === 'pin') next = { ...current, pinned: { ...current.pinned, ...readPin(request.query) } };
  else if (action === 'unpin') next = { ...current, pinned: readUnpin(request.query, current.pinned) };
  else if (action === 'resetRate') {
    service.engine.resetRate(key);
    return empty();
  } else throw notFound(`no such endpoint: POST /v2/flowControl/${key}/${action ?? ''}`);
  await service.store.commit({ type: 'flow.updated', key, flow: next });
  service.engine.refresh();
  return empty();
}

function readPin(query: Filters): FlowKeyRecord['pinned'] {
  const pinned: FlowKeyRecord['pinned'] = {};
  for (const [name, field] of [
    ['parallelism', 'parallelism'],
    ['rate', 'rate'],
    ['period', 'periodSeconds'],
  ] as const) {
    const value = query.get(name);
    if (value === null) continue;
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw badRequest(`invalid ${name} ${JSON.stringify(value)}: expected a whole number >= 1`);
    pinned[field] = Number(value);
  }
  if (Object.keys(pinned).length === 0) throw badRequest('pin needs parallelism, rate and/or period');
  return pinned;
}

function readUnpin(query: Filters, pinned: FlowKeyRecord['pinned']): FlowKeyRecord['pinned'] {
  const next = { ...pinned };
  if (query.get('parallelism') === 'true') delete next.parallelism;
  if (query.get('rate') === 'true') {
    delete next.rate;
    delete next.periodSeconds;
  }
  return next;
}
