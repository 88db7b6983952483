import { headerNames, parseDuration } from '@mailroom/core/protocol';
import { headerValuesFromRaw } from '../state/header-values';
import { badRequest, notFound, readBody, readJsonBody, json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import { callerIpOf } from '../http/sending';
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

/** Delivers the event to every waiter of `eventId` (of one run, when given), answering who got it. */
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
  if (runId !== undefined && waiters.length === 0) throw notFound(`no waiter for event ${eventId} in run ${runId}`);
  return json(answers);
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
  return returnStep(ctx, url, waiter.timeoutHeaders, { ...waiter.step, waitEventId: waiter.eventId, ...result }, callerIp);
}

const WEBHOOK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A call of a run's webhook ends the run's wait for it (`context.waitForWebhook`) with the request as
 * the event; a call before the run waits is kept for its next wait, as the service does.
 */
async function callWebhook(ctx: ServerContext, request: Parameters<Route['handler']>[0]): Promise<Reply> {
  const { userId = '', runId = '', eventId = '' } = request.params;
  const run = ctx.store.state.runs.get(runId);
  // The URL is the webhook's only credential: a wrong user or an ended run is no webhook at all.
  if (userId !== ctx.credentials.userId || run?.state !== 'RUN_STARTED') throw notFound('no such webhook');
  const { req } = request;
  const body = await readBody(req, ctx.plan.max_message_size, () => badRequest('webhook request larger than the max message size'));
  const event = {
    proto: 'http',
    host: req.headers.host ?? '',
    url: req.url ?? '/',
    method: request.method,
    header: headerValuesFromRaw(req.rawHeaders, () => true),
    body: body.toString('base64'),
  };
  const out = Buffer.from(JSON.stringify(event)).toString('base64');
  const waiter = waitersOf(ctx, eventId).find((candidate) => candidate.runId === runId);
  if (waiter) await release(ctx, waiter, { out, waitTimeout: false }, waiter.url, callerIpOf(req));
  else await ctx.store.commit({ type: 'run.event-stored', runId, eventId, dataBase64: out });
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
