// The toolkit every listing shares: one resource read and checked (`getResource`), ids checked
// (`checkId`), filters turned into a query, and the cursor walk (`paginate`).

import { describeValue, expectObject, ValidationError } from '../errors';
import type { QueryValue, RequestSpec } from '../http';
import { parseAnswer } from '../schemas/lazy';
import type { ServiceConnection } from './connection';
import type { ResponseName, ResponseOf } from '../schemas/responses';
import { MESSAGE_STATES, type MessageState } from '../wire';

// The filters the logs, the message DLQ and bulk cancel share, their query spelling, and the cursor
// walk every listing uses. One place, so `urlGroup` is `topicName` on the wire everywhere.

/** One value or several (several match any of them). */
export type OneOrMany<T> = T | readonly T[];

/** Filters shared by logs, the DLQ and bulk cancel. They combine with AND. */
export interface MessageFilter {
  /** Destination URL. */
  url?: OneOrMany<string>;
  /** URL group name. */
  urlGroup?: OneOrMany<string>;
  queue?: OneOrMany<string>;
  scheduleId?: OneOrMany<string>;
  label?: OneOrMany<string>;
  callerIp?: OneOrMany<string>;
  flowControlKey?: OneOrMany<string>;
  /** Inclusive start: a Date or Unix milliseconds. */
  fromDate?: Date | number;
  /** Inclusive end: a Date or Unix milliseconds. */
  toDate?: Date | number;
}

/** Filters of the message DLQ. */
export interface DlqFilter extends MessageFilter {
  messageId?: string;
  /** Status of the last attempt's answer. */
  responseStatus?: OneOrMany<number>;
}

/** Filters of the logs. */
export interface LogFilter extends MessageFilter {
  messageId?: string;
  state?: MessageState;
}

/** Paging of a listing: where to continue, and how many per page (1 to 1000, the service's default when absent). */
export interface PageOptions {
  cursor?: string;
  count?: number;
  signal?: AbortSignal;
}

/** One page of a listing. `cursor` is `undefined` on the last page. */
export interface Page<T> {
  cursor: string | undefined;
  items: T[];
}

const WIRE_NAMES: Record<string, string> = { urlGroup: 'topicName', queue: 'queueName' };
const STRING_FILTERS = ['url', 'urlGroup', 'queue', 'scheduleId', 'label', 'callerIp', 'flowControlKey', 'messageId'] as const;
const BASE_KEYS = [...STRING_FILTERS, 'fromDate', 'toDate'];

/**
 * The query of a filter, every value checked. `extra` names the keys a listing adds (paging,
 * `state`, `responseStatus`) so a typo such as `{ queueName }` is an error instead of no filter.
 */
export function filterQuery(filter: object, allowed: readonly string[]): Record<string, QueryValue> {
  expectObject(filter, 'filter', 'an object of filters');
  const known = new Set([...BASE_KEYS, ...allowed]);
  for (const key of Object.keys(filter)) {
    if (!known.has(key)) throw new ValidationError(key, `unknown filter; known filters are ${[...known].join(', ')}`);
  }
  const given = filter as Record<string, unknown>;
  const query: Record<string, QueryValue> = {};
  for (const key of STRING_FILTERS) {
    if (given[key] === undefined) continue;
    query[WIRE_NAMES[key] ?? key] = strings(key, given[key]);
  }
  const from = timestampMs('fromDate', given.fromDate);
  const to = timestampMs('toDate', given.toDate);
  if (from !== undefined && to !== undefined && from > to) throw new ValidationError('fromDate', 'fromDate is after toDate');
  query.fromDate = from;
  query.toDate = to;
  if (given.state !== undefined) {
    if (!(MESSAGE_STATES as readonly unknown[]).includes(given.state)) {
      throw new ValidationError('state', `expected one of ${MESSAGE_STATES.join(', ')}, got ${describeValue(given.state)}`);
    }
    query.state = given.state as string;
  }
  if (given.responseStatus !== undefined) query.responseStatus = statuses(given.responseStatus);
  if (given.cursor !== undefined) query.cursor = nonEmpty('cursor', given.cursor);
  if (given.count !== undefined) query.count = count(given.count);
  return query;
}

function strings(path: string, value: unknown): string | string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) throw new ValidationError(path, 'expected at least one value; leave the filter out to match all');
    return value.map((item, index) => nonEmpty(`${path}.${index}`, item));
  }
  return nonEmpty(path, value);
}

function nonEmpty(path: string, value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new ValidationError(path, `expected a non-empty string, got ${describeValue(value)}`);
  return value;
}

function statuses(value: unknown): number | number[] {
  const list = Array.isArray(value) ? value : [value];
  for (const status of list) {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 100 || status > 599) {
      throw new ValidationError('responseStatus', `expected an HTTP status code 100-599, got ${describeValue(status)}`);
    }
  }
  return Array.isArray(value) ? (list as number[]) : (value as number);
}

/** A page size: 1 to 1000. */
export function count(value: unknown, max = 1000): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ValidationError('count', `expected a whole number from 1 to ${max}, got ${describeValue(value)}`);
  }
  return value;
}

/** A Date or Unix milliseconds as the query's milliseconds; seconds are refused (they would mean 1970). */
export function timestampMs(path: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0) {
    throw new ValidationError(path, `expected a Date or Unix milliseconds, got ${describeValue(value)}`);
  }
  if (ms > 0 && ms < 1e11) throw new ValidationError(path, `${ms} looks like Unix seconds; pass milliseconds or a Date`);
  return ms;
}

/** A non-empty id (message, DLQ entry, schedule), checked before it becomes a path segment. */
export function checkId(path: string, value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(path, `expected the ${what}, got ${describeValue(value)}`);
  }
  return value;
}

/** A list of ids for a bulk action: non-empty, each non-empty. */
export function checkIds(path: string, value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new ValidationError(path, `expected a non-empty array of ${what}s, got ${describeValue(value)}`);
  }
  return value.map((id, index) => checkId(`${path}.${index}`, id, what));
}

export function signalOf(options: { signal?: AbortSignal } | undefined): { signal?: AbortSignal } {
  return options?.signal ? { signal: options.signal } : {};
}

/** `GET` one resource (or a list) and check its shape: what every getter of the client does. */
export function getResource<Name extends ResponseName>(
  connection: ServiceConnection,
  path: string[],
  schema: Name,
  options?: { signal?: AbortSignal; query?: Record<string, QueryValue> },
): Promise<ResponseOf<Name>> {
  const spec: RequestSpec = { method: 'GET', path, ...signalOf(options) };
  if (options?.query) spec.query = options.query;
  return connection.requester.requestJson(spec, (value, url) => parseAnswer(schema, value, url));
}

/**
 * Every item of a listing, page after page, until the service returns no cursor. A cursor that comes
 * back twice would loop forever, so it stops with an error instead.
 */
export async function* paginate<T>(
  firstCursor: string | undefined,
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
): AsyncGenerator<T, void, undefined> {
  const seen = new Set<string>();
  let cursor = firstCursor;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.items;
    if (page.cursor === undefined) return;
    if (seen.has(page.cursor)) {
      throw new ValidationError(
        'cursor',
        `the service returned cursor ${JSON.stringify(page.cursor)} twice; stopping to avoid an endless listing`,
      );
    }
    seen.add(page.cursor);
    cursor = page.cursor;
  }
}
