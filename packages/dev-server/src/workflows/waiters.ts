import { headerNames, parseDuration } from '@mailroom/core/protocol';
import { headerValuesFromRaw } from '../state/header-values';
import { badRequest, HttpError, notFound, readBody, readJsonBody, json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import { callerIpOf } from '../http/sending';
import { checkUrl } from '../http/enqueue-settings';
import type { WaiterRecord } from '../state/records';
import { returnStep } from './step-results';

// `context.waitForEvent` and `notify`: a run waits for an event id (`POST /v2/wait/{eventId}`) until
// someone notifies it (`POST /v2/notify/...`) or its timeout passes. Either way the run gets its Wait
// step back as a message to the workflow URL: with the event's data, or marked as timed out.

/** `POST /v2/wait/{eventId}`, `POST /v2/notify/{eventId}` and `/v2/notify/{runId}/{eventId}`, `GET /v2/waiters/{eventId}`. */
export function waiterRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/wait/:eventId',
      auth: 'messaging',
      handler: async (request) => addWaiter(ctx, request.params.eventId ?? '', request),
    },
    {
      method: 'POST',
      path: '/v2/notify/:eventId',
      auth: 'messaging',
      handler: (request) => notify(ctx, request.params.eventId ?? '', undefined, request),
    },
    {
      method: 'POST',
      path: '/v2/notify/:runId/:eventId',
      auth: 'messaging',
      handler: (request) => notify(ctx, request.params.eventId ?? '', request.params.runId, request),
    },
    // A webhook (`context.createWebhook`) is called by anyone who has its URL, with any method.
    ...WEBHOOK_METHODS.map(
      (method): Route => ({
        method,
        path: '/v2/workflows/hooks/:userId/:runId/:eventId',
        auth: 'public',
        handler: (request) => callWebhook(ctx, request),
      }),
    ),
    {
      method: 'GET',
      path: '/v2/waiters/:eventId',
      auth: 'messaging',
      handler: ({ params }) => json(waitersOf(ctx, params.eventId ?? '').map(waiterView)),
    },
  ];
}

/** Arms the timeout of every waiter the state holds (at start, after a restart). */
export function armWaiters(ctx: ServerContext): void {
  for (const waiter of ctx.store.state.waiters.values()) arm(ctx, waiter);
}

async function addWaiter(ctx: ServerContext, eventId: string, request: Parameters<Route['handler']>[0]): Promise<Reply> {
  const body = (await readJsonBody(request.req)) as Record<string, unknown> | undefined;
  if (!body || typeof body.url !== 'string' || typeof body.step !== 'object' || body.step === null) {
    throw badRequest('body must be { url, timeout, timeoutUrl, timeoutHeaders, step }');
  }
  // Refused now, like every destination, rather than dropped with an error when the wait ends.
  checkUrl(body.url, 'wait');
  if (body.timeoutUrl !== undefined) {
    if (typeof body.timeoutUrl !== 'string') throw badRequest('timeoutUrl must be a URL string');
    checkUrl(body.timeoutUrl, 'wait timeout');
  }
  const runId = String(request.req.headers[headerNames(ctx.config.headerPrefix).workflowRunId.toLowerCase()] ?? '');
  const now = ctx.config.now();
  const timeoutSeconds = readTimeout(body.timeout);
  const waiter: WaiterRecord = {
    id: `${runId}:${eventId}:${(body.step as { stepId?: unknown }).stepId ?? ''}`,
    eventId,
    runId,
    url: body.url,
    timeoutUrl: typeof body.timeoutUrl === 'string' ? body.timeoutUrl : body.url,
    timeoutHeaders: (body.timeoutHeaders ?? {}) as Record<string, string[]>,
    step: body.step as Record<string, unknown>,
    timeout: typeof body.timeout === 'string' && body.timeout.trim() !== '' ? body.timeout.trim() : `${timeoutSeconds}s`,
    createdAt: now,
    // A wait like every other: scaled, and on the real clock the server shows.
    deadline: now + timeoutSeconds * 1000 * ctx.config.timeScale,
  };
  await ctx.store.commit({ type: 'waiter.added', waiter });
  // A webhook called before the run waited for it: the wait ends at once with that call.
  const early = ctx.store.state.runs.get(runId)?.earlyEvents?.[eventId]?.[0];
  if (early !== undefined) {
    await ctx.store.commit({ type: 'run.event-taken', runId, eventId });
    await release(ctx, waiter, { out: early, waitTimeout: false }, waiter.url, callerIpOf(request.req));
  } else {
    arm(ctx, waiter);
  }
  return json({});
}

function readTimeout(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (typeof value === 'string' && value.trim() !== '') {
    const text = value.trim();
    if (/^\d+$/.test(text)) return Number(text);
    try {
      return parseDuration('timeout', text);
    } catch (error) {
      throw badRequest(`invalid timeout ${JSON.stringify(value)}: ${(error as Error).message}`);
    }
  }
  // The SDK's default: seven days.
  return 7 * 24 * 3600;
}

/**
 * Delivers the event to every waiter of `eventId` (of one run, when given), answering who got it.
 * Naming the run turns on lookback: when that run does not wait for the event yet, the event is kept
 * for its next wait for it (answered as no waiter notified).
 */
async function notify(
  ctx: ServerContext,
  eventId: string,
  runId: string | undefined,
  request: Parameters<Route['handler']>[0],
): Promise<Reply> {
  const data = await readBody(request.req, ctx.plan.max_message_size, () => badRequest('event data larger than the max message size'));
  const waiters = waitersOf(ctx, eventId).filter((waiter) => runId === undefined || waiter.runId === runId);
  const answers: unknown[] = [];
  for (const waiter of waiters) {
    const messageId = await release(ctx, waiter, { out: data.toString('base64'), waitTimeout: false }, waiter.url, callerIpOf(request.req));
    answers.push({ waiter: waiterView(waiter), messageId, error: '' });
  }
  if (runId !== undefined && waiters.length === 0) {
    const run = ctx.store.state.runs.get(runId);
    if (run?.state !== 'RUN_STARTED') throw notFound(`workflow run ${runId} not found or already ended`);
    await storeEarlyEvent(ctx, runId, eventId, data.toString('base64'));
  }
  return json(answers);
}

/** What one run may hold of events that came before it waited (a bound against a flood of early calls). */
const EARLY_EVENTS_PER_RUN = 64;
const EARLY_EVENT_BYTES_PER_RUN = 4 * 1024 * 1024;

/** Keeps an event for the run's next wait for it, within the run's bound (429 past it). */
async function storeEarlyEvent(ctx: ServerContext, runId: string, eventId: string, dataBase64: string): Promise<void> {
  const stored = Object.values(ctx.store.state.runs.get(runId)?.earlyEvents ?? {}).flat();
  const bytes = stored.reduce((sum, data) => sum + data.length, dataBase64.length);
  if (stored.length >= EARLY_EVENTS_PER_RUN || bytes > (EARLY_EVENT_BYTES_PER_RUN * 4) / 3) {
    throw new HttpError(
      429,
      `workflow run ${runId} already holds ${stored.length} events it has not waited for yet (at most ${EARLY_EVENTS_PER_RUN}, ${EARLY_EVENT_BYTES_PER_RUN / 1048576} MiB); try again once it waits for them`,
      { 'Retry-After': '60' },
    );
  }
  await ctx.store.commit({ type: 'run.event-stored', runId, eventId, dataBase64 });
}

/** Ends a wait: the waiter leaves, and its step goes back to the run with the event or the timeout. */
async function release(
  ctx: ServerContext,
  waiter: WaiterRecord,
  result: Record<string, unknown>,
  url: string,
  callerIp: string,
): Promise<string> {
  ctx.engine.cancelTimer(timerKey(waiter));
  await ctx.store.commit({ type: 'waiter.removed', id: waiter.id });
  // The step as the run logs show it: what it waited for, and until when.
  const wait = {
    waitEventId: waiter.eventId,
    waitTimeoutDuration: waiter.timeout,
    waitTimeoutDeadline: Math.floor(waiter.deadline / 1000),
  };
  return returnStep(ctx, url, waiter.timeoutHeaders, { ...waiter.step, ...wait, ...result }, callerIp);
}

const WEBHOOK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A call of a run's webhook ends the run's wait for it (`context.waitForWebhook`) with the request as
 * the event; a call before the run waits is kept for its next wait, as the service does. Only the
 * exact URL one of the run's `createWebhook` steps issued is a webhook: the event id in it is the
 * URL's only secret, so anything else (another event id, a wrong user, an ended run) is the same 404.
 */
async function callWebhook(ctx: ServerContext, request: Parameters<Route['handler']>[0]): Promise<Reply> {
  const { userId = '', runId = '', eventId = '' } = request.params;
  const run = ctx.store.state.runs.get(runId);
  if (userId !== ctx.credentials.userId || run?.state !== 'RUN_STARTED' || !run.webhooks?.includes(eventId)) {
    throw notFound('no such webhook');
  }
  const { req } = request;
  const body = await readBody(
    req,
    ctx.plan.max_message_size,
    () => new HttpError(413, `webhook request larger than the max message size (${ctx.plan.max_message_size} bytes)`),
  );
  const event = {
    proto: 'http',
    // Checked by the request guard: a host name or address and an optional numeric port.
    host: req.headers.host ?? '',
    url: req.url ?? '/',
    method: request.method,
    header: headerValuesFromRaw(req.rawHeaders, () => true),
    body: body.toString('base64'),
  };
  const out = Buffer.from(JSON.stringify(event)).toString('base64');
  const waiter = waitersOf(ctx, eventId).find((candidate) => candidate.runId === runId && candidate.step.stepType === 'WaitForWebhook');
  if (waiter) await release(ctx, waiter, { out, waitTimeout: false }, waiter.url, callerIpOf(req));
  else await storeEarlyEvent(ctx, runId, eventId, out);
  return json({});
}

function arm(ctx: ServerContext, waiter: WaiterRecord): void {
  ctx.engine.timer(timerKey(waiter), waiter.deadline, () => {
    const live = ctx.store.state.waiters.get(waiter.id);
    if (!live) return;
    release(ctx, live, { waitTimeout: true }, live.timeoutUrl, '127.0.0.1').catch((error: unknown) =>
      ctx.events.emit({ type: 'error', message: `wait for ${live.eventId} could not time out: ${String(error)}` }),
    );
  });
}

const timerKey = (waiter: WaiterRecord): string => `waiter:${waiter.id}`;

/** Ends every wait of a run without giving it back (the run was cancelled). */
export async function dropWaiters(ctx: ServerContext, runId: string): Promise<void> {
  for (const waiter of [...ctx.store.state.waiters.values()]) {
    if (waiter.runId !== runId) continue;
    ctx.engine.cancelTimer(timerKey(waiter));
    await ctx.store.commit({ type: 'waiter.removed', id: waiter.id });
  }
}

function waitersOf(ctx: ServerContext, eventId: string): WaiterRecord[] {
  return [...ctx.store.state.waiters.values()].filter((waiter) => waiter.eventId === eventId);
}

function waiterView(waiter: WaiterRecord): Record<string, unknown> {
  return {
    url: waiter.url,
    deadline: Math.floor(waiter.deadline / 1000),
    headers: waiter.timeoutHeaders,
    timeoutUrl: waiter.timeoutUrl,
    timeoutHeaders: waiter.timeoutHeaders,
  };
}
