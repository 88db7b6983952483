import { expectObject, ValidationError } from '../errors';
import { checkHttpUrl } from '../headers';
import {
  dlqListResponseSchema,
  retriggerResponseSchema,
  urlGroupListSchema,
  type DlqWorkflowMessage,
  type RetriggerResponse,
  type UrlGroup,
} from '../schemas';
import { parseResponse } from '../schemas/primitives';
import type { MessagingContext } from './client';
import { checkName } from './enqueue';

/** An endpoint to add to a URL group. */
export interface NewEndpoint {
  url: string;
  name?: string;
}

/** An endpoint to remove, identified by its name or its URL. */
export type EndpointRef = { name: string; url?: never } | { url: string; name?: never };

/** `GET /v2/topics`: every URL group with its endpoints. */
export function listUrlGroups(context: MessagingContext, options: { signal?: AbortSignal } = {}): Promise<UrlGroup[]> {
  return context.transport.requestJson({ method: 'GET', path: ['v2', 'topics'], ...signalOf(options) }, (value, url) =>
    parseResponse(urlGroupListSchema, value, url),
  );
}

/** `POST /v2/topics/{name}/endpoints`: adds endpoints, creating the group when it does not exist. */
export async function addEndpoints(context: MessagingContext, name: string, endpoints: readonly NewEndpoint[]): Promise<void> {
  const group = checkName('name', name);
  const body = checkList(endpoints).map((endpoint, index) => {
    const at = `endpoints.${index}`;
    if (endpoint === null || typeof endpoint !== 'object') throw new ValidationError(at, 'expected { url, name? }');
    const url = checkHttpUrl(`${at}.url`, endpoint.url);
    if (endpoint.name === undefined) return { url };
    return { url, name: checkName(`${at}.name`, endpoint.name) };
  });
  await context.transport.request({ method: 'POST', path: ['v2', 'topics', group, 'endpoints'], json: { endpoints: body } });
}

/**
 * `DELETE /v2/topics/{name}/endpoints`: removes endpoints by name or URL. Removing the last endpoint
 * deletes the group; an unknown group is a `NotFoundError`.
 */
export async function removeEndpoints(context: MessagingContext, name: string, endpoints: readonly EndpointRef[]): Promise<void> {
  const group = checkName('name', name);
  const body = checkList(endpoints).map((endpoint, index) => {
    const at = `endpoints.${index}`;
    if (endpoint === null || typeof endpoint !== 'object') throw new ValidationError(at, 'expected { name } or { url }');
    const hasName = endpoint.name !== undefined;
    const hasUrl = endpoint.url !== undefined;
    if (hasName === hasUrl) throw new ValidationError(at, 'identify the endpoint by exactly one of name or url');
    return hasName ? { name: checkName(`${at}.name`, endpoint.name) } : { url: checkHttpUrl(`${at}.url`, endpoint.url) };
  });
  await context.transport.request({ method: 'DELETE', path: ['v2', 'topics', group, 'endpoints'], json: { endpoints: body } });
}

function checkList<T>(endpoints: readonly T[]): readonly T[] {
  if (!Array.isArray(endpoints) || endpoints.length === 0) {
    throw new ValidationError('endpoints', 'expected a non-empty array of endpoints');
  }
  return endpoints;
}

export function signalOf(options: { signal?: AbortSignal }): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
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
export async function listWorkflowDlq(context: MessagingContext, filter: WorkflowDlqFilter = {}): Promise<WorkflowDlqPage> {
  const query = dlqQuery(filter);
  const page = await context.transport.requestJson(
    { method: 'GET', path: ['v2', 'workflows', 'dlq'], query, ...signalOf(filter) },
    (value, url) => parseResponse(dlqListResponseSchema, value, url),
  );
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
export async function* iterateWorkflowDlq(
  context: MessagingContext,
  filter: WorkflowDlqFilter = {},
): AsyncGenerator<DlqWorkflowMessage, void, undefined> {
  const seen = new Set<string>();
  let cursor = filter.cursor;
  for (;;) {
    const page = await listWorkflowDlq(context, { ...filter, ...(cursor !== undefined ? { cursor } : {}) });
    yield* page.messages;
    if (page.cursor === undefined) return;
    // A cursor that comes back twice would loop forever; stop loudly instead.
    if (seen.has(page.cursor))
      throw new ValidationError(
        'cursor',
        `the service returned cursor ${JSON.stringify(page.cursor)} twice; stopping to avoid an endless listing`,
      );
    seen.add(page.cursor);
    cursor = page.cursor;
  }
}

/** `POST /v2/workflows/dlq/callback/{dlqId}`: triggers a failed failure callback again. */
export function retriggerFailureCallback(
  context: MessagingContext,
  dlqId: string,
  options: { signal?: AbortSignal } = {},
): Promise<RetriggerResponse> {
  if (typeof dlqId !== 'string' || dlqId.trim() === '') {
    throw new ValidationError('dlqId', `expected the dlqId of a DLQ entry (as listed), got ${JSON.stringify(dlqId)}`);
  }
  return context.transport.requestJson(
    { method: 'POST', path: ['v2', 'workflows', 'dlq', 'callback', dlqId], ...signalOf(options) },
    (value, url) => parseResponse(retriggerResponseSchema, value, url),
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

function timestampMs(path: string, value: Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new ValidationError(path, `expected a Date or Unix milliseconds, got ${JSON.stringify(value)}`);
  }
  // Seconds passed where milliseconds belong would silently filter to January 1970.
  if (ms > 0 && ms < 1e11) throw new ValidationError(path, `${ms} looks like Unix seconds; pass milliseconds or a Date`);
  return ms;
}
