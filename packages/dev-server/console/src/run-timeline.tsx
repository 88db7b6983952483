import type { RunEventKind } from '../../src/state/records';
import { dateTime } from './api';

// A run's timeline: when it started (and what it resumes or restarts), then what happened to it after,
// as the dev server keeps it: a step dead-lettered, its failure function, resumed or restarted as
// which run, retried, deleted from the DLQ, ended. A failed run keeps all of it when it goes on as another.

/** One thing that happened to a run after it started. */
export type RunEvent = { at: number; kind: RunEventKind; messageId?: string; workflowRunId?: string; detail?: string };

export function RunTimeline({
  createdAt,
  origin,
  timeline,
}: {
  createdAt: number;
  origin: { workflowRunId: string; action: 'resume' | 'restart' } | undefined;
  timeline: RunEvent[] | undefined;
}) {
  return (
    <>
      <h3>Timeline</h3>
      <ol class="run-timeline">
        <li>
          <span class="muted">{dateTime(createdAt)}</span> Started
          {origin && (
            <>
              {origin.action === 'resume' ? ', resuming ' : ', restarting '}
              <RunLink runId={origin.workflowRunId} />
              {origin.action === 'resume' ? ' from its failed step' : ' from the start'}
            </>
          )}
        </li>
        {(timeline ?? []).map((event) => (
          <li data-kind={event.kind}>
            <span class="muted">{dateTime(event.at)}</span> <RunEventText event={event} />
          </li>
        ))}
      </ol>
    </>
  );
}

const RunLink = ({ runId }: { runId: string | undefined }) => <a href={`#/workflows/${encodeURIComponent(runId ?? '')}`}>{runId}</a>;

/** What happened, in words, with the step message or the run it names linked. */
function RunEventText({ event }: { event: RunEvent }) {
  const step = event.messageId && <a href={`#/messages/${event.messageId}`}>{event.messageId}</a>;
  switch (event.kind) {
    case 'dead-lettered':
      return (
        <>
          Step message {step} failed for good ({event.detail}) and went to the DLQ: the run failed
        </>
      );
    case 'failure-function':
      return <>The failure function was called: {event.detail}</>;
    case 'failure-function-again':
      return <>The failure function was called again (Retry failure function)</>;
    case 'resumed':
      return (
        <>
          Resumed from its failed step {step} as run <RunLink runId={event.workflowRunId} />
        </>
      );
    case 'restarted':
      return (
        <>
          Restarted from the start as run <RunLink runId={event.workflowRunId} />
        </>
      );
    case 'retried':
      return <>Its failed step {step} was retried from the DLQ: the run went on</>;
    case 'dlq-deleted':
      return <>Its DLQ entry was deleted</>;
    case 'ended':
      return event.detail === 'RUN_CANCELED' ? <>Cancelled</> : <>Ended: {event.detail}</>;
  }
}
