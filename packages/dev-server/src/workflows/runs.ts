import type { DevState } from '../state/dev-state';
import type { EnqueueSettings } from '../http/enqueue-settings';
import { badRequest } from '../http/exchange';
import type { InvokerRecord, MessageRecord, WorkflowRunRecord } from '../state/records';

// Workflow runs, as the Workflow SDK drives them: a trigger message (`<P>-Workflow-Init: true`)
// starts a run, and every later message it publishes for that run id is one of its steps. The run
// is derived from accepted messages in the reducer, so it is as durable as they are; a compaction
// keeps it as one `run.restored` record.

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
      steps: [{ messageId: message.id, bodyBase64: message.bodyBase64 }],
      settings: runSettings(message),
      trigger: message,
    });
    trimRuns(state);
    return;
  }
  // A `context.call`'s request to a third party is not a step; its answer comes back as one.
  if (workflow.callType === 'toCallback') return;
  state.runs.get(workflow.runId)?.steps.push({ messageId: message.id, bodyBase64: message.bodyBase64 });
}

/** A failed step sent again (DLQ retry or resume): it takes the old message's place, and the run goes on. */
export function resumeRunStep(state: DevState, failed: MessageRecord, again: MessageRecord): void {
  const run = failed.workflow && state.runs.get(failed.workflow.runId);
  if (!run) return;
  const step = run.steps.find((candidate) => candidate.messageId === failed.id);
  if (step) step.messageId = again.id;
  if (run.state === 'RUN_FAILED') {
    run.state = 'RUN_STARTED';
    delete run.completedAt;
  }
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
 * A step published without the run's settings gets them from the trigger (the SDK sends them once):
 * retries, retry delay, flow control, the failure callback and forwarded headers apply to every message of a run.
 */
export function inheritRunSettings(state: DevState, message: MessageRecord, retriesGiven: boolean): void {
  const workflow = message.workflow;
  if (!workflow || workflow.init) return;
  const run = state.runs.get(workflow.runId);
  if (!run) return;
  const { settings } = run;
  if (!retriesGiven) message.maxRetries = settings.maxRetries;
  if (message.retryDelay === undefined && settings.retryDelay !== undefined) message.retryDelay = settings.retryDelay;
  if (!message.flowControl && settings.flowControl) message.flowControl = settings.flowControl;
  if (!message.failureCallback && settings.failureCallback) message.failureCallback = settings.failureCallback;
  // The SDK forwards the trigger's headers once; every step of the run sees them (a third party does not).
  if (workflow.callType !== 'toCallback') message.forwardHeaders = { ...run.trigger.forwardHeaders, ...message.forwardHeaders };
  // The run's creation time on every delivery, not the step's.
  message.workflow = { ...workflow, createdAt: run.createdAt };
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

/**
 * The body a delivery of a run's message carries: nothing when the SDK fetches its history itself
 * (`LazyFetch`), else the history as a JSON array. Messages of no known run keep their own body.
 */
export function workflowDeliveryBody(state: DevState, message: MessageRecord): Buffer | undefined {
  const workflow = message.workflow;
  if (!workflow || message.kind !== 'message' || workflow.callType === 'toCallback') return undefined;
  if (!state.runs.has(workflow.runId)) return undefined;
  if (workflow.lazyFetch) return Buffer.alloc(0);
  return Buffer.from(JSON.stringify(runHistory(state, workflow.runId, message.id)));
}

/** Drops the oldest ended runs beyond {@link RUN_LIMIT}; a run still going is never dropped. */
function trimRuns(state: DevState): void {
  if (state.runs.size <= RUN_LIMIT) return;
  for (const [runId, run] of state.runs) {
    if (state.runs.size <= RUN_LIMIT) return;
    if (run.state !== 'RUN_STARTED') state.runs.delete(runId);
  }
}

/**
 * A trigger sent by `context.invoke` (`<P>-Workflow-Invoke: true`) carries the invoking request:
 * the new run gets its `body`, and remembers who invoked it to send the result back.
 */
export function takeInvocation(settings: EnqueueSettings, body: Buffer): { settings: EnqueueSettings; body: Buffer } {
  const workflow = settings.workflow;
  if (!workflow?.invoked) return { settings, body };
  let request: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) request = parsed as Record<string, unknown>;
  } catch {
    // Refused below.
  }
  const { workflowRunId, workflowUrl, headers, step } = request ?? {};
  if (typeof workflowRunId !== 'string' || typeof workflowUrl !== 'string' || !isObject(headers) || !isObject(step)) {
    throw badRequest('an invoke trigger must carry { workflowRunId, workflowUrl, headers, step, body? } as JSON');
  }
  const invoker: InvokerRecord = {
    runId: workflowRunId,
    url: workflowUrl,
    createdAt: typeof request?.workflowRunCreatedAt === 'number' ? request.workflowRunCreatedAt : 0,
    headers: headers as Record<string, string[]>,
    step,
  };
  const { invoked: _invoked, ...rest } = workflow;
  const given = request?.body;
  return {
    settings: { ...settings, workflow: { ...rest, invoker } },
    body: Buffer.from(typeof given === 'string' ? given : given === undefined ? '' : JSON.stringify(given)),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
