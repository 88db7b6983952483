import { readCount } from '../http/messages';
import { badRequest, json, type Reply } from '../http/exchange';
import type { Route, ServerContext } from '../http/router';
import type { DevState } from '../state/dev-state';
import type { DlqEntry, WorkflowRunRecord } from '../state/records';
import { REDACTED } from '../http/views';

// `GET /v2/workflows/events`: the runs with their steps, newest first, as the Workflow SDK's
// `client.logs` reads them (grouped by run).

const PAGE = 100;

export function runLogRoutes(ctx: ServerContext): Route[] {
  return [{ method: 'GET', path: '/v2/workflows/events', auth: 'messaging', handler: ({ query }) => runLogs(ctx, query) }];
}

function runLogs(ctx: ServerContext, query: URLSearchParams): Reply {
  const groupBy = query.get('groupBy');
  if (groupBy !== null && groupBy !== 'workflowRunId') throw badRequest(`invalid groupBy ${JSON.stringify(groupBy)}: use workflowRunId`);
  const ids = query.getAll('workflowRunId').filter(Boolean);
  const url = query.get('workflowUrl');
  const state = query.get('state') ?? query.get('workflowState');
  const count = readCount(query, PAGE, 1000);
  const cursor = query.get('cursor');
  const before = cursor === null || cursor === '' ? undefined : Number(cursor);
  if (before !== undefined && !Number.isSafeInteger(before))
    throw badRequest(`invalid cursor ${JSON.stringify(cursor)}: pass back a cursor from an earlier page`);
  const runs = [...ctx.store.state.runs.values()]
    .map((run, order) => ({ run, order }))
    .reverse()
    .filter(({ run, order }) => (before === undefined || order < before) && (ids.length === 0 || ids.includes(run.runId)))
    .filter(({ run }) => (!url || run.url === url) && (!state || run.state === state));
  const page = runs.slice(0, count);
  const last = page.at(-1);
  const index = indexRuns(ctx.store.state);
  return json({
    runs: page.map(({ run }) => runLog(run, index)),
    ...(runs.length > count && last ? { cursor: String(last.order) } : {}),
  });
}

/** What a page of run logs looks up per run and per step, gathered in one pass over the DLQ and the waiters. */
interface RunIndex {
  state: DevState;
  /** The first DLQ entry of each run. */
  dlqByRun: Map<string, DlqEntry>;
  /** The messages in the DLQ. */
  failedMessages: Set<string>;
  waitingByRun: Map<string, Array<{ eventId: string; deadline: number }>>;
}

function indexRuns(state: DevState): RunIndex {
  const dlqByRun = new Map<string, DlqEntry>();
  const failedMessages = new Set<string>();
  for (const entry of state.dlq.values()) {
    failedMessages.add(entry.message.id);
    const runId = entry.message.workflow?.runId;
    if (runId !== undefined && !dlqByRun.has(runId)) dlqByRun.set(runId, entry);
  }
  const waitingByRun = new Map<string, Array<{ eventId: string; deadline: number }>>();
  for (const waiter of state.waiters.values()) {
    const waits = waitingByRun.get(waiter.runId) ?? [];
    waits.push({ eventId: waiter.eventId, deadline: waiter.deadline });
    waitingByRun.set(waiter.runId, waits);
  }
  return { state, dlqByRun, failedMessages, waitingByRun };
}

/** One run as the SDK's `WorkflowRunLog`: its state, times, steps and what the route returned. */
function runLog(run: WorkflowRunRecord, index: RunIndex): Record<string, unknown> {
  const dlqEntry = index.dlqByRun.get(run.runId);
  const groups: Array<{ type: 'sequential' | 'parallel'; steps: Record<string, unknown>[] }> = [];
  const redacted = run.trigger.redact?.body === true;
  run.steps.forEach((step, position) => {
    const log = stepLog(index, step, position, redacted);
    const parallel = Number(log.concurrent) > 1;
    const previous = groups.at(-1);
    if (parallel && previous?.type === 'parallel') previous.steps.push(log);
    else groups.push({ type: parallel ? 'parallel' : 'sequential', steps: [log] });
  });
  const invoker = run.trigger.workflow?.invoker;
  const waiting = index.waitingByRun.get(run.runId) ?? [];
  return {
    workflowRunId: run.runId,
    workflowUrl: run.url,
    workflowState: run.state,
    workflowRunCreatedAt: run.createdAt,
    ...(run.completedAt !== undefined ? { workflowRunCompletedAt: run.completedAt } : {}),
    steps: groups,
    ...(run.responseBase64 !== undefined
      ? { workflowRunResponse: redacted ? REDACTED : Buffer.from(run.responseBase64, 'base64').toString('utf8') }
      : {}),
    // Not in the service's answer: what the run waits for now, for the console.
    ...(waiting.length > 0 ? { waiting } : {}),
    ...(dlqEntry ? { dlqId: dlqEntry.dlqId } : {}),
    ...(invoker ? { invoker: { workflowRunId: invoker.runId, workflowUrl: invoker.url, workflowRunCreatedAt: invoker.createdAt } } : {}),
    ...(dlqEntry?.failureCallbackInfo && dlqEntry.message.failureCallback
      ? {
          failureFunction: {
            url: dlqEntry.message.failureCallback.url,
            state: dlqEntry.failureCallbackInfo.state,
            dlqId: dlqEntry.dlqId,
            failStatus: dlqEntry.response?.status ?? 0,
            failResponse: dlqEntry.response ? Buffer.from(dlqEntry.response.bodyBase64, 'base64').toString('utf8') : (dlqEntry.error ?? ''),
            failHeaders: dlqEntry.response?.headers ?? {},
          },
        }
      : {}),
  };
}

/** A step of a run: what the SDK published for it, and how its message fared. */
function stepLog(index: RunIndex, step: WorkflowRunRecord['steps'][number], position: number, redacted: boolean): Record<string, unknown> {
  const text = Buffer.from(step.bodyBase64, 'base64').toString('utf8');
  let published: Record<string, unknown> = {};
  if (position === 0) published = { stepId: 0, stepName: 'init', stepType: 'Initial', out: text, concurrent: 1 };
  else {
    try {
      published = JSON.parse(text) as Record<string, unknown>;
    } catch {
      published = { out: text };
    }
  }
  const pending = index.state.messages.get(step.messageId);
  const failed = index.failedMessages.has(step.messageId);
  const stepState = failed ? 'STEP_FAILED' : pending ? (pending.retried > 0 ? 'STEP_RETRY' : 'STEP_PROGRESS') : 'STEP_SUCCESS';
  return {
    callType: 'step',
    concurrent: 1,
    ...published,
    ...(redacted && 'out' in published ? { out: REDACTED } : {}),
    messageId: step.messageId,
    state: stepState,
    // Not in the service's answer: when a step still pending is due (a sleep's end), for the console.
    ...(pending ? { dueAt: pending.record.notBefore } : {}),
  };
}
