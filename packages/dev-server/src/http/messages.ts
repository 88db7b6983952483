import { QUERY_PARAMETERS } from '@mailroom/core/internal-protocol';
import type { Service } from '../service';
import { turnTaker } from '../engine/timers';
import { empty, type Route, json, type Reply } from './router';
import type { Filters } from './filters';
import { type Shown, shownAsIs } from './read-only';
import { logBefore, loggedMessage } from '../state/dev-state';
import type { LogRecord, MessageRecord } from '../state/records';
import { badRequest, notFound } from '../errors';
import { logView, messageFields } from './views';

// Pending messages (get, release one now, cancel one, cancel many) and the logs: every state change of every message.
// The filters here are the ones the logs, the message DLQ and bulk actions share.

export function messageRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/messages/:id',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => json(messageFields(pending(service, request.params.id))),
    },
    {
      method: 'DELETE',
      path: '/v2/messages/:id',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: async (request) => {
        const message = pending(service, request.params.id);
        await service.actions.cancelMessages([message.id]);
        return { status: 202, json: { cancelled: 1 } };
      },
    },
    {
      method: 'POST',
      path: '/v2/messages/:id/retry',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      // "Retry now": answered 200 with no body once the waiting message is released.
      handler: async (request) => {
        await service.actions.releaseMessage(request.params.id ?? '');
        return empty();
      },
    },
    {
      method: 'DELETE',
      path: '/v2/messages',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.cancelMessages,
      handler: (request) => cancelMany(service, request.query, request.shown),
    },
    {
      method: 'GET',
      path: '/v2/bulkActions/:actionId',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => {
        const action = service.actions.bulkAction(request.params.actionId ?? '');
        if (!action)
          throw notFound(`bulk action ${request.params.actionId ?? ''} not found (the dev server keeps the last 1,000 until it restarts)`);
        return json(action);
      },
    },
    {
      method: 'GET',
      path: '/v2/events',
      auth: 'messaging',
      readOnly: 'answer',
      query: QUERY_PARAMETERS.logs,
      handler: (request) => logs(service, request.query, request.shown),
    },
  ];
}

function pending(service: Service, id: string | undefined): MessageRecord {
  const found = service.store.state.pending.get(id ?? '');
  if (found?.kind !== 'message') throw notFound(`message ${id ?? ''} not found`);
  return found;
}

/** `DELETE /v2/messages`: by `messageIds` and filters, or (with no filter at all) every pending message. */
async function cancelMany(service: Service, query: Filters, shown: Shown): Promise<Reply> {
  const ids = query.getAll('messageIds');
  const filter = readMessageFilter(query, shown);
  const count = readCount(query, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  const chosen: string[] = [];
  const named = new Set(ids);
  const { state } = service.store;
  const newest = state.nextSeq;
  // The scan and the cancels give other requests a turn: at 100,000 pending either alone is a stall.
  const turns = turnTaker();
  for (const record of state.pending.values()) {
    if (turns.due()) await turns.yield();
    if (chosen.length >= count) break;
    if (record.kind !== 'message' || record.seq >= newest) continue;
    if ((named.size === 0 || named.has(record.id)) && filter(record, record.createdAt)) chosen.push(record.id);
  }
  if (query.get('async') === 'true') {
    const { actionId } = service.actions.cancelInBackground(chosen, query.described());
    return { status: 202, json: { actionId } };
  }
  return json({ cancelled: await service.actions.cancelInSlices(chosen) });
}

const LOG_PAGE = 1000;

/** `GET /v2/events`: newest first; the cursor is the order of the last entry shown. */
function logs(service: Service, query: Filters, shown: Shown): Reply {
  const { state } = service.store;
  const filter = readMessageFilter(query, shown);
  const ids = [...query.getAll('messageIds'), ...query.getAll('messageId')];
  const wanted = query.get('state');
  const count = readCount(query, LOG_PAGE, LOG_PAGE);
  const before = readLogCursor(query);
  const page: Record<string, unknown>[] = [];
  let last: LogRecord | undefined;
  let more = false;
  for (let index = state.logs.length - 1; index >= 0; index -= 1) {
    const entry = state.logs[index]!;
    if (before !== undefined && !logBefore(entry, before)) continue;
    if (wanted && entry.state !== wanted) continue;
    if (ids.length > 0 && !ids.includes(entry.messageId)) continue;
    const message = loggedMessage(state, index);
    if (!filter(message, entry.time)) continue;
    if (page.length === count) {
      more = true;
      break;
    }
    page.push(logView(entry, message, service.config));
    last = entry;
  }
  return json({ events: page, ...(more && last !== undefined ? { cursor: `${last.time}-${last.order}` } : {}) });
}

/**
 * The shared filters, combined with AND; a filter given several times matches any of its values:
 * `url`, `host`, `path`, `topicName`, `queueName`, `scheduleId`, `label` (any of the message's),
 * `callerIp`, `flowControlKey`, `fromDate`/`toDate` (inclusive Unix ms, against `at`), and `api` (a
 * provider API a message was published to: the dev server publishes to none, so it matches none).
 * A URL is compared as the caller's role is shown it.
 */
export function readMessageFilter(query: Filters, shown: Shown = shownAsIs): (message: MessageRecord, at: number) => boolean {
  const values = (...names: string[]) => names.flatMap((name) => query.getAll(name));
  if (query.has('api')) return () => false;
  const urls = values('url');
  const hosts = values('host');
  const paths = values('path');
  const groups = values('topicName', 'urlGroup');
  const queues = values('queueName');
  const schedules = values('scheduleId');
  const labels = values('label');
  const callers = values('callerIp', 'callerIP');
  const keys = values('flowControlKey');
  const fromDate = readTime(query, 'fromDate');
  const toDate = readTime(query, 'toDate');
  const any = (wanted: string[], value: string | undefined) => wanted.length === 0 || (value !== undefined && wanted.includes(value));
  return (message, at) => {
    if (fromDate !== undefined && at < fromDate) return false;
    if (toDate !== undefined && at > toDate) return false;
    if (!any(urls, urls.length === 0 ? undefined : shown(message.url)) || !any(groups, message.topicName) || !any(queues, message.queue))
      return false;
    if (!any(schedules, message.scheduleId) || !any(callers, message.callerIp) || !any(keys, message.flowControl?.key)) return false;
    if (labels.length > 0 && !(message.label ?? '').split(',').some((label) => labels.includes(label))) return false;
    if (hosts.length > 0 || paths.length > 0) {
      const url = new URL(message.url);
      if (!any(hosts, url.host) || !any(paths, url.pathname)) return false;
    }
    return true;
  };
}

function readTime(query: Filters, name: string): number | undefined {
  const value = query.get(name);
  return value === null ? undefined : Number(value);
}

/** `count`: 1 to `max`, `fallback` when absent. */
export function readCount(query: Filters, fallback: number, max: number): number {
  const value = query.get('count');
  if (value === null) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw badRequest(
      `invalid count ${JSON.stringify(value)}: expected a whole number from 1${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`,
    );
  }
  return Number(value);
}

/**
 * A log page's cursor: the time and order of the last entry given (the log is in that order), or a
 * time in Unix ms alone (the SDKs document it so, and start their loop at `Date.now()`): the entries
 * at or before it.
 */
function readLogCursor(query: Filters): { time: number; order: number } | undefined {
  const cursor = query.get('cursor');
  if (cursor === null) return undefined;
  const match = /^(\d{1,15})(?:-(\d+))?$/.exec(cursor);
  if (!match) throw badRequest(`invalid cursor ${JSON.stringify(cursor)}: pass back a cursor from an earlier page, or a time in Unix ms`);
  return { time: Number(match[1]), order: match[2] === undefined ? Number.POSITIVE_INFINITY : Number(match[2]) };
}

/** A cursor answered earlier: the order number to continue below. */
export function readCursor(query: Filters): number | undefined {
  const cursor = query.get('cursor');
  if (cursor === null) return undefined;
  if (!/^\d+$/.test(cursor)) throw badRequest(`invalid cursor ${JSON.stringify(cursor)}: pass back a cursor from an earlier page`);
  return Number(cursor);
}
