import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { resend, select } from '../http/dlq';
import { json, type Reply } from '../http/exchange';
import type { Route, RouteRequest, ServerContext } from '../http/router';
import { readEnqueueSettings } from '../http/enqueue-settings';
import { newMessageId, randomHex } from '../ids';
import type { DlqEntry, MessageRecord } from '../state/records';

// What the Workflow SDK's `client.dlq` does with a failed run: resume it from the failed step,
// restart it from the beginning as a new run, or delete its entry. (`retryFailureFunction` is the
// spec's failure-callback re-trigger, in http/dlq.ts.)

export function workflowDlqRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/workflows/dlq/resume',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => resume(ctx, request),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/restart',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => restart(ctx, request),
    },
    {
      method: 'DELETE',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: async ({ query }) => {
        const { entries, cursor } = runEntries(ctx, query);
        await ctx.store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
  ];
}

/** The selected entries that are failed runs' (a plain message's entry is not the workflow DLQ's). */
function runEntries(ctx: ServerContext, query: URLSearchParams): { entries: DlqEntry[]; cursor: string | undefined } {
  const { entries, cursor } = select(ctx, query);
  return { entries: entries.filter((entry) => entry.message.workflow !== undefined), cursor };
}

/**
 * Resume, as the service does it: a new run (a new id, the one answered) with the failed run's
 * history, its failed step delivered again, so the run goes on from there; the failed run keeps its
 * history and its failure, and the entry leaves the DLQ.
 */
async function resume(ctx: ServerContext, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(ctx, request.query);
  const override = runOverrides(ctx, request);
  const now = ctx.config.now();
  const messages = await resend(ctx, entries, (copy) =>
    override({ ...copy, workflow: { ...copy.workflow!, runId: newRunId(), createdAt: now } }),
  );
  return json({ workflowRuns: messages.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** The run starts over as a new run: its trigger sent again under a new run id; the entry leaves. */
async function restart(ctx: ServerContext, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(ctx, request.query);
  const override = runOverrides(ctx, request);
  const now = ctx.config.now();
  let seq = ctx.store.state.nextSeq;
  const triggers: MessageRecord[] = [];
  for (const entry of entries) {
    const failedRunId = entry.message.workflow!.runId;
    const trigger = ctx.store.state.runs.get(failedRunId)?.trigger;
    if (!trigger?.workflow) continue;
    triggers.push(
      override({
        ...trigger,
        id: newMessageId(),
        seq: seq++,
        notBefore: now,
        dueAt: now,
        createdAt: now,
        workflow: { ...trigger.workflow, runId: newRunId(), createdAt: now, restartOf: failedRunId },
      }),
    );
  }
  await ctx.store.commit({ type: 'messages.accepted', at: now, messages: triggers });
  await ctx.store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) });
  ctx.engine.admit(triggers);
  return json({ workflowRuns: triggers.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** `<P>-Retries` and flow control sent with a resume or restart: the new run's, instead of the old one's. */
function runOverrides(ctx: ServerContext, request: RouteRequest): (message: MessageRecord) => MessageRecord {
  const settings = readEnqueueSettings(request.req, ctx.config.headerPrefix, ctx.plan, ctx.config.now());
  return (message) => ({
    ...message,
    ...(settings.retriesGiven ? { maxRetries: settings.maxRetries } : {}),
    ...(settings.flowControl ? { flowControl: settings.flowControl } : {}),
  });
}

const newRunId = (): string => `wfr_${randomHex(12)}`;

const runOf = (message: MessageRecord) => ({ workflowRunId: message.workflow!.runId, workflowCreatedAt: message.workflow!.createdAt });
