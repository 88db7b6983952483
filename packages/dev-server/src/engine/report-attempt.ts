import type { EventBus } from '../events';
import type { DevState } from '../state/dev-state';
import type { MessageRecord } from '../state/records';
import type { ClassifiedAttempt } from './attempt-outcome';
import type { AttemptRecord } from './attempt-record';
import type { RetryWait } from './retry-wait';

export interface AttemptReport {
  message: MessageRecord;
  record: AttemptRecord;
  classified: ClassifiedAttempt;
  wait: RetryWait | undefined;
  timeScale: number;
  /** Read after the commit, for the failure callback state it decided. */
  state: DevState;
}

/** The events of one committed attempt: its outcome, a DLQ entry, the callbacks it spawned. */
export function reportAttempt(events: EventBus, report: AttemptReport): void {
  const { message, record, classified, wait } = report;
  const base = { messageId: message.id, kind: message.kind, url: message.url, retried: record.retried };
  const failure = {
    ...(record.response ? { status: record.response.status } : {}),
    ...(record.error !== undefined ? { error: record.error } : {}),
  };
  if (classified.outcome === 'delivered') events.emit({ type: 'delivered', ...base, status: record.response?.status ?? 0 });
  else if (wait)
    events.emit({
      type: 'retry',
      ...base,
      ...failure,
      delayMs: wait.delayMs,
      scaledDelayMs: wait.delayMs * report.timeScale,
      delaySource: wait.source,
    });
  else events.emit({ type: 'failed', ...base, ...failure, reason: classified.reason ?? 'retries-exhausted' });
  if (record.dlq)
    events.emit({
      type: 'dlq',
      dlqId: record.dlq.dlqId,
      messageId: message.id,
      ...(message.workflow ? { workflowRunId: message.workflow.runId } : {}),
    });
  // The reducer failed the run with its step: say so once, as for the other ends of a run.
  const run = record.dlq && message.workflow ? report.state.runs.get(message.workflow.runId) : undefined;
  if (run?.state === 'RUN_FAILED' && run.completedAt === record.at)
    events.emit({ type: 'workflow-run', runId: run.runId, state: 'RUN_FAILED' });
  for (const spawned of record.spawned) {
    const kind = spawned.kind === 'failure-callback' ? 'failure-callback' : 'callback';
    events.emit({ type: 'callback', messageId: spawned.id, kind, url: spawned.url, sourceMessageId: message.id, retried: record.retried });
  }
  if (message.kind === 'failure-callback' && message.dlqId !== undefined && classified.outcome !== 'retry') {
    const state = report.state.dlq.get(message.dlqId)?.failureCallbackInfo?.state;
    if (state) events.emit({ type: 'failure-callback-state', dlqId: message.dlqId, state });
  }
}
