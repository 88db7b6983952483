// The endpoints that act on workflow runs: what the Workflow SDK calls while it drives one (its
// history for `LazyFetch`, its end, cancelling runs), and what its `client.dlq` does with a failed
// one: resume it from the failed step, restart it as a new run, or delete its entry.
// (`retryFailureFunction` is the spec's failure-callback re-trigger, in http/dlq.ts.)
import { QUERY_PARAMETERS } from '@mailroom/core/internal-protocol';
import { badRequest, notFound } from '../errors';
import { readCount } from '../http/messages';
import type { Service } from '../service';
import { runHistory } from '../state/runs';
import { readRunFilter } from './run-logs';
import { newRunId } from '../engine/actions';
import { readEnqueueSettings } from '../engine/enqueue-settings';
import { select } from '../http/dlq';
import { empty, json, type Reply, type Route, type RouteRequest } from '../http/router';
import type { DlqEntry, MessageRecord } from '../state/records';

/** `GET` and `DELETE /v2/workflows/runs/{runId}`, and the bulk `DELETE /v2/workflows/runs`. */
export function workflowRunRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/runs/:runId',
      auth: 'messaging',
      readOnly: 'answer',
      query: [],
      handler: ({ params }) => {
        const history = runHistory(service.store.state, params.runId ?? '');
        if (!history) throw notFound(`workflow run ${params.runId ?? ''} not found`);
        return json(history);
      },
    },
    {
      // The end of a run: with `cancel=true` it is cancelled; otherwise the route returned, and the body is what it returned.
      method: 'DELETE',
      path: '/v2/workflows/runs/:runId',
      auth: 'messaging',
      readOnly: 'refuse',
      query: ['cancel'],
      body: 'payload',
      handler: async (request) => {
        const runId = request.params.runId ?? '';
        if (!service.store.state.runs.has(runId)) throw notFound(`workflow run ${runId} not found`);
        if (request.query.get('cancel') === 'true') {
          await service.actions.cancelRun(runId);
          return empty();
        }
        const body = await request.body(service.plan.max_message_size, () =>
          badRequest('the run result is larger than the max message size'),
        );
        await service.actions.endRun(runId, body.toString('base64'));
        return empty();
      },
    },
    {
      method: 'DELETE',
      path: '/v2/workflows/runs',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.workflowCancel,
      handler: async ({ query, shown }) => {
        // Ids and filters, or none at all: every run still going (the SDK's `cancel({ all: true })`, body `{}`).
        const matches = readRunFilter(query, false, shown);
        const ids = query
          .getAll('workflowRunIds')
          .flatMap((value) => value.split(','))
          .filter(Boolean);
        const count = readCount(query, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
        const chosen = [...service.store.state.runs.values()]
          .filter((run) => run.state === 'RUN_STARTED' && (ids.length === 0 || ids.includes(run.runId)) && matches(run))
          .slice(0, count);
        let cancelled = 0;
        for (const run of chosen) if (await service.actions.cancelRun(run.runId)) cancelled += 1;
        return json({ cancelled });
      },
    },
  ];
}

export function workflowDlqRoutes(service: Service): Route[] {
  return [
    {
      method: 'POST',
      path: '/v2/workflows/dlq/resume',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.workflowDlq,
      sends: true,
      handler: (request) => resume(service, request),
    },
    {
      method: 'POST',
      path: '/v2/workflows/dlq/restart',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.workflowDlq,
      sends: true,
      handler: (request) => restart(service, request),
    },
    {
      method: 'DELETE',
      path: '/v2/workflows/dlq',
      auth: 'messaging',
      readOnly: 'refuse',
      query: QUERY_PARAMETERS.workflowDlq,
      handler: async (request) => {
        const { entries, cursor } = runEntries(service, request);
        await service.store.commit({ type: 'dlq.deleted', at: service.config.now(), ids: entries.map((entry) => entry.dlqId) });
        return json({ deleted: entries.length, ...(cursor ? { cursor } : {}) });
      },
    },
  ];
}

/** The selected entries that are failed runs' (a plain message's entry is not the workflow DLQ's). */
function runEntries(service: Service, request: RouteRequest): { entries: DlqEntry[]; cursor: string | undefined } {
  const { entries, cursor } = select(service, request);
  return { entries: entries.filter((entry) => entry.message.workflow !== undefined), cursor };
}

/**
 * Resume, as the service does it: a new run (a new id, the one answered) with the failed run's
 * history, its failed step delivered again, so the run goes on from there; the failed run keeps its
 * history and its failure, and the entry leaves the DLQ.
 */
async function resume(service: Service, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(service, request);
  const override = runOverrides(service, request);
  const now = service.config.now();
  const messages = await service.actions.resendFromDlq(entries, (copy) =>
    override({ ...copy, workflow: { ...copy.workflow!, runId: newRunId(), createdAt: now } }),
  );
  return json({ workflowRuns: messages.map(runOf), ...(cursor ? { cursor } : {}) });
}

/** The run starts over as a new run: its trigger sent again under a new run id; the entry leaves. */
async function restart(service: Service, request: RouteRequest): Promise<Reply> {
  const { entries, cursor } = runEntries(service, request);
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
