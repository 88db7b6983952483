import { DEFAULT_BACKOFF_EXPRESSION, headerNames, QUERY_PARAMETERS } from '@mailroom/core/internal-protocol';
import { readCount, readMessageFilter } from '../http/messages';
import { badRequest } from '../errors';
import type { Filters } from '../http/filters';
import type { Shown } from '../http/read-only';
import { json, type Reply, type Route } from '../http/router';
import type { Service } from '../service';
import type { DevState } from '../state/dev-state';
import type { DlqEntry, RunStepRecord, WorkflowRunRecord } from '../state/records';
import { canonicalHeaderName } from '../state/header-values';
import { labelFields, redacted } from '../http/views';

// `GET /v2/workflows/events`: the runs with their steps, newest first, as the Workflow SDK's
// `client.logs` reads them (grouped by run).

const PAGE = 100;

export function runLogRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/v2/workflows/events',
      auth: 'messaging',
      readOnly: 'answer',
      query: QUERY_PARAMETERS.workflowLogs,
      handler: ({ query, shown }) => runLogs(service, query, shown),
    },
  ];
}

function runLogs(service: Service, query: Filters, shown: Shown): Reply {
  const groupBy = query.get('groupBy');
  if (groupBy !== null && groupBy !== 'workflowRunId') throw badRequest(`invalid groupBy ${JSON.stringify(groupBy)}: use workflowRunId`);
  const matches = readRunFilter(query, true, shown);
  const count = readCount(query, PAGE, 1000);
  const cursor = query.get('cursor');
  const before = cursor === null ? undefined : Number(cursor);
  if (before !== undefined && !Number.isSafeInteger(before))
    throw badRequest(`invalid cursor ${JSON.stringify(cursor)}: pass back a cursor from an earlier page`);
  const runs = [...service.store.state.runs.values()]
    .map((run, order) => ({ run, order }))
    .reverse()
    .filter(({ run, order }) => (before === undefined || order < before) && matches(run));
  const page = runs.slice(0, count);
  const last = page.at(-1);
  const index = indexRuns(service);
  return json({
    runs: page.map(({ run }) => runLog(run, index)),
    ...(runs.length > count && last ? { cursor: String(last.order) } : {}),
  });
}

/**
 * The filters of run logs and bulk cancel, combined with AND: `workflowRunId` (any of), `workflowUrl`
 * (exact for logs; for cancel a prefix unless `workflowUrlExactMatch=true`), `workflowCreatedAt`,
 * `state`/`workflowState`, `messageId` (a run holding that step), and the message filters every
 * listing shares (label, caller, flow-control key, host, path, dates) applied to the run's trigger.
 */
export function readRunFilter(query: Filters, exactUrl: boolean, shown: Shown): (run: WorkflowRunRecord) => boolean {
  const ids = query
    .getAll('workflowRunId')
    .flatMap((value) => value.split(','))
    .filter(Boolean);
  const urls = query.getAll('workflowUrl');
  const exact = exactUrl || query.get('workflowUrlExactMatch') === 'true';
  const state = query.get('state') ?? query.get('workflowState');
  const createdAt = query.get('workflowCreatedAt');
  const messageId = query.get('messageId');
  const shared = readMessageFilter(query, shown);
  return (run) =>
    (ids.length === 0 || ids.includes(run.runId)) &&
    (urls.length === 0 || urls.some((url) => (exact ? shown(run.url) === url : shown(run.url).startsWith(url)))) &&
    (!state || run.state === state) &&
    (createdAt === null || run.createdAt === Number(createdAt)) &&
    (!messageId || run.steps.some((step) => step.messageId === messageId)) &&
    shared(run.trigger, run.createdAt);
}

/** What a page of run logs looks up per run and per step, gathered in one pass over the DLQ, waiters and logs. */
interface RunIndex {
  state: DevState;
  now: number;
  /** `<P>-Error-Step-Name`, lower case: the SDK names the step that threw in its failing answer. */
  errorStepHeader: string;
  /** The first DLQ entry of each run. */
  dlqByRun: Map<string, DlqEntry>;
  /** The messages in the DLQ. */
  failedMessages: Set<string>;
  waitingByRun: Map<string, Array<{ eventId: string; deadline: number }>>;
  /** Every failed attempt of each message the logs still hold, oldest first. */
  errorsByMessage: Map<string, StepError[]>;
}

/** One failed attempt, as the service's run logs list them. */
interface StepError {
  error: string;
  body: string;
  headers: Record<string, string[]>;
  status: number;
  time: number;
}

function indexRuns(service: Service): RunIndex {
  const { state } = service.store;
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
  const errorsByMessage = new Map<string, StepError[]>();
  state.logs.forEach((entry, position) => {
    // An id stands for a plain pending message (stored-messages.ts): not a workflow's.
    const message = state.logMessages[position];
    if (entry.state !== 'ERROR' || typeof message !== 'object' || message.workflow === undefined) return;
    const response = entry.attempt?.response;
    const errors = errorsByMessage.get(entry.messageId) ?? [];
    errors.push({
      error: entry.error ?? '',
      body: response ? Buffer.from(response.bodyBase64, 'base64').toString('utf8') : '',
      headers: response?.headers ?? {},
      status: response?.status ?? 0,
      time: entry.time,
    });
    errorsByMessage.set(entry.messageId, errors);
  });
  const errorStepHeader = headerNames(service.config.headerPrefix).errorStepName.toLowerCase();
  return { state, now: service.config.now(), errorStepHeader, dlqByRun, failedMessages, waitingByRun, errorsByMessage };
}

/** One run as the SDK's `WorkflowRunLog`: its state, times, steps and what the route returned. */
function runLog(run: WorkflowRunRecord, index: RunIndex): Record<string, unknown> {
  const dlqEntry = index.dlqByRun.get(run.runId);
  const groups: Array<{ type: 'sequential' | 'parallel' | 'next'; steps: Record<string, unknown>[] }> = [];
  const redactBody = run.trigger.redact?.body === true;
  run.steps.forEach((step, position) => {
    const log = stepLog(index, run, step, position, redactBody);
    const parallel = Number(log.concurrent) > 1;
    const previous = groups.at(-1);
    if (parallel && previous?.type === 'parallel') previous.steps.push(log);
    else groups.push({ type: parallel ? 'parallel' : 'sequential', steps: [log] });
  });
  // A run that returned or was cancelled has no next step, even while the delivery that ended it settles.
  const next = run.state === 'RUN_SUCCESS' || run.state === 'RUN_CANCELED' ? [] : run.steps.flatMap((step) => nextStep(index, step));
  if (next.length > 0) groups.push({ type: 'next', steps: next });
  const invoker = run.trigger.workflow?.invoker;
  const waiting = index.waitingByRun.get(run.runId) ?? [];
  return {
    workflowRunId: run.runId,
    workflowUrl: run.url,
    workflowState: run.state,
    workflowRunCreatedAt: run.createdAt,
    ...(run.completedAt !== undefined ? { workflowRunCompletedAt: run.completedAt } : {}),
    ...labelFields(run.trigger.label),
    steps: groups,
    ...(run.responseBase64 !== undefined
      ? {
          workflowRunResponse: redactBody
            ? redacted(Buffer.from(run.responseBase64, 'base64'))
            : Buffer.from(run.responseBase64, 'base64').toString('utf8'),
        }
      : {}),
    // Not in the service's answer, for the console: what the run waits for now, the run it resumes or
    // restarts, and what happened to it (dead-lettered, its failure function, resumed or restarted as).
    ...(waiting.length > 0 ? { waiting } : {}),
    ...(run.origin ? { origin: { workflowRunId: run.origin.runId, action: run.origin.action } } : {}),
    ...(run.timeline
      ? { timeline: run.timeline.map(({ runId, ...event }) => ({ ...event, ...(runId ? { workflowRunId: runId } : {}) })) }
      : {}),
    ...(dlqEntry ? { dlqId: dlqEntry.dlqId } : {}),
    ...(invoker ? { invoker: { workflowRunId: invoker.runId, workflowUrl: invoker.url, workflowRunCreatedAt: invoker.createdAt } } : {}),
    ...(dlqEntry?.failureCallbackInfo && dlqEntry.message.failureCallback
      ? {
          failureFunction: {
            // The workflow's URL, as the service names it (the failure function is served there).
            url: run.url,
            messageId: dlqEntry.message.id,
            state: dlqEntry.failureCallbackInfo.state,
            dlqId: dlqEntry.dlqId,
            failStatus: dlqEntry.response?.status ?? 0,
            failResponse: dlqEntry.response ? Buffer.from(dlqEntry.response.bodyBase64, 'base64').toString('utf8') : (dlqEntry.error ?? ''),
            failHeaders: dlqEntry.response?.headers ?? {},
            ...(dlqEntry.failureCallbackInfo.responseStatus !== undefined
              ? { responseStatus: dlqEntry.failureCallbackInfo.responseStatus }
              : {}),
            ...(dlqEntry.failureCallbackInfo.responseBodyBase64 !== undefined
              ? { responseBody: Buffer.from(dlqEntry.failureCallbackInfo.responseBodyBase64, 'base64').toString('utf8') }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * A step of a run: what the SDK published for it, how it fared, and the fields of its type. A step
 * whose message is delivered, being delivered or dead-lettered has its result: it succeeded. What
 * that delivery runs is the *next* step (see {@link nextStep}); only a step still waiting for its
 * time (a sleep) is in progress.
 */
function stepLog(
  index: RunIndex,
  run: WorkflowRunRecord,
  step: RunStepRecord,
  position: number,
  redactBody: boolean,
): Record<string, unknown> {
  const text = Buffer.from(step.bodyBase64, 'base64').toString('utf8');
  let published: Record<string, unknown> = {};
  // The trigger, as the service lists it: no step id (the SDK's steps count from 1).
  if (position === 0) published = { stepName: 'init', stepType: 'Initial', out: text, concurrent: 1 };
  else {
    try {
      published = JSON.parse(text) as Record<string, unknown>;
    } catch {
      published = { out: text };
    }
  }
  const { pending } = index.state;
  const dueAt = pending.dueAt(step.messageId);
  const waitingForItsTime = dueAt !== undefined && !pending.started(step.messageId) && dueAt > index.now;
  return {
    callType: 'step',
    concurrent: 1,
    ...published,
    ...(published.stepType === 'Call' ? callFields(run, published) : {}),
    ...(redactBody && 'out' in published ? { out: redacted(String(published.out)) } : {}),
    messageId: step.messageId,
    state: waitingForItsTime ? 'STEP_PROGRESS' : 'STEP_SUCCESS',
    ...(step.createdAt !== undefined ? { createdAt: step.createdAt } : {}),
    ...(step.retries !== undefined ? { retries: step.retries } : {}),
    ...retryDelayField(step.retries, step.retryDelay),
    ...(step.headers ? { headers: step.headers } : {}),
    // Not in the service's answer: when a step still pending is due (a sleep's end), for the console.
    ...(dueAt !== undefined ? { dueAt: Math.round(dueAt) } : {}),
  };
}

/**
 * The step a delivery of `step`'s message runs, while it runs, retries or failed for good: the
 * service's `next` group, named by the step name the SDK answered with, with every failed attempt.
 * The message that failed delivered `step`'s result; the step that threw is the one after it.
 */
function nextStep(index: RunIndex, step: RunStepRecord): Record<string, unknown>[] {
  const { pending } = index.state;
  const message = pending.get(step.messageId);
  const failed = index.failedMessages.has(step.messageId);
  if (!failed && (!message || (!pending.started(step.messageId) && pending.dueAt(step.messageId)! > index.now))) return [];
  const errors = index.errorsByMessage.get(step.messageId) ?? [];
  const stepName = errors.at(-1)?.headers[canonicalHeaderName(index.errorStepHeader)]?.[0];
  return [
    {
      messageId: step.messageId,
      ...(stepName ? { stepName } : {}),
      state: failed ? 'STEP_FAILED' : pending.retried(step.messageId) > 0 ? 'STEP_RETRY' : 'STEP_PROGRESS',
      retries: step.retries ?? message?.maxRetries ?? 0,
      ...retryDelayField(step.retries ?? message?.maxRetries ?? 0, step.retryDelay),
      ...(errors.length > 0 ? { errors } : {}),
    },
  ];
}

/** A Call step's request (from the message that called the third party) and the answer its result holds. */
function callFields(run: WorkflowRunRecord, published: Record<string, unknown>): Record<string, unknown> {
  const call = run.calls?.[String(published.stepId)];
  let answer: { status?: unknown; body?: unknown; header?: unknown } | undefined;
  try {
    answer = typeof published.out === 'string' ? (JSON.parse(published.out) as typeof answer) : undefined;
  } catch {
    answer = undefined;
  }
  return {
    ...(answer ? { callType: 'fromCallback' } : {}),
    ...(call
      ? {
          callUrl: call.url,
          callMethod: call.method,
          callHeaders: call.headers,
          callBody: Buffer.from(call.bodyBase64, 'base64').toString('utf8'),
        }
      : {}),
    ...(answer && typeof answer.status === 'number'
      ? { callResponseStatus: answer.status, callResponseBody: answer.body, callResponseHeaders: answer.header ?? {} }
      : {}),
  };
}

/**
 * A step's `retryDelay`, as the service lists it on a step that can be retried: its retry-delay
 * expression, else the default backoff written in that language (`min(86400, e^(2n))` seconds).
 */
function retryDelayField(retries: number | undefined, retryDelay: string | undefined): Record<string, string> {
  if (retryDelay !== undefined) return { retryDelay };
  return retries !== undefined && retries > 0 ? { retryDelay: DEFAULT_BACKOFF_EXPRESSION } : {};
}
