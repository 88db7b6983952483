import { QUERY_PARAMETERS } from '@mailroom/core/protocol';
import { cancel, readCount } from '../http/messages';
import { readRunFilter } from './run-logs';
import { readBody, badRequest, notFound, empty, json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import { runHistory } from './runs';
import { dropWaiters } from './waiters';

// The workflow endpoints the Workflow SDK calls while it drives a run: its history (`LazyFetch`),
// the end of a run, and cancelling runs.

/** `GET` and `DELETE /v2/workflows/runs/{runId}`, and the bulk `DELETE /v2/workflows/runs`. */
export function workflowRunRoutes(ctx: ServerContext): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/runs/:runId',
      auth: 'messaging',
      handler: ({ params }) => {
        const history = runHistory(ctx.store.state, params.runId ?? '');
        if (!history) throw notFound(`workflow run ${params.runId ?? ''} not found`);
        return json(history);
      },
    },
    {
      method: 'DELETE',
      path: '/v2/workflows/runs/:runId',
      auth: 'messaging',
      handler: (request) => endRun(ctx, request.params.runId ?? '', request),
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
        const chosen = [...ctx.store.state.runs.values()]
          .filter((run) => run.state === 'RUN_STARTED' && (ids.length === 0 || ids.includes(run.runId)) && matches(run))
          .slice(0, count);
        let cancelled = 0;
        for (const run of chosen) if (await cancelRun(ctx, run.runId)) cancelled += 1;
        return json({ cancelled });
      },
    },
  ];
}

/**
 * The end of a run: with `cancel=true` its pending messages are cancelled and it is `RUN_CANCELED`;
 * otherwise the route returned, and the body is what it returned (`RUN_SUCCESS`).
 */
async function endRun(ctx: ServerContext, runId: string, request: Parameters<Route['handler']>[0]): Promise<Reply> {
  const run = ctx.store.state.runs.get(runId);
  if (!run) throw notFound(`workflow run ${runId} not found`);
  if (request.query.get('cancel') === 'true') {
    await cancelRun(ctx, runId);
    return empty();
  }
  const body = await readBody(request.req, ctx.plan.max_message_size, () =>
    badRequest('the run result is larger than the max message size'),
  );
  if (run.state === 'RUN_STARTED') {
    await ctx.store.commit({
      type: 'run.ended',
      runId,
      at: ctx.config.now(),
      state: 'RUN_SUCCESS',
      responseBase64: body.toString('base64'),
    });
    ctx.events.emit({ type: 'workflow-run', runId, state: 'RUN_SUCCESS' });
  }
  return empty();
}

/** Cancels a run that is still going: its pending messages, then the run. Answers whether it was going. */
async function cancelRun(ctx: ServerContext, runId: string): Promise<boolean> {
  const run = ctx.store.state.runs.get(runId);
  if (!run || run.state !== 'RUN_STARTED') return false;
  const pending = [...ctx.store.state.messages.values()]
    .filter(({ record }) => record.workflow?.runId === runId)
    .map(({ record }) => record.id);
  await cancel(ctx, pending);
  await dropWaiters(ctx, runId);
  await ctx.store.commit({ type: 'run.ended', runId, at: ctx.config.now(), state: 'RUN_CANCELED' });
  ctx.events.emit({ type: 'workflow-run', runId, state: 'RUN_CANCELED' });
  return true;
}
