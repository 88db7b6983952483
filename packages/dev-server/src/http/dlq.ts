import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { type Route, empty, json, type Reply } from './router';
import type { DlqEntry } from '../state/records';
import type { Service } from '../service';
import { dlqLive } from '../state/dev-state';
import { badRequest, notFound } from '../errors';
import { readCount, readCursor, readMessageFilter } from './messages';
import { dlqView } from './views';

// The two views of the DLQ: the message DLQ (every message that exhausted its retries: list, get,
// delete, retry) and the workflow DLQ (spec 7 and 9: failed workflow runs, and re-triggering their
// failure callback).

export function dlqRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => list(service, request.query, true),
    },
    {
      method: 'GET',
      path: '/v2/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.dlq,
      handler: (request) => {
        const source = request.query.get('source');
        if (source !== null && source !== 'workflow' && source !== 'message') {
          throw badRequest(`invalid source ${JSON.stringify(source)}: use "workflow" (or "message")`);
        }
        return list(service, request.query, source === 'workflow');
      },
    },
    {
      method: 'GET',
      path: '/v2/dlq/:dlqId',
      auth: 'messaging',
      handler: (request) => json(dlqView(existing(service, request.params.dlqId))),
    },
    {
      method: 'DELETE',
      path: '/v2/dlq/:dlqId',
      auth: 'messaging',
      handler: async (request) => {
        const entry = existing(service, request.params.dlqId);
        await service.store.commit({ type: 'dlq.deleted', at: service.config.now(), ids: [entry.dlqId] });
        return empty();
      },
    },
    {
      method: 'DELETE',
      path: '/v2/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.dlq,
      handler: async (request) => {
        const { entries, cursor } = select(service, request.query);
        await service.store.commit({ type: 'dlq.deleted', at: service.config.now(), ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
    {
      method: 'POST',
      path: '/v2/dlq/retry',
      auth: 'messaging',
      query: QUERY_PARAMETERS.dlq,
      handler: (request) => retry(service, request.query),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/callback/:dlqId',
      auth: 'messaging',
      handler: (request) => retrigger(service, request.params.dlqId ?? ''),
    },
  ];
}

const MAX_PAGE = 100;

/**
 * Reads a DLQ query: the shared message filters, `dlqIds`, `messageId`, `responseStatus` (any of),
 * the workflow ones (also under the newer spellings `failureFunctionState`), `count` and `cursor`.
 * `fromDate`/`toDate` compare with the time the entry entered the DLQ.
 */
function readDlqQuery(query: URLSearchParams, maxCount: number) {
  const text = (...names: string[]) => names.map((name) => query.get(name)).find((value) => value !== null && value !== '') ?? undefined;
  const statuses = query.getAll('responseStatus').map((value) => {
    if (!/^\d{3}$/.test(value)) throw badRequest(`invalid responseStatus ${JSON.stringify(value)}: expected an HTTP status code`);
    return Number(value);
  });
  const ids = query.getAll('dlqIds').filter(Boolean);
  const messageIds = query.getAll('messageId').filter(Boolean);
  const runId = text('workflowRunId');
  const workflowUrl = text('workflowUrl');
  const runCreatedAt = text('workflowCreatedAt');
  if (runCreatedAt !== undefined && !/^\d+$/.test(runCreatedAt)) {
    throw badRequest(`invalid workflowCreatedAt ${JSON.stringify(runCreatedAt)}: expected Unix milliseconds`);
  }
  const callbackState = text('failureCallbackState', 'failureFunctionState');
  const shared = readMessageFilter(query);
  return {
    before: readCursor(query),
    count: readCount(query, maxCount, maxCount),
    ids,
    matches: (entry: DlqEntry) =>
      (ids.length === 0 || ids.includes(entry.dlqId)) &&
      (messageIds.length === 0 || messageIds.includes(entry.message.id)) &&
      (statuses.length === 0 || (entry.response !== undefined && statuses.includes(entry.response.status))) &&
      (runId === undefined || entry.message.workflow?.runId === runId) &&
      (workflowUrl === undefined || entry.message.workflow?.url === workflowUrl) &&
      (runCreatedAt === undefined || entry.message.workflow?.createdAt === Number(runCreatedAt)) &&
      (callbackState === undefined || entry.failureCallbackInfo?.state === callbackState) &&
      shared(entry.message, entry.at),
  };
}

/** Newest first; the cursor is the position of the last entry shown, and absent on the last page. */
function list(service: Service, query: URLSearchParams, workflowOnly: boolean): Reply {
  const { before, count, matches } = readDlqQuery(query, MAX_PAGE);
  const now = service.config.now();
  const entries = [...service.store.state.dlq.values()]
    .filter((entry) => live(service, entry, now) && (!workflowOnly || entry.message.workflow !== undefined))
    .filter((entry) => (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const page = entries.slice(0, count);
  const last = page.at(-1);
  return json({ messages: page.map(dlqView), ...(entries.length > count && last ? { cursor: String(last.order) } : {}) });
}

/** The entries a bulk delete or retry takes: listed ids, or filters (none: all), `count` (default 100) per call. */
export function select(service: Service, query: URLSearchParams): { entries: DlqEntry[]; cursor: string | undefined } {
  const { before, count, matches } = readDlqQuery(query, 1000);
  const now = service.config.now();
  const matching = [...service.store.state.dlq.values()]
    .filter((entry) => live(service, entry, now) && (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const entries = matching.slice(0, query.has('count') ? count : MAX_PAGE);
  const last = entries.at(-1);
  return { entries, cursor: matching.length > entries.length && last ? String(last.order) : undefined };
}

/**
 * Sends the selected entries' messages again, each under a new message id, as fresh messages (their
 * retries start over); the entries leave the DLQ.
 */
async function retry(service: Service, query: URLSearchParams): Promise<Reply> {
  const { entries, cursor } = select(service, query);
  const messages = await service.actions.resendFromDlq(entries);
  return json({ responses: messages.map((message) => ({ messageId: message.id })), ...(cursor ? { cursor } : {}) });
}

/**
 * Sends the failure callback of a DLQ entry again, only from `CALLBACK_FAIL` (400 otherwise; 404
 * for an unknown id). The state goes to `CALLBACK_INPROGRESS` and then follows the real outcome.
 */
async function retrigger(service: Service, dlqId: string): Promise<Reply> {
  const entry = existing(service, dlqId);
  // Only entries of the workflow DLQ: a plain message's entry has no run to answer for.
  if (!entry.message.workflow)
    throw notFound(`workflow dlq message ${dlqId} not found: it is a plain message's DLQ entry, not a failed workflow run's`);
  await service.actions.retriggerFailureCallback(entry);
  return json({ workflowRunId: entry.message.workflow.runId, workflowCreatedAt: entry.message.workflow.createdAt });
}

function existing(service: Service, dlqId: string | undefined): DlqEntry {
  const entry = service.store.state.dlq.get(dlqId ?? '');
  if (!entry || !live(service, entry, service.config.now())) throw notFound(`dlq message ${dlqId ?? ''} not found`);
  return entry;
}

function live(service: Service, entry: DlqEntry, now: number): boolean {
  return dlqLive(entry.at, { now, dlqRetentionMs: service.plan.max_dlq_retention_time_milis });
}
