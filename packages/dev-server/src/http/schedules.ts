import { headerNames, parseCron } from '@mailroom/core/internal-protocol';
import { randomHex } from '../ids';
import { type Route, type RouteRequest, empty, json, type Reply } from './router';
import type { Service } from '../service';
import type { ScheduleRecord } from '../state/records';
import { parseDestination } from '../engine/enqueue-target';
import { readEnqueueSettings } from '../engine/enqueue-settings';
import { resourceName, badRequest, notFound, planLimit } from '../errors';
import { deliveredHeaderValues, headerSource } from '../state/header-values';
import { deliverable } from '../engine/acceptance';
import { bodyFields, flowFields, labelFields, redacted, redactHeaders } from './views';

// Schedules: `POST /v2/schedules/{destination}` with `<P>-Cron` (and `<P>-Schedule-Id` to replace
// one), listing, pause, resume, delete; and each firing, which is a publish of the stored request.

// Never stored: the token must not reach a listing; the rest belong to the hop.
const NOT_STORED = new Set(['authorization', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export function scheduleRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/schedules/*',
      auth: 'messaging',
      readOnly: 'refuse',
      query: 'not-read',
      sends: true,
      handler: (request) => create(service, request),
    },
    {
      method: 'GET',
      path: '/v2/schedules',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: () => json([...service.store.state.schedules.values()].map((s) => view(service, s))),
    },
    {
      method: 'GET',
      path: '/v2/schedules/:id',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => json(view(service, existing(service, request.params.id))),
    },
    {
      method: 'DELETE',
      path: '/v2/schedules/:id',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async (request) => {
        const schedule = existing(service, request.params.id);
        await service.store.commit({ type: 'schedule.updated', id: schedule.scheduleId, schedule: null });
        service.scheduler.disarm(schedule.scheduleId);
        return empty();
      },
    },
    {
      method: 'PATCH',
      path: '/v2/schedules/:id/pause',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => setPaused(service, request.params.id, true),
    },
    {
      method: 'PATCH',
      path: '/v2/schedules/:id/resume',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: (request) => setPaused(service, request.params.id, false),
    },
  ];
}

async function create(service: Service, request: RouteRequest): Promise<Reply> {
  const names = headerNames(service.config.headerPrefix);
  const get = (name: string): string | undefined => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(', ') : value?.trim();
  };
  const cron = get(names.cron);
  if (!cron) throw badRequest(`${names.cron} header is required, e.g. "*/5 * * * *"`);
  try {
    parseCron(cron);
  } catch (error) {
    // ValidationError says `cron: ...`: the header's name says which.
    throw badRequest(`invalid ${names.cron} header: ${(error as Error).message.replace(/^cron: /, '')}`);
  }
  deliverable(parseDestination(request.rest));
  const queue = get(names.queueName);
  if (queue) resourceName('queue name', queue);
  const chosen = get(names.scheduleId);
  if (chosen !== undefined) resourceName(names.scheduleId, chosen);
  const now = service.config.now();
  // Checked now so a broken schedule is refused here rather than failing at every firing.
  readEnqueueSettings(request, service.config.headerPrefix, service.plan, now);
  const body = await request.body(service.plan.max_message_size, () =>
    planLimit(`message size exceeds the max message size of the ${service.plan.type} plan (${service.plan.max_message_size} bytes)`),
  );
  const current = chosen === undefined ? undefined : service.store.state.schedules.get(chosen);
  if (!current && service.store.state.schedules.size >= service.plan.max_schedules) {
    throw planLimit(`the ${service.plan.type} plan allows ${service.plan.max_schedules} schedules; delete one or replace it by its id`);
  }
  const scheduleId = chosen ?? `scd_${randomHex(12)}`;
  const rawHeaders: string[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = request.rawHeaders[index]!;
    if (!NOT_STORED.has(name.toLowerCase())) rawHeaders.push(name, request.rawHeaders[index + 1]!);
  }
  const schedule: ScheduleRecord = {
    scheduleId,
    cron,
    destination: request.rest,
    rawHeaders,
    bodyBase64: body.toString('base64'),
    callerIp: request.callerIp,
    paused: false,
    createdAt: current?.createdAt ?? now,
  };
  await service.store.commit({ type: 'schedule.updated', id: scheduleId, schedule });
  service.scheduler.arm(schedule);
  return json({ scheduleId });
}

async function setPaused(service: Service, id: string | undefined, paused: boolean): Promise<Reply> {
  const current = existing(service, id);
  const schedule = { ...current, paused };
  await service.store.commit({ type: 'schedule.updated', id: current.scheduleId, schedule });
  if (paused) service.scheduler.disarm(current.scheduleId);
  else service.scheduler.arm(schedule);
  return empty();
}

function existing(service: Service, id: string | undefined): ScheduleRecord {
  const schedule = service.store.state.schedules.get(id ?? '');
  if (!schedule) throw notFound(`schedule ${id ?? ''} not found`);
  return schedule;
}

/** A schedule as the service lists it, its delivery settings read back from the stored headers. */
function view(service: Service, schedule: ScheduleRecord): Record<string, unknown> {
  const now = service.config.now();
  const source = headerSource(schedule.rawHeaders);
  const settings = readEnqueueSettings(source, service.config.headerPrefix, service.plan, now);
  const names = headerNames(service.config.headerPrefix);
  const queue = source.headers[names.queueName.toLowerCase()];
  const next = service.scheduler.nextFiring(schedule);
  return {
    scheduleId: schedule.scheduleId,
    cron: schedule.cron,
    createdAt: schedule.createdAt,
    destination: safeDecode(schedule.destination),
    method: settings.method,
    header: redactHeaders(deliveredHeaderValues(settings.contentType, settings.forwardHeaders), settings.redact),
    ...(schedule.bodyBase64 === ''
      ? {}
      : settings.redact?.body
        ? { body: redacted(Buffer.from(schedule.bodyBase64, 'base64')) }
        : bodyFields('body', schedule.bodyBase64)),
    retries: settings.maxRetries,
    delay: Math.max(0, Math.round((settings.notBefore - now) / 1000)),
    ...(settings.retryDelay !== undefined ? { retryDelayExpression: settings.retryDelay } : {}),
    ...(settings.callback ? { callback: settings.callback.url } : {}),
    ...(settings.failureCallback ? { failureCallback: settings.failureCallback.url } : {}),
    callerIp: schedule.callerIp,
    isPaused: schedule.paused,
    ...(typeof queue === 'string' && queue !== '' ? { queueName: queue } : {}),
    ...flowFields(settings.flowControl),
    ...labelFields(settings.label),
    ...(schedule.lastScheduleTime !== undefined ? { lastScheduleTime: schedule.lastScheduleTime } : {}),
    ...(next !== undefined ? { nextScheduleTime: next } : {}),
    ...(schedule.lastScheduleStates ? { lastScheduleStates: schedule.lastScheduleStates } : {}),
  };
}

function safeDecode(value: string): string {
  try {
    return /^https?%3A/i.test(value) ? decodeURIComponent(value) : value;
  } catch {
    return value;
  }
}
