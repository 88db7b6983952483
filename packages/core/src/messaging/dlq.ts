import { expectObject, NotFoundError, ValidationError } from '../errors';
import type { DlqWorkflowMessage, RetriggerResponse } from '../schemas';
import type { DlqDeleteResult, DlqMessage, DlqRetryResult } from '../schemas/resources';
import { parseAnswer } from '../schemas/lazy';
import type { ServiceConnection } from './connection';
import {
  checkId,
  checkIds,
  count,
  filterQuery,
  paginate,
  getResource,
  signalOf,
  timestampMs,
  type DlqFilter,
  type PageOptions,
} from './listing';

// The two dead-letter queues: the message DLQ (every message that exhausted its retries) and the
// workflow DLQ (failed workflow runs, whose failure callback can be re-triggered).

/** One page of the message DLQ, newest first. */
export interface DlqPage {
  cursor: string | undefined;
  messages: DlqMessage[];
}

/** `GET /v2/dlq`: one page of the entries matching `filter`. */
export async function listDlq(connection: ServiceConnection, filter: DlqFilter & PageOptions = {}): Promise<DlqPage> {
  const { signal, ...rest } = filter;
  const query = filterQuery(rest, ['messageId', 'responseStatus', 'cursor', 'count']);
  const page = await getResource(connection, ['v2', 'dlq'], 'dlqMessagePage', { query, ...signalOf({ signal }) });
  return { cursor: page.cursor, messages: page.messages };
}

/**
 * Every DLQ entry matching `filter`, page after page.
 *
 * @example
 * for await (const entry of client.dlq.iterate({ queue: 'emails', responseStatus: 500 })) await client.dlq.retry(entry.dlqId);
 */
export function iterateDlq(
  connection: ServiceConnection,
  filter: DlqFilter & PageOptions = {},
): AsyncGenerator<DlqMessage, void, undefined> {
  expectObject(filter, 'filter', 'an object of filters');
  return paginate(filter.cursor, async (cursor) => {
    const page = await listDlq(connection, { ...filter, ...(cursor !== undefined ? { cursor } : {}) });
    return { cursor: page.cursor, items: page.messages };
  });
}

/** `GET /v2/dlq/{dlqId}`: one entry; an unknown id is a `NotFoundError`. */
export function getDlqMessage(connection: ServiceConnection, dlqId: string, options?: { signal?: AbortSignal }): Promise<DlqMessage> {
  const id = checkId('dlqId', dlqId, 'dlqId of a DLQ entry (as listed)');
  return getResource(connection, ['v2', 'dlq', id], 'dlqMessage', options);
}

/** `DELETE /v2/dlq/{dlqId}`: removes one entry; an unknown id is a `NotFoundError`. */
export async function deleteDlqMessage(connection: ServiceConnection, dlqId: string, options?: { signal?: AbortSignal }): Promise<void> {
  const id = checkId('dlqId', dlqId, 'dlqId of a DLQ entry (as listed)');
  await connection.requester.request({ method: 'DELETE', path: ['v2', 'dlq', id], ...signalOf(options) });
}

/**
 * Which entries a bulk delete or retry takes: the listed ones, those matching a filter, or all. The
 * service works through at most `count` (default 100) per call and answers a `cursor` to go on with.
 */
export type DlqSelection =
  | { dlqIds: readonly string[] }
  | { filter: DlqFilter; count?: number; cursor?: string }
  | { all: true; count?: number; cursor?: string };

/** `DELETE /v2/dlq`: removes the selected entries (one batch; continue with the answered cursor). */
export function deleteDlqMessages(
  connection: ServiceConnection,
  selection: DlqSelection,
  options?: { signal?: AbortSignal },
): Promise<DlqDeleteResult> {
  const query = dlqSelectionQuery(selection);
  return connection.requester.requestJson({ method: 'DELETE', path: ['v2', 'dlq'], query, ...signalOf(options) }, (value, url) =>
    parseAnswer('dlqDeleteResult', value, url),
  );
}

/** `POST /v2/dlq/retry`: sends the selected entries again, each as a new message (one batch per call). */
export function retryDlqMessages(
  connection: ServiceConnection,
  selection: DlqSelection,
  options?: { signal?: AbortSignal },
): Promise<DlqRetryResult> {
  const query = dlqSelectionQuery(selection);
  return connection.requester.requestJson({ method: 'POST', path: ['v2', 'dlq', 'retry'], query, ...signalOf(options) }, (value, url) =>
    parseAnswer('dlqRetryResult', value, url),
  );
}

/** Retries one entry: its message is sent again under a new id, which this returns. */
export async function retryDlqMessage(
  connection: ServiceConnection,
  dlqId: string,
  options?: { signal?: AbortSignal },
): Promise<{ messageId: string }> {
  const id = checkId('dlqId', dlqId, 'dlqId of a DLQ entry (as listed)');
  const result = await retryDlqMessages(connection, { dlqIds: [id] }, options);
  const first = result.responses[0];
  if (!first) {
    // Like `get` of an unknown id: the bulk endpoint skips ids it does not hold instead of answering 404.
    throw new NotFoundError({
      status: 404,
      serviceMessage: `no DLQ entry ${id}: it was never there, or was already retried, deleted or expired`,
      method: 'POST',
      url: `/v2/dlq/retry?dlqIds=${encodeURIComponent(id)}`,
    });
  }
  return { messageId: first.messageId };
}

function dlqSelectionQuery(selection: DlqSelection): Record<string, string | number | string[] | number[] | undefined> {
  expectObject(selection, 'selection', '{ dlqIds }, { filter } or { all: true }');
  const keys = Object.keys(selection);
  const modes = ['dlqIds', 'filter', 'all'].filter((key) => keys.includes(key));
  if (modes.length !== 1) throw new ValidationError('selection', 'give exactly one of { dlqIds }, { filter } or { all: true }');
  const allowed = modes[0] === 'dlqIds' ? ['dlqIds'] : [modes[0]!, 'count', 'cursor'];
  for (const key of keys) {
    if (!allowed.includes(key)) throw new ValidationError(key, `unknown option; known options are ${allowed.join(', ')}`);
  }
  const given = selection as { dlqIds?: unknown; filter?: unknown; all?: unknown; count?: unknown; cursor?: unknown };
  if (given.dlqIds !== undefined) return { dlqIds: checkIds('dlqIds', given.dlqIds, 'dlqId') };
  const paging = {
    count: given.count === undefined ? undefined : count(given.count, 1000),
    cursor: given.cursor === undefined ? undefined : checkId('cursor', given.cursor, 'cursor of the previous answer'),
  };
  if (given.all !== undefined) {
    if (given.all !== true) throw new ValidationError('all', 'expected true, to take every entry');
    return paging;
  }
  const query = filterQuery(given.filter as object, ['messageId', 'responseStatus']);
  if (Object.values(query).every((value) => value === undefined)) {
    throw new ValidationError('filter', 'an empty filter would take every entry; use { all: true } to mean that');
  }
  return { ...(query as Record<string, string | number | string[] | number[] | undefined>), ...paging };
}

/** Filters of the workflow DLQ listing (spec endpoint 7). They combine with AND. */
export interface WorkflowDlqFilter {
  /** Continue from a cursor returned earlier. */
  cursor?: string;
  workflowRunId?: string;
  workflowUrl?: string;
  /** Inclusive start: a Date or Unix milliseconds. */
  fromDate?: Date | number;
  /** Inclusive end: a Date or Unix milliseconds. */
  toDate?: Date | number;
  responseStatus?: number;
  /** IP address of the publisher. */
  callerIP?: string;
  /** e.g. `CALLBACK_FAIL`. */
  failureCallbackState?: string;
  /** Page size, 1 to 100. Default 100. */
  count?: number;
  label?: string;
  signal?: AbortSignal;
}

/** One page of the listing. `cursor` is `undefined` on the last page. */
export interface WorkflowDlqPage {
  cursor: string | undefined;
  messages: DlqWorkflowMessage[];
}

const STRING_FILTERS = ['cursor', 'workflowRunId', 'workflowUrl', 'callerIP', 'failureCallbackState', 'label'] as const;
const KNOWN = new Set<string>([...STRING_FILTERS, 'fromDate', 'toDate', 'responseStatus', 'count', 'signal']);

/** `GET /v2/workflows/dlq`: one page, newest first. */
export async function listWorkflowDlq(connection: ServiceConnection, filter: WorkflowDlqFilter = {}): Promise<WorkflowDlqPage> {
  const query = dlqQuery(filter);
  const page = await getResource(connection, ['v2', 'workflows', 'dlq'], 'workflowDlqPage', { query, ...signalOf(filter) });
  // The service marks the end with no cursor or an empty one; callers get one spelling of "done".
  return { cursor: page.cursor ? page.cursor : undefined, messages: page.messages };
}

/**
 * Every entry matching `filter`, page after page, until the service returns no cursor.
 *
 * @example
 * for await (const entry of client.workflowDlq.iterate({ failureCallbackState: 'CALLBACK_FAIL' })) {
 *   await client.workflowDlq.retriggerFailureCallback(entry.dlqId);
 * }
 */
export function iterateWorkflowDlq(
  connection: ServiceConnection,
  filter: WorkflowDlqFilter = {},
): AsyncGenerator<DlqWorkflowMessage, void, undefined> {
  expectObject(filter, 'filter', 'an object of filters');
  return paginate(filter.cursor, async (cursor) => {
    const page = await listWorkflowDlq(connection, { ...filter, ...(cursor !== undefined ? { cursor } : {}) });
    return { cursor: page.cursor, items: page.messages };
  });
}

/** `POST /v2/workflows/dlq/callback/{dlqId}`: triggers a failed failure callback again. */
export function retriggerFailureCallback(
  connection: ServiceConnection,
  dlqId: string,
  options: { signal?: AbortSignal } = {},
): Promise<RetriggerResponse> {
  if (typeof dlqId !== 'string' || dlqId.trim() === '') {
    throw new ValidationError('dlqId', `expected the dlqId of a DLQ entry (as listed), got ${JSON.stringify(dlqId)}`);
  }
  return connection.requester.requestJson(
    { method: 'POST', path: ['v2', 'workflows', 'dlq', 'callback', dlqId], ...signalOf(options) },
    (value, url) => parseAnswer('retriggerResponse', value, url),
  );
}

function dlqQuery(filter: WorkflowDlqFilter): Record<string, string | number | undefined> {
  expectObject(filter, 'filter', 'an object of filters');
  for (const key of Object.keys(filter)) {
    if (!KNOWN.has(key)) throw new ValidationError(key, `unknown filter; known filters are ${[...KNOWN].join(', ')}`);
  }
  const query: Record<string, string | number | undefined> = {};
  for (const key of STRING_FILTERS) {
    const value = filter[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '')
      throw new ValidationError(key, `expected a non-empty string, got ${JSON.stringify(value)}`);
    query[key] = value;
  }
  query.fromDate = timestampMs('fromDate', filter.fromDate);
  query.toDate = timestampMs('toDate', filter.toDate);
  if (query.fromDate !== undefined && query.toDate !== undefined && query.fromDate > query.toDate) {
    throw new ValidationError('fromDate', 'fromDate is after toDate');
  }
  if (filter.responseStatus !== undefined) {
    const status = filter.responseStatus;
    if (!Number.isInteger(status) || status < 100 || status > 599)
      throw new ValidationError('responseStatus', `expected an HTTP status code 100-599, got ${JSON.stringify(status)}`);
    query.responseStatus = status;
  }
  if (filter.count !== undefined) {
    const count = filter.count;
    if (!Number.isInteger(count) || count < 1 || count > 100)
      throw new ValidationError('count', `expected a whole number from 1 to 100, got ${JSON.stringify(count)}`);
    query.count = count;
  }
  return query;
}
