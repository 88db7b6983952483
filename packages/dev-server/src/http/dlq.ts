import type { ServerContext } from '../server-context';
import type { DlqEntry } from '../state/records';
import { failureCallbackBody } from '../engine/callback-body';
import { callbackMessage } from '../engine/callback-message';
import { dlqLive } from '../state/expiry';
import { readDlqQuery } from './dlq-query';
import { dlqView } from './dlq-view';
import { badRequest, notFound } from './http-error';
import { json, type Reply } from './reply';
import type { Route } from './router';

/** The workflow DLQ: listing (spec 7, and `GET /v2/dlq?source=workflow`) and the re-trigger (spec 9). */
export function dlqRoutes(ctx: ServerContext): Route[] {
  return [
    { method: 'GET', path: '/v2/workflows/dlq', auth: 'messaging', handler: (request) => list(ctx, request.query, true) },
    {
      method: 'GET',
      path: '/v2/dlq',
      auth: 'messaging',
      handler: (request) => {
        const source = request.query.get('source');
        if (source !== null && source !== 'workflow' && source !== 'message') {
          throw badRequest(`invalid source ${JSON.stringify(source)}: use "workflow" (or "message")`);
        }
        return list(ctx, request.query, source === 'workflow');
      },
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/callback/:dlqId',
      auth: 'messaging',
      handler: (request) => retrigger(ctx, request.params.dlqId ?? ''),
    },
  ];
}

/** Newest first; the cursor is the position of the last entry shown, and absent on the last page. */
function list(ctx: ServerContext, query: URLSearchParams, workflowOnly: boolean): Reply {
  const { before, count, matches } = readDlqQuery(query);
  const now = ctx.config.now();
  const entries = [...ctx.store.state.dlq.values()]
    .filter((entry) => live(ctx, entry, now) && (!workflowOnly || entry.message.workflow !== undefined))
    .filter((entry) => (before === undefined || entry.order < before) && matches(entry))
    .sort((a, b) => b.order - a.order);
  const page = entries.slice(0, count);
  const last = page.at(-1);
  return json({ messages: page.map(dlqView), ...(entries.length > count && last ? { cursor: String(last.order) } : {}) });
}

/**
 * Sends the failure callback of a DLQ entry again, only from `CALLBACK_FAIL` (400 otherwise; 404
 * for an unknown id). The state goes to `CALLBACK_INPROGRESS` and then follows the real outcome.
 */
async function retrigger(ctx: ServerContext, dlqId: string): Promise<Reply> {
  const { state } = ctx.store;
  const entry = state.dlq.get(dlqId);
  const now = ctx.config.now();
  if (!entry || !live(ctx, entry, now)) throw notFound(`dlq message ${dlqId} not found`);
  const settings = entry.message.failureCallback;
  if (!settings) throw badRequest(`dlq message ${dlqId} has no failure callback to trigger`);
  const current = entry.failureCallbackInfo?.state;
  if (current !== 'CALLBACK_FAIL') {
    throw badRequest(`the failure callback of ${dlqId} can only be re-triggered from CALLBACK_FAIL, it is ${current ?? 'unknown'}`);
  }
  const body = failureCallbackBody(entry.message, entry.retried, entry.response, dlqId);
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
  return json({
    workflowRunId: entry.message.workflow?.runId ?? '',
    workflowCreatedAt: entry.message.workflow?.createdAt ?? entry.message.createdAt,
  });
}

function live(ctx: ServerContext, entry: DlqEntry, now: number): boolean {
  return dlqLive(entry.at, { now, dlqRetentionMs: ctx.plan.max_dlq_retention_time_milis });
}
