import { describeValue, expectObject, ValidationError } from '../errors';
import { parseAnswer } from '../schemas/lazy';
import type { NotifyResult, RestartedRun, Waiter, WorkflowRun } from '../schemas/resources';
import { WORKFLOW_RUN_STATES } from '../wire';
import type { ServiceConnection } from './connection';
import { checkId, checkIds, getResource, paginate, signalOf } from './listing';

// Workflow runs as the service keeps them for the Workflow SDK: their logs (state and steps), and
// what can be done to them: cancel, notify a waiting run, list the waiters, and resume, restart or
// delete a failed run's entry in the workflow DLQ.

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
  const page = await getResource(connection, ['v2', 'workflows', 'events'], 'workflowRunPage', { query, ...signalOf(filter) });
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
    (value, url) => parseAnswer('cancelResult', value, url),
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
    parseAnswer('notifyResult', value, url),
  );
}

/** `GET /v2/waiters/{eventId}`: the runs waiting for an event. */
export function listWaiters(connection: ServiceConnection, eventId: string, options: { signal?: AbortSignal } = {}): Promise<Waiter[]> {
  return getResource(connection, ['v2', 'waiters', checkId('eventId', eventId, 'event id')], 'waiterList', options);
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
    (value, url) => parseAnswer('workflowRestarted', value, url),
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
    (value, url) => parseAnswer('workflowDeleted', value, url),
  );
}

/** One id or several, each checked. */
function idList(path: string, ids: string | readonly string[], what: string): string[] {
  return typeof ids === 'string' ? [checkId(path, ids, what)] : checkIds(path, ids, what);
}
