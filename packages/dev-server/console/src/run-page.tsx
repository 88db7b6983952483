import type { MessagingClient, WorkflowRun } from '@mailroom/core';
import { useState } from 'preact/hooks';
import { dateTime, decodeBody, devRequest, jsonOrText, pretty } from './api';
import { exportFixture } from './message-actions';
import { type RunEvent, RunTimeline } from './run-timeline';
import { Action, Field, Notice, State, useAct } from './ui';

// A workflow run's page: every step in order (parallel branches side by side), what it waits for,
// its failure function, and the actions the interface offers on it.

/** A step as the run log gives it, with the dev server's extras (`dueAt`). */
type RunStep = WorkflowRun['steps'][number]['steps'][number] & Record<string, unknown>;
export type Run = WorkflowRun & {
  waiting?: Array<{ eventId: string; deadline: number }>;
  invoker?: { workflowRunId: string };
  origin?: { workflowRunId: string; action: 'resume' | 'restart' };
  timeline?: RunEvent[];
};

/** A failed attempt of the step a delivery runs, as the run logs list them. */
interface StepError {
  error: string;
  body: string;
  status: number;
  time: number;
}

/** The step a delivery runs (the run log's `next` group): its name when the SDK said it, and its attempts. */
type NextStep = { messageId: string; stepName?: string; state: string; retries: number; errors?: StepError[] };

export function duration(run: Run): string {
  const end = run.workflowRunCompletedAt ?? Date.now();
  const seconds = Math.max(0, (end - run.workflowRunCreatedAt) / 1000);
  const text = seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  return run.workflowRunCompletedAt === undefined ? `${text}, running` : text;
}

export function RunPage({ client, run, refresh }: { client: MessagingClient; run: Run; refresh: () => void }) {
  const { notice, act } = useAct(refresh, run.workflowRunId);
  const failure = run.failureFunction as (Record<string, unknown> & { state?: string; failStatus?: number }) | undefined;
  const { dlqId } = run;
  return (
    <aside class="detail" aria-label={`Run ${run.workflowRunId}`}>
      <header>
        <h2>
          <State state={run.workflowState} /> <code>{run.workflowRunId}</code>
        </h2>
        <a class="close" href="#/workflows" aria-label="Close the run">
          ×
        </a>
      </header>
      <dl class="facts">
        <dt>Workflow URL</dt>
        <dd class="url">{run.workflowUrl}</dd>
        <dt>Created</dt>
        <dd>{dateTime(run.workflowRunCreatedAt)}</dd>
        <dt>Duration</dt>
        <dd>{duration(run)}</dd>
        {run.origin && (
          <>
            <dt>{run.origin.action === 'resume' ? 'Resumes' : 'Restarts'}</dt>
            <dd>
              <a href={`#/workflows/${encodeURIComponent(run.origin.workflowRunId)}`}>{run.origin.workflowRunId}</a>
            </dd>
          </>
        )}
        {run.invoker && (
          <>
            <dt>Invoked by</dt>
            <dd>
              <a href={`#/workflows/${encodeURIComponent(run.invoker.workflowRunId)}`}>{run.invoker.workflowRunId}</a>
            </dd>
          </>
        )}
        {run.workflowRunResponse !== undefined && (
          <>
            <dt>Returned</dt>
            <dd>
              <pre>{pretty(run.workflowRunResponse) || '(nothing)'}</pre>
            </dd>
          </>
        )}
      </dl>
      <div class="actions">
        <Action onClick={act(() => exportFixture(run.workflowRunId, 'run'))}>Export fixture</Action>
        {triggerOf(run) && (
          <a class="button" href={`#/messages/${triggerOf(run)}`}>
            Edit and resend the trigger
          </a>
        )}
        {run.workflowState === 'RUN_STARTED' && (
          <Action
            danger
            confirm="Cancel this run? Its pending steps are dropped and no later step runs."
            onClick={act(async () => `Cancelled ${(await client.workflows.cancel(run.workflowRunId)).cancelled} run`)}
          >
            Cancel run
          </Action>
        )}
        {dlqId && run.workflowState === 'RUN_FAILED' && (
          <>
            <Action
              onClick={act(async () => {
                const [resumed] = await client.workflowDlq.resume(dlqId);
                // The service resumes as a new run: open it; this one stays failed, with its history.
                if (resumed) location.hash = `#/workflows/${encodeURIComponent(resumed.workflowRunId)}`;
                return `Resumed from the failed step as run ${resumed?.workflowRunId ?? ''}`;
              })}
            >
              Resume
            </Action>
            <Action
              onClick={act(async () => {
                const [restarted] = await client.workflowDlq.restart(dlqId);
                if (restarted) location.hash = `#/workflows/${encodeURIComponent(restarted.workflowRunId)}`;
                return `Restarted as run ${restarted?.workflowRunId ?? ''}`;
              })}
            >
              Restart
            </Action>
          </>
        )}
        {dlqId && failure?.state === 'CALLBACK_FAIL' && (
          <Action
            onClick={act(async () => {
              await client.workflowDlq.retriggerFailureCallback(dlqId);
              return 'Running the failure function again';
            })}
          >
            Retry failure function
          </Action>
        )}
      </div>
      <Notice notice={notice} />
      {(run.waiting ?? []).map((wait) => (
        <Waiting key={wait.eventId} client={client} runId={run.workflowRunId} wait={wait} act={act} />
      ))}
      {nextSteps(run)
        .filter((step) => step.state === 'STEP_FAILED')
        .map((step) => (
          <NextStepCard step={step} />
        ))}
      <h3>Steps</h3>
      <ol class="steps">
        {run.steps.map((group) =>
          (group.type as string) === 'next' ? (
            (group.steps as unknown as NextStep[])
              .filter((step) => step.state !== 'STEP_FAILED')
              .map((step) => (
                <li class="sequential">
                  <NextStepCard step={step} />
                </li>
              ))
          ) : (
            <li class={group.type === 'parallel' ? 'parallel' : 'sequential'}>
              {branches(group.steps as RunStep[]).map((step) => (
                <StepCard step={step} client={client} act={act} />
              ))}
            </li>
          ),
        )}
      </ol>
      {failure && (
        <div class="card failure-function">
          <h3>
            Failure function <State state={failure.state ?? 'UNKNOWN'} />
          </h3>
          <p class="muted">The run failed with {failure.failStatus ?? 'no'} answer; the failure function was called with it.</p>
          {typeof failure.failResponse === 'string' && failure.failResponse !== '' && <ErrorText text={failure.failResponse} />}
        </div>
      )}
      <RunTimeline createdAt={run.workflowRunCreatedAt} origin={run.origin} timeline={run.timeline} />
    </aside>
  );
}

function Waiting({
  client,
  runId,
  wait,
  act,
}: {
  client: MessagingClient;
  runId: string;
  wait: { eventId: string; deadline: number };
  act: ReturnType<typeof useAct>['act'];
}) {
  const [body, setBody] = useState('');
  return (
    <div class="card waiting" data-event-id={wait.eventId}>
      <h3>
        Waiting for <code>{wait.eventId}</code>
      </h3>
      <p class="muted">Times out at {dateTime(wait.deadline)} unless notified.</p>
      <Field label="Event data">
        <textarea name="event-data" rows={3} value={body} onInput={(event) => setBody((event.target as HTMLTextAreaElement).value)} />
      </Field>
      <Action onClick={act(async () => `Notified ${(await client.workflows.notify(wait.eventId, body, { runId })).length} waiter`)}>
        Notify
      </Action>
      <Action
        onClick={act(async () => {
          const { timedOut } = await devRequest<{ timedOut: number }>('POST', `/dev/workflows/runs/${encodeURIComponent(runId)}/time-out`);
          return `Timed out ${timedOut} wait${timedOut === 1 ? '' : 's'} now: the run goes on as its timeout would have it`;
        })}
      >
        Time out now
      </Action>
    </div>
  );
}

function nextSteps(run: Run): NextStep[] {
  return run.steps.filter((group) => (group.type as string) === 'next').flatMap((group) => group.steps as unknown as NextStep[]);
}

/**
 * The step a delivery runs while it runs, retries or failed: named as the SDK answered, with every
 * failed attempt's error. A failed one is shown first on the page, where a user looks for it.
 */
function NextStepCard({ step }: { step: NextStep }) {
  const errors = step.errors ?? [];
  const attempts = step.state === 'STEP_FAILED' ? `failed after ${errors.length} attempt${errors.length === 1 ? '' : 's'}` : 'running';
  return (
    <div class={`card step next ${step.state === 'STEP_FAILED' ? 'failed' : ''}`} data-step-name={step.stepName ?? ''}>
      <h3>
        {step.stepName ?? 'the next step'} <State state={step.state} />
      </h3>
      <p class="muted">
        {attempts}, {step.retries} retr{step.retries === 1 ? 'y' : 'ies'} allowed
      </p>
      {errors.length > 0 && (
        <ol class="attempt-errors">
          {errors.map((error, index) => (
            <li>
              <span class="muted">
                attempt {index + 1} · {dateTime(error.time)} · {error.status || 'no answer'}
              </span>
              <ErrorText text={error.body || error.error} />
            </li>
          ))}
        </ol>
      )}
      <a class="muted" href={`#/messages/${step.messageId}`}>
        Attempts and answers ({step.messageId})
      </a>
    </div>
  );
}

/** An SDK error answer (`{"error", "message", "stack"}`): its message, and its stack as lines, not a JSON string. */
function ErrorText({ text }: { text: string }) {
  const parsed = jsonOrText(text) as { error?: unknown; message?: unknown; stack?: unknown } | string;
  if (typeof parsed !== 'object' || parsed === null || (parsed.message === undefined && parsed.stack === undefined)) {
    return <pre>{pretty(text)}</pre>;
  }
  return (
    <div class="error-detail">
      <p>
        <strong>{String(parsed.error ?? 'Error')}</strong>: {String(parsed.message ?? '')}
      </p>
      {typeof parsed.stack === 'string' && <pre class="stack">{parsed.stack}</pre>}
    </div>
  );
}

/** One step: its name, type, state, and what its type means (output, sleep, call, wait, invoke). */
function StepCard({ step, client, act }: { step: RunStep; client: MessagingClient; act: ReturnType<typeof useAct>['act'] }) {
  const asleep = step.state === 'STEP_PROGRESS' && (step.stepType === 'SleepFor' || step.stepType === 'SleepUntil') && step.messageId;
  return (
    <div class="card step" data-step-type={step.stepType} data-step-name={step.stepName}>
      <h3>
        {step.stepName ?? 'step'} <span class="muted">{step.stepType}</span> <State state={step.state ?? 'STEP_PROGRESS'} />
      </h3>
      <StepDetail step={step} />
      {asleep && (
        // The service's retry now on the sleeping step's message: the sleep ends, the run goes on.
        <Action
          onClick={act(async () => {
            await client.messages.runNow(step.messageId!);
            return `Woke the run: "${step.stepName}" ends now`;
          })}
        >
          Wake now
        </Action>
      )}
      {step.messageId && (
        <a class="muted" href={`#/messages/${step.messageId}`}>
          Attempts and answers ({step.messageId})
        </a>
      )}
    </div>
  );
}

function StepDetail({ step }: { step: RunStep }) {
  const out = typeof step.out === 'string' ? step.out : undefined;
  const due = typeof step.dueAt === 'number' ? step.dueAt : undefined;
  switch (step.stepType) {
    case 'SleepFor':
      return (
        <p>
          Sleeps {String(step.sleepFor)} s{due ? `, until ${dateTime(due)}` : ''}
        </p>
      );
    case 'SleepUntil':
      return <p>Sleeps until {dateTime(Number(step.sleepUntil) * 1000)}</p>;
    case 'Call': {
      const headerLines = (headers: unknown) =>
        Object.entries((headers ?? {}) as Record<string, string[]>)
          .map(([name, values]) => `${name}: ${values.join(', ')}`)
          .join('\n');
      const answered = typeof step.callResponseStatus === 'number';
      return (
        <div class="columns">
          <div>
            <strong>Request</strong>
            <pre class="call-request">
              {String(step.callMethod ?? 'POST')} {String(step.callUrl ?? '')}
              {step.callHeaders ? `\n${headerLines(step.callHeaders)}` : ''}
              {step.callBody !== undefined && step.callBody !== '' ? `\n\n${pretty(String(step.callBody))}` : ''}
            </pre>
          </div>
          <div>
            <strong>Answer</strong>
            <pre class="call-answer">
              {answered
                ? `${String(step.callResponseStatus)}\n${headerLines(step.callResponseHeaders)}\n\n${show(step.callResponseBody)}`
                : 'waiting for the answer'}
            </pre>
          </div>
        </div>
      );
    }
    case 'Wait':
    case 'WaitForWebhook':
      return (
        <p>
          Waited for <code>{String(step.waitEventId ?? '')}</code>:{' '}
          {step.waitTimeout === true ? (
            <strong>timed out</strong>
          ) : (
            <>
              <strong>notified</strong>
              {out && <pre>{decodeBody(out)}</pre>}
            </>
          )}
        </p>
      );
    case 'Invoke':
      return out === undefined ? <p>Waiting for the invoked run.</p> : <pre>{show(jsonOrText(out))}</pre>;
    default:
      return out === undefined || out === '' ? null : <pre>{step.stepType === 'Initial' ? pretty(out) : show(jsonOrText(out))}</pre>;
  }
}

/** A parallel step is published twice, planned then with its result: one card per branch, the latest. */
function branches(steps: RunStep[]): RunStep[] {
  const byName = new Map<string, RunStep>();
  for (const step of steps) byName.set(step.stepName ?? step.messageId ?? '', step);
  return [...byName.values()];
}

function show(value: unknown): string {
  return typeof value === 'string' ? pretty(value) : (JSON.stringify(value, null, 2) ?? '');
}

/** The message that started the run (its first step's), whose Edit and resend starts a new run. */
function triggerOf(run: Run): string | undefined {
  return (run.steps[0]?.steps[0] as RunStep | undefined)?.messageId;
}
