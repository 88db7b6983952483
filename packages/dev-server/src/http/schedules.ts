import { headerNames, parseCron, RESOURCE_NAME, RESOURCE_NAME_RULE } from '@mailroom/core/protocol';
import { randomHex } from '../ids';
import type { ServerContext, Route, RouteRequest } from './router';
import type { ScheduleRecord } from '../state/records';
import { parseDestination } from './enqueue-target';
import { readEnqueueSettings } from './enqueue-settings';
import { deliveredHeaderValues, headerSource } from '../state/header-values';
import { badRequest, notFound, planLimit, readBody, empty, json, type Reply } from './exchange';
import { accept, callerIpOf, deliverable, readQueue } from './sending';
import { bodyFields, flowFields, labelFields, redacted, redactHeaders } from './views';

// Schedules: `POST /v2/schedules/{destination}` with `<P>-Cron` (and `<P>-Schedule-Id` to replace
// one), listing, pause, resume, delete; and each firing, which is a publish of the stored request.

// Never stored: the token must not reach a listing; the rest belong to the hop.
const NOT_STORED = new Set(['authorization', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export function scheduleRoutes(ctx: ServerContext): Route[] {
  return [
    { method: 'POST', path: '/v2/schedules/*', auth: 'messaging', handler: (request) => create(ctx, request) },
    {
      method: 'GET',
      path: '/v2/schedules',
      auth: 'messaging',
      handler: () => json([...ctx.store.state.schedules.values()].map((s) => view(ctx, s))),
    },
    {
      method: 'GET',
      path: '/v2/schedules/:id',
      auth: 'messaging',
      handler: (request) => json(view(ctx, existing(ctx, request.params.id))),
    },
    {
      method: 'DELETE',
      path: '/v2/schedules/:id',
      auth: 'messaging',
      handler: async (request) => {
        const schedule = existing(ctx, request.params.id);
        await ctx.store.commit({ type: 'schedule.updated', id: schedule.scheduleId, schedule: null });
        ctx.scheduler.disarm(schedule.scheduleId);
        return empty();
      },
    },
    { method: 'PATCH', path: '/v2/schedules/:id/pause', auth: 'messaging', handler: (request) => setPaused(ctx, request.params.id, true) },
    {
      method: 'PATCH',
      path: '/v2/schedules/:id/resume',
      auth: 'messaging',
      handler: (request) => setPaused(ctx, request.params.id, false),
    },
  ];
}

async function create(ctx: ServerContext, request: RouteRequest): Promise<Reply> {
  const names = headerNames(ctx.config.headerPrefix);
  const get = (name: string): string | undefined => {
    const value = request.req.headers[name.toLowerCase()];
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
  if (queue) readQueue(queue);
  const chosen = get(names.scheduleId);
  if (chosen !== undefined && !RESOURCE_NAME.test(chosen)) {
    throw badRequest(`invalid ${names.scheduleId} ${JSON.stringify(chosen)}: use ${RESOURCE_NAME_RULE}`);
  }
  const now = ctx.config.now();
  // Checked now so a broken schedule is refused here rather than failing at every firing.
  readEnqueueSettings(request.req, ctx.config.headerPrefix, ctx.plan, now);
  const body = await readBody(request.req, ctx.plan.max_message_size, () =>
    planLimit(`message size exceeds the max message size of the ${ctx.plan.type} plan (${ctx.plan.max_message_size} bytes)`),
  );
  const current = chosen === undefined ? undefined : ctx.store.state.schedules.get(chosen);
  if (!current && ctx.store.state.schedules.size >= ctx.plan.max_schedules) {
    throw planLimit(`the ${ctx.plan.type} plan allows ${ctx.plan.max_schedules} schedules; delete one or replace it by its id`);
  }
  const scheduleId = chosen ?? `scd_${randomHex(12)}`;
  const rawHeaders: string[] = [];
  for (let index = 0; index + 1 < request.req.rawHeaders.length; index += 2) {
    const name = request.req.rawHeaders[index]!;
    if (!NOT_STORED.has(name.toLowerCase())) rawHeaders.push(name, request.req.rawHeaders[index + 1]!);
  }
  const schedule: ScheduleRecord = {
    scheduleId,
    cron,
    destination: request.rest,
    rawHeaders,
    bodyBase64: body.toString('base64'),
    callerIp: callerIpOf(request.req),
    paused: false,
    createdAt: current?.createdAt ?? now,
  };
  await ctx.store.commit({ type: 'schedule.updated', id: scheduleId, schedule });
  ctx.scheduler.arm(schedule);
  return json({ scheduleId });
}

/** One firing: the stored request read again as a publish (or enqueue on its queue), `time` its cron time. */
export async function fireSchedule(ctx: ServerContext, schedule: ScheduleRecord, time: number): Promise<void> {
  const names = headerNames(ctx.config.headerPrefix);
  const source = headerSource(schedule.rawHeaders);
  const queueHeader = source.headers[names.queueName.toLowerCase()];
  const queue = typeof queueHeader === 'string' && queueHeader.trim() !== '' ? queueHeader.trim() : undefined;
  const now = ctx.config.now();
  await accept(ctx, {
    destination: deliverable(parseDestination(schedule.destination)),
    queue,
    settings: readEnqueueSettings(source, ctx.config.headerPrefix, ctx.plan, now),
    body: Buffer.from(schedule.bodyBase64, 'base64'),
    callerIp: schedule.callerIp,
    now,
    schedule: { id: schedule.scheduleId, time },
  });
}

async function setPaused(ctx: ServerContext, id: string | undefined, paused: boolean): Promise<Reply> {
  const current = existing(ctx, id);
  const schedule = { ...current, paused };
  await ctx.store.commit({ type: 'schedule.updated', id: current.scheduleId, schedule });
  if (paused) ctx.scheduler.disarm(current.scheduleId);
  else ctx.scheduler.arm(schedule);
  return empty();
}

function existing(ctx: ServerContext, id: string | undefined): ScheduleRecord {
  const schedule = ctx.store.state.schedules.get(id ?? '');
  if (!schedule) throw notFound(`schedule ${id ?? ''} not found`);
  return schedule;
}

/** A schedule as the service lists it, its delivery settings read back from the stored headers. */
function view(ctx: ServerContext, schedule: ScheduleRecord): Record<string, unknown> {
  const now = ctx.config.now();
  const source = headerSource(schedule.rawHeaders);
  const settings = readEnqueueSettings(source, ctx.config.headerPrefix, ctx.plan, now);
  const names = headerNames(ctx.config.headerPrefix);
  const queue = source.headers[names.queueName.toLowerCase()];
  const next = ctx.scheduler.nextFiring(schedule);
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
