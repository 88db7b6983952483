import { describeValue, expectObject, ValidationError } from '../errors';
import { knownString, nilSafeArray, parseResponse } from '../schemas/primitives';
import { z } from 'zod';
import type { ServiceConnection } from './connection';
import { checkId, checkIds, getResource, paginate, signalOf } from './listing';

// Workflow runs as the service keeps them for the Workflow SDK: their logs (state and steps), and
// what can be done to them: cancel, notify a waiting run, list the waiters, and resume, restart or
// delete a failed run's entry in the workflow DLQ.

/** The states of a run. */
const WORKFLOW_RUN_STATES = ['RUN_STARTED', 'RUN_SUCCESS', 'RUN_FAILED', 'RUN_CANCELED'] as const;

const stepSchema = z.looseObject({
  messageId: z.string().optional(),
  stepName: z.string().optional(),
  stepType: z.string().optional(),
  state: z.string().optional(),
  out: z.unknown().optional(),
  concurrent: z.number().optional(),
});

/** One run, as `GET /v2/workflows/events` lists it. Unknown fields are kept. */
const workflowRunSchema = z.looseObject({
  workflowRunId: z.string(),
  workflowUrl: z.string(),
  workflowState: knownString(WORKFLOW_RUN_STATES),
  /** Unix milliseconds. */
  workflowRunCreatedAt: z.number(),
  workflowRunCompletedAt: z.number().optional(),
  /** In order: one group per sequential step, one for steps that ran side by side. */
  steps: nilSafeArray(z.looseObject({ type: z.string(), steps: nilSafeArray(stepSchema) })),
  /** What the route returned, as JSON text. */
  workflowRunResponse: z.string().optional(),
  dlqId: z.string().optional(),
  failureFunction: z.looseObject({ state: z.string().optional(), failStatus: z.number().optional() }).optional(),
});

/** A workflow run with its steps. */
export type WorkflowRun = z.infer<typeof workflowRunSchema>;

const runPageSchema = z.looseObject({ runs: nilSafeArray(workflowRunSchema), cursor: z.string().optional() });

/** A page of runs; no `cursor` at the end. */
export interface WorkflowRunPage {
  runs: WorkflowRun[];
  cursor: string | undefined;
}

/** Which runs `logs` lists. */
export interface WorkflowRunFilter {
  workflowRunId?: string;
  workflowUrl?: string;
  state?: (typeof WORKFLOW_RUN_STATES)[number];
  count?: number;
  cursor?: string;
  signal?: AbortSignal;
}

const waiterSchema = z.looseObject({
  url: z.string(),
  /** Unix seconds. */
  deadline: z.number().optional(),
  timeoutUrl: z.string().optional(),
});

/** A run waiting for an event. */
export type Waiter = z.infer<typeof waiterSchema>;

const notifyResultSchema = nilSafeArray(z.looseObject({ waiter: waiterSchema, messageId: z.string(), error: z.string().optional() }));

/** Who a notify reached: each waiter and the message that gave it the event. */
export type NotifyResult = z.infer<typeof notifyResultSchema>[number];

const restartedRunSchema = z.looseObject({ workflowRunId: z.string(), workflowCreatedAt: z.number().optional() });
/** A run a workflow DLQ resume or restart started: the same run, or a new one. */
export type RestartedRun = z.infer<typeof restartedRunSchema>;
const restartedSchema = z.looseObject({ workflowRuns: nilSafeArray(restartedRunSchema) });
const deletedSchema = z.looseObject({ deleted: z.number() });
const cancelledSchema = z.looseObject({ cancelled: z.number() });

const FILTER_KEYS = new Set(['workflowRunId', 'workflowUrl', 'state', 'count', 'cursor', 'signal']);

/** `GET /v2/workflows/events?groupBy=workflowRunId`: runs, newest first. */
export async function listWorkflowRuns(connection: ServiceConnection, filter: WorkflowRunFilter = {}): Promise<WorkflowRunPage> {
  expectObject(filter, 'filter', 'an object of filters');
  for (const key of Object.keys(filter)) {
    if (!FILTER_KEYS.has(key)) throw new ValidationError(key, `unknown filter; known filters are ${[...FILTER_KEYS].join(', ')}`);
  }
  if (filter.state !== undefined && !(WORKFLOW_RUN_STATES as readonly unknown[]).includes(filter.state)) {
    throw new ValidationError('state', `expected one of ${WORKFLOW_RUN_STATES.join(', ')}, got ${describeValue(filter.state)}`);
  }
  if (filter.count !== undefined && (!Number.isInteger(filter.count) || filter.count < 1)) {
    throw new ValidationError('count', `expected a whole number >= 1, got ${describeValue(filter.count)}`);
  }
  const query = {
    groupBy: 'workflowRunId',
    workflowRunId: filter.workflowRunId,
    workflowUrl: filter.workflowUrl,
    state: filter.state,
    count: filter.count,
    cursor: filter.cursor,
  };
  const page = await getResource(connection, ['v2', 'workflows', 'events'], runPageSchema, { query, ...signalOf(filter) });
  return { runs: page.runs, cursor: page.cursor ? page.cursor : undefined };
}

/** Every run matching `filter`, page after page. */
export function iterateWorkflowRuns(
  connection: ServiceConnection,
  filter: WorkflowRunFilter = {},
): AsyncGenerator<WorkflowRun, void, undefined> {
  expectObject(filter, 'filter', 'an object of filters');
  return paginate(filter.cursor, async (cursor) => {
    const page = await listWorkflowRuns(connection, { ...filter, ...(cursor !== undefined ? { cursor } : {}) });
    return { cursor: page.cursor, items: page.runs };
  });
}

/** `DELETE /v2/workflows/runs`: cancels runs still going (their pending steps too). */
export function cancelWorkflowRuns(
  connection: ServiceConnection,
  runIds: string | readonly string[],
  options: { signal?: AbortSignal } = {},
): Promise<{ cancelled: number }> {
  const ids = idList('runIds', runIds, 'workflow run id');
  return connection.requester.requestJson(
    { method: 'DELETE', path: ['v2', 'workflows', 'runs'], query: { workflowRunIds: ids }, ...signalOf(options) },
    (value, url) => parseResponse(cancelledSchema, value, url),
  );
}

/** `POST /v2/notify/{eventId}` (or `/{runId}/{eventId}`): gives the event's data to the runs waiting for it. */
export function notifyWorkflowEvent(
  connection: ServiceConnection,
  eventId: string,
  data: unknown = '',
  options: { runId?: string; signal?: AbortSignal } = {},
): Promise<NotifyResult[]> {
  const event = checkId('eventId', eventId, 'event id');
  const path =
    options.runId === undefined ? ['v2', 'notify', event] : ['v2', 'notify', checkId('runId', options.runId, 'workflow run id'), event];
  const body = typeof data === 'string' ? data : JSON.stringify(data);
  return connection.requester.requestJson({ method: 'POST', path, body, ...signalOf(options) }, (value, url) =>
    parseResponse(notifyResultSchema, value, url),
  );
}

/** `GET /v2/waiters/{eventId}`: the runs waiting for an event. */
export function listWaiters(connection: ServiceConnection, eventId: string, options: { signal?: AbortSignal } = {}): Promise<Waiter[]> {
  return getResource(connection, ['v2', 'waiters', checkId('eventId', eventId, 'event id')], nilSafeArray(waiterSchema), options);
}

/**
 * `POST /v2/workflows/dlq/resume` or `/restart`: a failed run goes on from its failed step (resume),
 * or starts over as a new run (restart). Answers the runs.
 */
export async function restartWorkflowRuns(
  connection: ServiceConnection,
  how: 'resume' | 'restart',
  dlqIds: string | readonly string[],
  options: { signal?: AbortSignal } = {},
): Promise<RestartedRun[]> {
  const ids = idList('dlqIds', dlqIds, 'dlqId');
  const answer = await connection.requester.requestJson(
    { method: 'POST', path: ['v2', 'workflows', 'dlq', how], query: { dlqIds: ids }, ...signalOf(options) },
    (value, url) => parseResponse(restartedSchema, value, url),
  );
  return answer.workflowRuns;
}

/** `DELETE /v2/workflows/dlq`: removes failed runs' entries. */
export function deleteWorkflowDlqEntries(
  connection: ServiceConnection,
  dlqIds: string | readonly string[],
  options: { signal?: AbortSignal } = {},
): Promise<{ deleted: number }> {
  const ids = idList('dlqIds', dlqIds, 'dlqId');
  return connection.requester.requestJson(
    { method: 'DELETE', path: ['v2', 'workflows', 'dlq'], query: { dlqIds: ids }, ...signalOf(options) },
    (value, url) => parseResponse(deletedSchema, value, url),
  );
}

/** One id or several, each checked. */
function idList(path: string, ids: string | readonly string[], what: string): string[] {
  return typeof ids === 'string' ? [checkId(path, ids, what)] : checkIds(path, ids, what);
}
