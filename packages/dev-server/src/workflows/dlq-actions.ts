import { resend, select } from '../http/dlq';
import { json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import { newMessageId, randomHex } from '../ids';
import type { DlqEntry, MessageRecord } from '../state/records';

// What the Workflow SDK's `client.dlq` does with a failed run: resume it from the failed step,
// restart it from the beginning as a new run, or delete its entry. (`retryFailureFunction` is the
// spec's failure-callback re-trigger, in http/dlq.ts.)

export function workflowDlqRoutes(ctx: ServerContext): Route[] {
  return [
    { method: 'POST', path: '/v2/workflows/dlq/resume', auth: 'messaging', handler: ({ query }) => resume(ctx, query) },
    { method: 'POST', path: '/v2/workflows/dlq/restart', auth: 'messaging', handler: ({ query }) => restart(ctx, query) },
    {
      method: 'DELETE',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
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

/** The failed step is delivered again: the run goes on from there, its history kept. */
async function resume(ctx: ServerContext, query: URLSearchParams): Promise<Reply> {
  const { entries, cursor } = runEntries(ctx, query);
  const messages = await resend(ctx, entries);
  return json({ workflowRuns: messages.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** The run starts over as a new run: its trigger sent again under a new run id; the entry leaves. */
async function restart(ctx: ServerContext, query: URLSearchParams): Promise<Reply> {
  const { entries, cursor } = runEntries(ctx, query);
  const now = ctx.config.now();
  let seq = ctx.store.state.nextSeq;
  const triggers: MessageRecord[] = [];
  for (const entry of entries) {
    const trigger = ctx.store.state.runs.get(entry.message.workflow!.runId)?.trigger;
    if (!trigger?.workflow) continue;
    triggers.push({
      ...trigger,
      id: newMessageId(),
      seq: seq++,
      notBefore: now,
      dueAt: now,
      createdAt: now,
      workflow: { ...trigger.workflow, runId: `wfr_${randomHex(12)}`, createdAt: now },
    });
  }
  await ctx.store.commit({ type: 'messages.accepted', at: now, messages: triggers });
  await ctx.store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) });
  ctx.engine.admit(triggers);
  return json({ workflowRuns: triggers.map(runOf), ...(cursor ? { cursor } : {}) });
}

const runOf = (message: MessageRecord) => ({ workflowRunId: message.workflow!.runId, workflowCreatedAt: message.workflow!.createdAt });
