import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { badRequest, notFound } from '../errors';
import { readCount } from '../http/messages';
import { empty, json } from '../http/reply';
import type { Route } from '../http/router';
import type { Service } from '../service';
import { runHistory } from '../state/runs';
import { readRunFilter } from './run-logs';

// The workflow endpoints the Workflow SDK calls while it drives a run: its history (`LazyFetch`),
// the end of a run, and cancelling runs.

/** `GET` and `DELETE /v2/workflows/runs/{runId}`, and the bulk `DELETE /v2/workflows/runs`. */
export function workflowRunRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/runs/:runId',
      auth: 'messaging',
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
      query: QUERY_PARAMETERS.workflowCancel,
      handler: async ({ query }) => {
        // Ids, or filters, or neither: every run still going (the SDK's `cancel({ all: true })`).
        const matches = readRunFilter(query, false);
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
