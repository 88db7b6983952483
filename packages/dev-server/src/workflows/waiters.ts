import { headerNames, parseDuration } from '@mailroom/core/internal-protocol';
import { checkUrl, badRequest, notFound, ServiceError } from '../errors';
import { json, type Reply, readJson, type Route, type RouteRequest } from '../http/router';
import type { Service } from '../service';
import { headerValuesFromRaw } from '../state/header-values';
import type { WaiterRecord } from '../state/records';

// `context.waitForEvent` and `notify`: a run waits for an event id (`POST /v2/wait/{eventId}`) until
// someone notifies it (`POST /v2/notify/...`) or its timeout passes. Either way the run gets its Wait
// step back as a message to the workflow URL: with the event's data, or marked as timed out.

/** `POST /v2/wait/{eventId}`, `POST /v2/notify/{eventId}` and `/v2/notify/{runId}/{eventId}`, `GET /v2/waiters/{eventId}`. */
export function waiterRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/wait/:eventId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      handler: async (request) => addWaiter(service, request.params.eventId ?? '', request),
    },
    {
      method: 'POST',
      path: '/v2/notify/:eventId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      handler: (request) => notify(service, request.params.eventId ?? '', undefined, request),
    },
    {
      method: 'POST',
      path: '/v2/notify/:runId/:eventId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      handler: (request) => notify(service, request.params.eventId ?? '', request.params.runId, request),
    },
    // A webhook (`context.createWebhook`) is called by anyone who has its URL, with any method.
    ...WEBHOOK_METHODS.map(
      (method): Route => ({
        method,
        path: '/v2/workflows/hooks/:userId/:runId/:eventId',
        auth: 'public',
        readOnly: 'refuse',
        // The caller's own query, whatever it is: the run reads the call as it came.
        query: 'not-read',
        handler: (request) => callWebhook(service, request),
      }),
    ),
    {
      method: 'GET',
      path: '/v2/waiters/:eventId',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: ({ params }) => json(service.waits.waitersOf(params.eventId ?? '').map(waiterView)),
    },
  ];
}

async function addWaiter(service: Service, eventId: string, request: RouteRequest): Promise<Reply> {
  const body = (await readJson(request)) as Record<string, unknown> | undefined;
  if (!body || typeof body.url !== 'string' || typeof body.step !== 'object' || body.step === null) {
    throw badRequest('body must be { url, timeout, timeoutUrl, timeoutHeaders, step }');
  }
  // Refused now, like every destination, rather than dropped with an error when the wait ends.
  checkUrl(body.url, 'wait');
  if (body.timeoutUrl !== undefined) {
    if (typeof body.timeoutUrl !== 'string') throw badRequest('timeoutUrl must be a URL string');
    checkUrl(body.timeoutUrl, 'wait timeout');
  }
  const runId = String(request.headers[headerNames(service.config.headerPrefix).workflowRunId.toLowerCase()] ?? '');
  const now = service.config.now();
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
    deadline: now + timeoutSeconds * 1000 * service.config.timeScale,
  };
  await service.waits.add(waiter, request.callerIp);
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

/** `notify`, with the run id for lookback: answers the waiters it reached. */
async function notify(service: Service, eventId: string, runId: string | undefined, request: RouteRequest): Promise<Reply> {
  const data = await request.body(service.plan.max_message_size, () => badRequest('event data larger than the max message size'));
  const notified = await service.waits.notify(eventId, runId, data.toString('base64'), request.callerIp);
  return json(notified.map(({ waiter, messageId }) => ({ waiter: waiterView(waiter), messageId, error: '' })));
}

const WEBHOOK_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A call of a run's webhook ends the run's wait for it (`context.waitForWebhook`) with the request as
 * the event; a call before the run waits is kept for its next wait, as the service does. Only the
 * exact URL one of the run's `createWebhook` steps issued is a webhook: the event id in it is the
 * URL's only secret, so anything else (another event id, a wrong user, an ended run) is the same 404.
 */
async function callWebhook(service: Service, request: RouteRequest): Promise<Reply> {
  const { userId = '', runId = '', eventId = '' } = request.params;
  const run = service.store.state.runs.get(runId);
  if (userId !== service.credentials.userId || run?.state !== 'RUN_STARTED' || !run.webhooks?.includes(eventId)) {
    throw notFound('no such webhook');
  }
  const body = await request.body(
    service.plan.max_message_size,
    () => new ServiceError(413, `webhook request larger than the max message size (${service.plan.max_message_size} bytes)`),
  );
  const event = {
    proto: 'http',
    // Checked by the request guard: a host name or address and an optional numeric port.
    host: String(request.headers.host ?? ''),
    url: request.target,
    method: request.method,
    header: headerValuesFromRaw(request.rawHeaders, () => true),
    body: body.toString('base64'),
  };
  const out = Buffer.from(JSON.stringify(event)).toString('base64');
  await service.waits.callWebhook(runId, eventId, out, request.callerIp);
  return json({});
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
