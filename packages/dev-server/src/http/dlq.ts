import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import type { ServerContext, Route } from './router';
import type { DlqEntry, MessageRecord } from '../state/records';
import { callbackMessage, failureCallbackBody } from '../engine/callbacks';
import { newMessageId } from '../ids';
import { dlqLive } from '../state/dev-state';
import { badRequest, notFound, empty, json, type Reply } from './exchange';
import { readCount, readCursor, readMessageFilter } from './messages';
import { dlqView } from './views';
import { failureSourceBody } from '../workflows/runs';

// The two views of the DLQ: the message DLQ (every message that exhausted its retries: list, get,
// delete, retry) and the workflow DLQ (spec 7 and 9: failed workflow runs, and re-triggering their
// failure callback).

export function dlqRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => list(ctx, request.query, true),
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
        return list(ctx, request.query, source === 'workflow');
      },
    },
    { method: 'GET', path: '/v2/dlq/:dlqId', auth: 'messaging', handler: (request) => json(dlqView(existing(ctx, request.params.dlqId))) },
    {
      method: 'DELETE',
      path: '/v2/dlq/:dlqId',
      auth: 'messaging',
      handler: async (request) => {
        const entry = existing(ctx, request.params.dlqId);
        await ctx.store.commit({ type: 'dlq.deleted', ids: [entry.dlqId] });
        return empty();
      },
    },
    {
      method: 'DELETE',
      path: '/v2/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.dlq,
      handler: async (request) => {
        const { entries, cursor } = select(ctx, request.query);
        await ctx.store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
    {
      method: 'POST',
      path: '/v2/dlq/retry',
      auth: 'messaging',
      query: QUERY_PARAMETERS.dlq,
      handler: (request) => retry(ctx, request.query),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/callback/:dlqId',
      auth: 'messaging',
      handler: (request) => retrigger(ctx, request.params.dlqId ?? ''),
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
function list(ctx: ServerContext, query: URLSearchParams, workflowOnly: boolean): Reply {
  const { before, count, matches } = readDlqQuery(query, MAX_PAGE);
  const now = ctx.config.now();
  const entries = [...ctx.store.state.dlq.values()]
    .filter((entry) => live(ctx, entry, now) && (!workflowOnly || entry.message.workflow !== undefined))
    .filter((entry) => (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const page = entries.slice(0, count);
  const last = page.at(-1);
  return json({ messages: page.map(dlqView), ...(entries.length > count && last ? { cursor: String(last.order) } : {}) });
}

/** The entries a bulk delete or retry takes: listed ids, or filters (none: all), `count` (default 100) per call. */
export function select(ctx: ServerContext, query: URLSearchParams): { entries: DlqEntry[]; cursor: string | undefined } {
  const { before, count, matches } = readDlqQuery(query, 1000);
  const now = ctx.config.now();
  const matching = [...ctx.store.state.dlq.values()]
    .filter((entry) => live(ctx, entry, now) && (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const entries = matching.slice(0, query.has('count') ? count : MAX_PAGE);
  const last = entries.at(-1);
  return { entries, cursor: matching.length > entries.length && last ? String(last.order) : undefined };
}

/**
 * Sends the selected entries' messages again, each under a new message id, as fresh messages (their
 * retries start over); the entries leave the DLQ.
 */
async function retry(ctx: ServerContext, query: URLSearchParams): Promise<Reply> {
  const { entries, cursor } = select(ctx, query);
  const messages = await resend(ctx, entries);
  return json({ responses: messages.map((message) => ({ messageId: message.id })), ...(cursor ? { cursor } : {}) });
}

/**
 * Sends entries' messages again under new ids, their retries starting over; the entries leave the
 * DLQ. A workflow step sent again takes its old place in the run's history (the run resumes).
 */
export async function resend(
  ctx: ServerContext,
  entries: readonly DlqEntry[],
  /** Changes each copy before it is sent (a resumed run's new id, new retries). */
  reshape: (copy: MessageRecord) => MessageRecord = (copy) => copy,
): Promise<MessageRecord[]> {
  const now = ctx.config.now();
  let seq = ctx.store.state.nextSeq;
  const messages: MessageRecord[] = entries.map((entry) =>
    reshape({ ...entry.message, id: newMessageId(), seq: seq++, notBefore: now, dueAt: now, createdAt: now }),
  );
  await ctx.store.commit({ type: 'dlq.retried', at: now, ids: entries.map((entry) => entry.dlqId), messages });
  ctx.engine.admit(messages);
  return messages;
}

/**
 * Sends the failure callback of a DLQ entry again, only from `CALLBACK_FAIL` (400 otherwise; 404
 * for an unknown id). The state goes to `CALLBACK_INPROGRESS` and then follows the real outcome.
 */
async function retrigger(ctx: ServerContext, dlqId: string): Promise<Reply> {
  const { state } = ctx.store;
  const entry = existing(ctx, dlqId);
  // Only entries of the workflow DLQ: a plain message's entry has no run to answer for.
  if (!entry.message.workflow)
    throw notFound(`workflow dlq message ${dlqId} not found: it is a plain message's DLQ entry, not a failed workflow run's`);
  const settings = entry.message.failureCallback;
  if (!settings) throw badRequest(`dlq message ${dlqId} has no failure callback to trigger`);
  const current = entry.failureCallbackInfo?.state;
  if (current !== 'CALLBACK_FAIL') {
    throw badRequest(`the failure callback of ${dlqId} can only be re-triggered from CALLBACK_FAIL, it is ${current ?? 'unknown'}`);
  }
  const now = ctx.config.now();
  const body = failureCallbackBody(entry.message, entry.retried, entry.response, {
    dlqId,
    error: entry.error,
    sourceBodyBase64: failureSourceBody(state, entry.message),
  });
  const message = callbackMessage(
    { source: entry.message, settings, kind: 'failure-callback', body, seq: state.nextSeq, at: now, dlqId },
    ctx.config,
  );
  await ctx.store.commit({ type: 'dlq.retriggered', dlqId, at: now, message });
  ctx.events.emit({ type: 'failure-callback-state', dlqId, state: 'CALLBACK_INPROGRESS' });
  ctx.events.emit({
    type: 'callback',
    messageId: message.id,
    kind: 'failure-callback',
    url: message.url,
    sourceMessageId: entry.message.id,
  });
  ctx.engine.admit([message]);
  return json({ workflowRunId: entry.message.workflow.runId, workflowCreatedAt: entry.message.workflow.createdAt });
}

function existing(ctx: ServerContext, dlqId: string | undefined): DlqEntry {
  const entry = ctx.store.state.dlq.get(dlqId ?? '');
  if (!entry || !live(ctx, entry, ctx.config.now())) throw notFound(`dlq message ${dlqId ?? ''} not found`);
  return entry;
}

function live(ctx: ServerContext, entry: DlqEntry, now: number): boolean {
  return dlqLive(entry.at, { now, dlqRetentionMs: ctx.plan.max_dlq_retention_time_milis });
}
