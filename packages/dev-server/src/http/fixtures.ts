import { badRequest, notFound } from '../errors';
import type { DevState } from '../state/dev-state';
import { knownMessage } from '../state/message-index';
import type { MessageRecord, WorkflowRunRecord } from '../state/records';
import type { Service } from '../service';
import { json, type Route } from './router';

// A message or a workflow run as `mailroom dev` saw it, exported as a test fixture that
// @mailroom/testing's `service.replay(fixture)` sends again: a bug seen locally becomes a test in one
// step. The body, headers and answers are as they were, so only the full token may read them.

export function fixtureRoutes(service: Service): Route[] {
  return [
    {
      method: 'GET',
      path: '/dev/messages/:messageId/fixture',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: ({ params }) => json(messageFixture(service.store.state, params.messageId ?? '')),
    },
    {
      method: 'GET',
      path: '/dev/workflows/runs/:runId/fixture',
      auth: 'messaging',
      readOnly: 'refuse',
      query: [],
      handler: ({ params }) => json(runFixture(service.store.state, params.runId ?? '')),
    },
  ];
}

/** One attempt's answer as recorded, or why there was none. */
export type RecordedAttempt =
  | { retried: number; status: number; headers: Record<string, string>; bodyBase64: string }
  | { retried: number; error: string };

/** What was sent: the destination, method, forwarded headers, body and delivery settings. */
interface SentMessage {
  url: string;
  method: string;
  /** What the destination got besides the service's own headers. */
  headers: Record<string, string>;
  bodyBase64: string;
  retries: number;
  timeoutSeconds: number;
  retryDelay?: string;
  failureCallback?: string;
  /** What the failure callback forwards (the Workflow SDK marks its failure calls so). */
  failureCallbackHeaders?: Record<string, string>;
}

/** `GET /dev/messages/{id}/fixture`: a message as `mailroom dev` saw it, for `@mailroom/testing`'s `replay`. */
export interface MessageFixture {
  /** The format's version. */
  fixture: 1;
  message: SentMessage & { messageId: string; callback?: string };
  /** Oldest first; response bodies are cut at 4 KiB, as the logs keep them. */
  attempts: RecordedAttempt[];
}

/**
 * `GET /dev/workflows/runs/{id}/fixture`: a workflow run as `mailroom dev` saw it. Its trigger starts
 * the run again; what the world outside the app gave it (each `context.call`'s answer, each event a
 * wait got) is given again; its steps are there to compare with the replayed run's.
 */
export interface RunFixture {
  fixture: 1;
  run: SentMessage & {
    workflowRunId: string;
    /** `<P>-Feature-Set` as the service honours it: `LazyFetch`, `InitialBody`. */
    features: string[];
  };
  /** Each step after the trigger, in order, as the SDK published it. */
  steps: Array<{ stepId?: number; stepName?: string; stepType?: string; out?: unknown }>;
  /** Each `context.call`'s request and the third party's answer, in the order they were made. */
  calls: Array<{ url: string; method: string; status: number; headers: Record<string, string>; body: string }>;
  /** Each wait's outcome, in order: the event's data, or that it timed out. */
  events: Array<{ eventId: string; dataBase64: string } | { eventId: string; timedOut: true }>;
}

function messageFixture(state: DevState, id: string): MessageFixture {
  const record = knownMessage(state, id);
  if (!record) throw notFound(`message ${id} not found: it is neither pending nor in the logs the server keeps`);
  if (record.redact) throw badRequest(`message ${id} redacts its body or headers, so it cannot be exported as a fixture`);
  const attempts = state.logs.flatMap((entry): RecordedAttempt[] => {
    if (entry.messageId !== id || (entry.state !== 'ERROR' && entry.state !== 'DELIVERED') || !entry.attempt) return [];
    const { retried, response, error } = entry.attempt;
    return [
      response
        ? { retried, status: response.status, headers: joined(response.headers), bodyBase64: response.bodyBase64 }
        : { retried, error: error ?? entry.error ?? 'no answer' },
    ];
  });
  return {
    fixture: 1,
    message: {
      messageId: record.id,
      ...sentMessage(record),
      ...(record.callback ? { callback: record.callback.url } : {}),
    },
    attempts,
  };
}

function runFixture(state: DevState, runId: string): RunFixture {
  const run = state.runs.get(runId);
  if (!run) throw notFound(`workflow run ${runId} not found: the server keeps the latest 1000 runs`);
  if (run.trigger.redact)
    throw badRequest(`workflow run ${runId} redacts its trigger's body or headers, so it cannot be exported as a fixture`);
  const steps = run.steps.slice(1).map((step) => parsedStep(step.bodyBase64));
  const calls: RunFixture['calls'] = [];
  const events: RunFixture['events'] = [];
  for (const step of steps) {
    if (step.stepType === 'Call') {
      const call = callOf(run, step);
      if (call) calls.push(call);
    }
    if (step.stepType === 'Wait' && typeof step.waitEventId === 'string') {
      events.push(
        step.waitTimeout === true
          ? { eventId: step.waitEventId, timedOut: true }
          : { eventId: step.waitEventId, dataBase64: typeof step.out === 'string' ? step.out : '' },
      );
    }
  }
  const workflow = run.trigger.workflow;
  return {
    fixture: 1,
    run: {
      workflowRunId: run.runId,
      ...sentMessage(run.trigger),
      features: [...(workflow?.lazyFetch ? ['LazyFetch'] : []), ...(workflow?.initialBody ? ['InitialBody'] : [])],
    },
    steps: steps.map(({ stepId, stepName, stepType, out }) => ({ stepId, stepName, stepType, out }) as RunFixture['steps'][number]),
    calls,
    events,
  };
}

function sentMessage(record: MessageRecord): SentMessage {
  return {
    url: record.url,
    method: record.method,
    headers: { ...(record.contentType ? { 'Content-Type': record.contentType } : {}), ...record.forwardHeaders },
    bodyBase64: Buffer.from(record.body, 'latin1').toString('base64'),
    retries: record.maxRetries,
    timeoutSeconds: record.timeoutSeconds,
    ...(record.retryDelay !== undefined ? { retryDelay: record.retryDelay } : {}),
    ...(record.failureCallback ? { failureCallback: record.failureCallback.url } : {}),
    ...(record.failureCallback && Object.keys(record.failureCallback.headers).length > 0
      ? { failureCallbackHeaders: record.failureCallback.headers }
      : {}),
  };
}

/** A step's body as the SDK published it (JSON); anything else as its text. */
function parsedStep(bodyBase64: string): Record<string, unknown> {
  const text = Buffer.from(bodyBase64, 'base64').toString('utf8');
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not a step the SDK wrote: kept as text.
  }
  return { out: text };
}

/** A Call step's request (the message to the third party) and the answer its result holds. */
function callOf(run: WorkflowRunRecord, step: Record<string, unknown>): RunFixture['calls'][number] | undefined {
  const request = run.calls?.[String(step.stepId)];
  if (!request || typeof step.out !== 'string') return undefined;
  let answer: { status?: unknown; body?: unknown; header?: unknown };
  try {
    answer = JSON.parse(step.out) as typeof answer;
  } catch {
    return undefined;
  }
  if (typeof answer.status !== 'number') return undefined;
  const header = answer.header !== null && typeof answer.header === 'object' ? (answer.header as Record<string, string[] | string>) : {};
  return {
    url: request.url,
    method: request.method,
    status: answer.status,
    headers: joined(header),
    body: typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body ?? ''),
  };
}

function joined(headers: Record<string, string[] | string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, values]) => [name, Array.isArray(values) ? values.join(', ') : values]));
}
