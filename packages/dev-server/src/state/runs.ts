import type { DevState } from './dev-state';
import { deliveredHeaderValues } from './header-values';
import { bodyBase64, type MessageRecord, type RunEventRecord, type RunStepRecord, type WorkflowRunRecord } from './records';

// Workflow runs as the reducer derives them: a trigger message (`<P>-Workflow-Init: true`) starts a
// run, and every later message it publishes for that run id is one of its steps. Derived from
// accepted messages, a run is as durable as they are; a compaction keeps it as one `run.restored`.

/** Runs kept after they end; the oldest ended ones are dropped beyond this. */
const RUN_LIMIT = 1000;

/** Applies one accepted message to the run it belongs to: a trigger starts a run, a step joins it. */
export function noteWorkflowMessage(state: DevState, message: MessageRecord): void {
  const workflow = message.workflow;
  if (!workflow || message.kind !== 'message') return;
  if (workflow.init) {
    if (state.runs.has(workflow.runId)) return;
    state.runs.set(workflow.runId, {
      runId: workflow.runId,
      url: workflow.url,
      createdAt: workflow.createdAt,
      state: 'RUN_STARTED',
      steps: [stepRecord(message)],
      settings: runSettings(message),
      trigger: message,
      ...(workflow.restartOf !== undefined ? { origin: { runId: workflow.restartOf, action: 'restart' as const } } : {}),
    });
    if (workflow.restartOf !== undefined)
      noteRunEvent(state, workflow.restartOf, { at: message.createdAt, kind: 'restarted', runId: workflow.runId });
    trimRuns(state);
    return;
  }
  const run = state.runs.get(workflow.runId);
  if (!run) return;
  // A `context.call`'s request to a third party is not a step; its answer comes back as one.
  if (workflow.callType === 'toCallback') {
    const stepId = callStepId(message);
    if (stepId !== undefined) {
      (run.calls ??= {})[stepId] = {
        url: message.url,
        method: message.method,
        headers: deliveredHeaderValues(message.contentType, message.forwardHeaders),
        bodyBase64: bodyBase64(message),
      };
    }
    return;
  }
  run.steps.push(stepRecord(message));
  const webhook = issuedWebhook(message.body);
  if (webhook !== undefined) (run.webhooks ??= []).push(webhook);
}

function stepRecord(message: MessageRecord): RunStepRecord {
  const step: RunStepRecord = {
    messageId: message.id,
    bodyBase64: bodyBase64(message),
    createdAt: message.createdAt,
    retries: message.maxRetries,
    headers: deliveredHeaderValues(message.contentType, message.forwardHeaders),
  };
  if (message.retryDelay !== undefined) step.retryDelay = message.retryDelay;
  return step;
}

/** The step a call's request is for: the SDK names it in the headers its answer comes back with. */
function callStepId(message: MessageRecord): string | undefined {
  const headers = message.callback?.headers ?? {};
  for (const name of Object.keys(headers)) if (name.toLowerCase().endsWith('-workflow-stepid')) return headers[name];
  return undefined;
}

/**
 * The event id a `createWebhook` step issued (the SDK makes the URL itself and publishes it as the
 * step's result), or `undefined` for any other step.
 */
function issuedWebhook(body: string): string | undefined {
  // Most steps are not webhooks: a substring test spares them a decode and a parse.
  if (!body.includes('CreateWebhook')) return undefined;
  const text = Buffer.from(body, 'latin1').toString('utf8');
  try {
    const step = JSON.parse(text) as { stepType?: unknown; out?: unknown };
    if (step.stepType !== 'CreateWebhook' || typeof step.out !== 'string') return undefined;
    const out = JSON.parse(step.out) as { eventId?: unknown };
    return typeof out.eventId === 'string' && out.eventId !== '' ? out.eventId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A failed run resumed from the workflow DLQ: as on the service, a new run (the id `again` carries)
 * with the failed run's history, the failed step's message replaced by `again`, which is delivered
 * anew. The failed run keeps its history and its failure. A plain DLQ retry of a step, with the same
 * run id, makes the run go on instead.
 */
export function resumeRunStep(state: DevState, failed: MessageRecord, again: MessageRecord): void {
  const run = failed.workflow && state.runs.get(failed.workflow.runId);
  if (!run || !again.workflow) return;
  const steps = run.steps.map((step) => (step.messageId === failed.id ? { ...step, messageId: again.id } : step));
  if (again.workflow.runId === run.runId) {
    noteRunEvent(state, run.runId, { at: again.createdAt, kind: 'retried', messageId: failed.id });
    run.steps = steps;
    if (run.state === 'RUN_FAILED') {
      run.state = 'RUN_STARTED';
      delete run.completedAt;
    }
    return;
  }
  noteRunEvent(state, run.runId, { at: again.createdAt, kind: 'resumed', messageId: failed.id, runId: again.workflow.runId });
  // The new run carries the steps; what happened to the failed run stays on the failed run.
  const { completedAt: _completedAt, responseBase64: _response, earlyEvents: _events, timeline: _timeline, ...kept } = run;
  const trigger = run.trigger.workflow
    ? { ...run.trigger, workflow: { ...run.trigger.workflow, runId: again.workflow.runId, createdAt: again.workflow.createdAt } }
    : run.trigger;
  state.runs.set(again.workflow.runId, {
    ...kept,
    // Resume may set new retries and flow control; the rest of the run's settings carry over.
    settings: { ...kept.settings, maxRetries: again.maxRetries, ...(again.flowControl ? { flowControl: again.flowControl } : {}) },
    runId: again.workflow.runId,
    createdAt: again.workflow.createdAt,
    state: 'RUN_STARTED',
    steps,
    trigger,
    origin: { runId: run.runId, action: 'resume' },
  });
  trimRuns(state);
}

/** Events kept per run: a run retried in a loop keeps its latest. */
const TIMELINE_LIMIT = 100;

/** Notes what happened to a run on its timeline, when the server still knows the run. */
export function noteRunEvent(state: DevState, runId: string | undefined, event: RunEventRecord): void {
  const run = runId === undefined ? undefined : state.runs.get(runId);
  if (!run) return;
  const timeline = (run.timeline ??= []);
  timeline.push(event);
  if (timeline.length > TIMELINE_LIMIT) timeline.splice(0, timeline.length - TIMELINE_LIMIT);
}

/** What a run's trigger set that every later message of the run carries too. */
function runSettings(trigger: MessageRecord): WorkflowRunRecord['settings'] {
  const settings: WorkflowRunRecord['settings'] = { maxRetries: trigger.maxRetries };
  if (trigger.retryDelay !== undefined) settings.retryDelay = trigger.retryDelay;
  if (trigger.flowControl) settings.flowControl = trigger.flowControl;
  if (trigger.failureCallback) settings.failureCallback = trigger.failureCallback;
  return settings;
}

/**
 * The run's steps up to and including `messageId`, as the SDK reads its history: the trigger's body
 * first, then each step's, every one base64 with its message id.
 */
export function runHistory(
  state: DevState,
  runId: string,
  upTo?: string,
): Array<{ messageId: string; body: string; callType: 'step' }> | undefined {
  const run = state.runs.get(runId);
  if (!run) return undefined;
  const end = upTo === undefined ? -1 : run.steps.findIndex((step) => step.messageId === upTo);
  const steps = end === -1 ? run.steps : run.steps.slice(0, end + 1);
  return steps.map((step) => ({ messageId: step.messageId, body: step.bodyBase64, callType: 'step' }));
}

/** Drops the oldest ended runs beyond {@link RUN_LIMIT}; a run still going is never dropped. */
function trimRuns(state: DevState): void {
  if (state.runs.size <= RUN_LIMIT) return;
  for (const [runId, run] of state.runs) {
    if (state.runs.size <= RUN_LIMIT) return;
    if (run.state !== 'RUN_STARTED') state.runs.delete(runId);
  }
}
