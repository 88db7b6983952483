import { QUERY_PARAMETERS } from '@mailroom/core/internal-protocol';
import { type Route, type RouteRequest, empty, json, type Reply } from './router';
import type { DlqEntry } from '../state/records';
import type { Service } from '../service';
import { dlqLive } from '../state/dev-state';
import { notFound } from '../errors';
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
      readOnly: 'answer',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => list(service, request, true),
    },
    {
      method: 'GET',
      path: '/v2/dlq',
      auth: 'messaging',
      readOnly: 'answer',
      query: QUERY_PARAMETERS.dlq,
      handler: (request) => list(service, request, false),
    },
    {
      method: 'GET',
      path: '/v2/dlq/:dlqId',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: (request) => json(dlqView(existing(service, request.params.dlqId))),
    },
    {
      method: 'DELETE',
      path: '/v2/dlq/:dlqId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
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
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.dlq,
      handler: async (request) => {
        const { entries, cursor } = select(service, request);
        await service.store.commit({ type: 'dlq.deleted', at: service.config.now(), ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
    {
      method: 'POST',
      path: '/v2/dlq/retry',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.dlq,
      sends: true,
      handler: (request) => retry(service, request),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/callback/:dlqId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      sends: true,
      handler: (request) => retrigger(service, request.params.dlqId ?? ''),
    },
  ];
}

const MAX_PAGE = 100;

/**
 * Reads a DLQ query: the shared message filters, `dlqIds`, `messageId`, `responseStatus` (any of),
 * the workflow ones (also under the newer spellings `failureFunctionState`), `source` (`workflow`:
 * failed runs' entries, `message`: plain messages'), `count` and `cursor`. `fromDate`/`toDate`
 * compare with the time the entry entered the DLQ.
 */
function readDlqQuery(request: RouteRequest, maxCount: number) {
  const query = request.query;
  const first = (...names: string[]) => names.map((name) => query.get(name)).find((value) => value !== null) ?? undefined;
  const statuses = query.getAll('responseStatus').map(Number);
  const ids = query.getAll('dlqIds');
  const messageIds = query.getAll('messageId');
  const runId = first('workflowRunId');
  const workflowUrl = first('workflowUrl');
  const runCreatedAt = first('workflowCreatedAt');
  const callbackState = first('failureCallbackState', 'failureFunctionState');
  const source = query.get('source');
  const shared = readMessageFilter(query, request.shown);
  return {
    before: readCursor(query),
    count: readCount(query, maxCount, maxCount),
    matches: (entry: DlqEntry) =>
      (source === null || (source === 'workflow') === (entry.message.workflow !== undefined)) &&
      (ids.length === 0 || ids.includes(entry.dlqId)) &&
      (messageIds.length === 0 || messageIds.includes(entry.message.id)) &&
      (statuses.length === 0 || (entry.response !== undefined && statuses.includes(entry.response.status))) &&
      (runId === undefined || entry.message.workflow?.runId === runId) &&
      (workflowUrl === undefined || (entry.message.workflow !== undefined && request.shown(entry.message.workflow.url) === workflowUrl)) &&
      (runCreatedAt === undefined || entry.message.workflow?.createdAt === Number(runCreatedAt)) &&
      (callbackState === undefined || entry.failureCallbackInfo?.state === callbackState) &&
      shared(entry.message, entry.at),
  };
}

/** Newest first; the cursor is the position of the last entry shown, and absent on the last page. */
function list(service: Service, request: RouteRequest, workflowOnly: boolean): Reply {
  const { before, count, matches } = readDlqQuery(request, MAX_PAGE);
  const now = service.config.now();
  const entries = [...service.store.state.dlq.values()]
    .filter((entry) => live(service, entry, now) && (!workflowOnly || entry.message.workflow !== undefined))
    .filter((entry) => (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const page = entries.slice(0, count);
  const last = page.at(-1);
  return json({ messages: page.map(dlqView), ...(entries.length > count && last ? { cursor: String(last.order) } : {}) });
}

/** The entries a bulk delete or retry takes: listed ids and filters (none at all: every entry), `count` (default 100) per call. */
export function select(service: Service, request: RouteRequest): { entries: DlqEntry[]; cursor: string | undefined } {
  const { before, count, matches } = readDlqQuery(request, 1000);
  const now = service.config.now();
  const matching = [...service.store.state.dlq.values()]
    .filter((entry) => live(service, entry, now) && (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const entries = matching.slice(0, request.query.has('count') ? count : MAX_PAGE);
  const last = entries.at(-1);
  return { entries, cursor: matching.length > entries.length && last ? String(last.order) : undefined };
}

/**
 * Sends the selected entries' messages again, each under a new message id, as fresh messages (their
 * retries start over); the entries leave the DLQ.
 */
async function retry(service: Service, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = select(service, request);
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
