import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { newRunId } from '../engine/actions';
import { readEnqueueSettings } from '../engine/enqueue-settings';
import { select } from '../http/dlq';
import { json, type Reply } from '../http/reply';
import type { Route, RouteRequest } from '../http/router';
import type { Service } from '../service';
import type { DlqEntry, MessageRecord } from '../state/records';

// What the Workflow SDK's `client.dlq` does with a failed run: resume it from the failed step,
// restart it from the beginning as a new run, or delete its entry. (`retryFailureFunction` is the
// spec's failure-callback re-trigger, in http/dlq.ts.)

export function workflowDlqRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/workflows/dlq/resume',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => resume(service, request),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/restart',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: (request) => restart(service, request),
    },
    {
      method: 'DELETE',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: async ({ query }) => {
        const { entries, cursor } = runEntries(service, query);
        await service.store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
  ];
}

/** The selected entries that are failed runs' (a plain message's entry is not the workflow DLQ's). */
function runEntries(service: Service, query: URLSearchParams): { entries: DlqEntry[]; cursor: string | undefined } {
  const { entries, cursor } = select(service, query);
  return { entries: entries.filter((entry) => entry.message.workflow !== undefined), cursor };
}

/**
 * Resume, as the service does it: a new run (a new id, the one answered) with the failed run's
 * history, its failed step delivered again, so the run goes on from there; the failed run keeps its
 * history and its failure, and the entry leaves the DLQ.
 */
async function resume(service: Service, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(service, request.query);
  const override = runOverrides(service, request);
  const now = service.config.now();
  const messages = await service.actions.resendFromDlq(entries, (copy) =>
    override({ ...copy, workflow: { ...copy.workflow!, runId: newRunId(), createdAt: now } }),
  );
  return json({ workflowRuns: messages.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** The run starts over as a new run: its trigger sent again under a new run id; the entry leaves. */
async function restart(service: Service, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(service, request.query);
  const override = runOverrides(service, request);
  const triggers = await service.actions.restartRuns(entries, override);
  return json({ workflowRuns: triggers.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** `<P>-Retries` and flow control sent with a resume or restart: the new run's, instead of the old one's. */
function runOverrides(service: Service, request: RouteRequest): (message: MessageRecord) => MessageRecord {
  const settings = readEnqueueSettings(request, service.config.headerPrefix, service.plan, service.config.now());
  return (message) => ({
    ...message,
    ...(settings.retriesGiven ? { maxRetries: settings.maxRetries } : {}),
    ...(settings.flowControl ? { flowControl: settings.flowControl } : {}),
  });
}

const runOf = (message: MessageRecord) => ({ workflowRunId: message.workflow!.runId, workflowCreatedAt: message.workflow!.createdAt });
