import type { BulkAction } from '@mailroom/core';
import { badRequest, notFound } from '../errors';
import type { EventBus } from '../events';
import { newMessageId, randomHex } from '../ids';
import type { EngineConfig } from '../settings';
import { knownMessage } from '../state/message-index';
import type { DevState } from '../state/dev-state';
import type { DlqEntry, MessageRecord } from '../state/records';
import type { Store } from '../state/store';
import { callbackMessage, failureCallbackBody, failureSourceBody } from './callbacks';
import type { Engine } from './create-engine';
import { type Acceptance, reportAccepted } from './acceptance';
import { yieldToOtherWork } from './timers';
import type { Waits } from './waits';

// What a user does to what the engine holds, whichever way they ask (a route, the console, a test):
// cancel messages, send DLQ entries again, run a failure callback again, end or cancel a workflow
// run, restart one, send a message again as a new one, and skip a wait (a delay, a backoff, a
// schedule's next firing, a workflow's wait for an event).

/** Messages one slice of a bulk action cancels before other requests get a turn. */
const BULK_SLICE = 500;
/** Bulk actions a server remembers (`GET /v2/bulkActions/{id}`): the oldest finished ones are forgotten first. */
const BULK_HISTORY = 1000;

/** What an edited resend changes: the body's bytes, and the headers forwarded to the destination (Content-Type among them). */
export interface MessageEdits {
  body?: Buffer;
  forwardHeaders?: Record<string, string>;
  contentType?: string;
}

export interface ActionsParts {
  store: Store;
  engine: Engine;
  events: EventBus;
  config: EngineConfig;
  waits: Waits;
  acceptance: Acceptance;
}

export interface Actions {
  /** Pending messages leave the state (logged `CANCELED`) and the engine forgets them. */
  cancelMessages(ids: readonly string[]): Promise<void>;
  /**
   * The same cancel as a bulk action in the background, a slice at a time, so a filter matching many
   * messages answers at once; `filter` is what it was asked with, for its history.
   */
  cancelInBackground(ids: readonly string[], filter: Record<string, string[]>): BulkAction;
  /**
   * Cancels many a slice at a time, other requests answered between slices; `progress` hears how many
   * were processed. Resolves with how many were still pending to cancel. A crash midway leaves the
   * slices committed before it cancelled: asking again cancels the rest.
   */
  cancelInSlices(ids: readonly string[], progress?: (processed: number) => void): Promise<number>;
  /** A bulk action of this server's life (kept in memory: a restart forgets the history, not the cancels done). */
  bulkAction(actionId: string): BulkAction | undefined;
  /**
   * Sends entries' messages again under new ids, their retries starting over; the entries leave the
   * DLQ. A workflow step sent again carries its run on (`reshape` gives it a new run id for a resume).
   */
  resendFromDlq(entries: readonly DlqEntry[], reshape?: (copy: MessageRecord) => MessageRecord): Promise<MessageRecord[]>;
  /**
   * The failure callback of a failed run's DLQ entry again, only from `CALLBACK_FAIL` (400
   * otherwise). Its state goes to `CALLBACK_INPROGRESS`, then follows the real outcome.
   */
  retriggerFailureCallback(entry: DlqEntry): Promise<MessageRecord>;
  /** Failed runs start over as new runs: each trigger sent again under a new run id; the entries leave. */
  restartRuns(entries: readonly DlqEntry[], reshape?: (trigger: MessageRecord) => MessageRecord): Promise<MessageRecord[]>;
  /** A run's route returned: `RUN_SUCCESS`, with what it returned. */
  endRun(runId: string, responseBase64: string): Promise<void>;
  /** Cancels a run that is still going: its pending messages and waits, then the run. Answers whether it was going. */
  cancelRun(runId: string): Promise<boolean>;
  /**
   * A message the server still knows, sent again as a new one with every setting of the original,
   * its body and forwarded headers replaced by `edits` when given, and linked to it (`resentFrom`).
   * A workflow run's trigger starts a new run; another step of a run cannot be sent on its own (400).
   */
  resendMessage(messageId: string, edits?: MessageEdits): Promise<MessageRecord>;
  /**
   * The service's "retry now": a message waiting out a delay, a workflow sleep or a retry's backoff is
   * attempted at once, with the retries it had. 404 when it is not waiting, 400 in a queue (as the service).
   */
  releaseMessage(messageId: string): Promise<void>;
  /** Dev only: a schedule fires now; its cron keeps its next firing. */
  fireSchedule(scheduleId: string): Promise<void>;
  /** Dev only: every wait of a run (for an event, a webhook, an invoked run) times out now. Answers how many. */
  timeOutWaits(runId: string): Promise<number>;
}

export function createActions(parts: ActionsParts): Actions {
  const { store, engine, events, config, waits, acceptance } = parts;

  const cancelMessages = async (ids: readonly string[]): Promise<void> => {
    if (ids.length === 0) return;
    await store.commit({ type: 'messages.cancelled', at: config.now(), ids: [...ids] });
    engine.cancel(ids);
  };

  const cancelInSlices = async (ids: readonly string[], progress?: (processed: number) => void): Promise<number> => {
    let cancelled = 0;
    for (let start = 0; start < ids.length; start += BULK_SLICE) {
      await yieldToOtherWork();
      // A message delivered or cancelled meanwhile is no longer pending: only the rest are cancelled.
      const slice = ids.slice(start, start + BULK_SLICE).filter((id) => store.state.pending.has(id));
      await cancelMessages(slice);
      cancelled += slice.length;
      progress?.(Math.min(ids.length, start + BULK_SLICE));
    }
    return cancelled;
  };

  const bulkActions = new Map<string, BulkAction>();
  // The history a server keeps: the oldest finished actions go first beyond this many.
  const keepFinished = (): void => {
    if (bulkActions.size <= BULK_HISTORY) return;
    for (const [id, action] of bulkActions) {
      if (bulkActions.size <= BULK_HISTORY) return;
      if (action.state === 'FINISHED') bulkActions.delete(id);
    }
  };

  return {
    cancelMessages,
    cancelInSlices,
    cancelInBackground(ids, filter) {
      const action: BulkAction = {
        actionId: `bulk_${randomHex(8)}`,
        kind: 'cancel',
        state: 'IN_PROGRESS',
        total: ids.length,
        processed: 0,
        createdAt: config.now(),
        filter,
      };
      bulkActions.set(action.actionId, action);
      keepFinished();
      void cancelInSlices(ids, (processed) => {
        action.processed = processed;
      })
        .catch((error: unknown) =>
          events.emit({ type: 'error', message: `bulk action ${action.actionId} could not cancel: ${String(error)}` }),
        )
        .finally(() => {
          action.state = 'FINISHED';
          action.completedAt = config.now();
        });
      return { ...action };
    },
    bulkAction: (actionId) => {
      const action = bulkActions.get(actionId);
      return action && { ...action };
    },
    async resendFromDlq(entries, reshape = (copy) => copy) {
      const now = config.now();
      let seq = store.state.nextSeq;
      const messages = entries.map((entry) =>
        reshape({ ...entry.message, id: newMessageId(), seq: seq++, notBefore: now, dueAt: now, createdAt: now }),
      );
      await store.commit({ type: 'dlq.retried', at: now, ids: entries.map((entry) => entry.dlqId), messages });
      engine.admit(messages);
      return messages;
    },
    async retriggerFailureCallback(entry) {
      const { dlqId } = entry;
      const settings = entry.message.failureCallback;
      if (!settings) throw badRequest(`dlq message ${dlqId} has no failure callback to trigger`);
      const current = entry.failureCallbackInfo?.state;
      if (current !== 'CALLBACK_FAIL') {
        throw badRequest(`the failure callback of ${dlqId} can only be re-triggered from CALLBACK_FAIL, it is ${current ?? 'unknown'}`);
      }
      const now = config.now();
      const body = failureCallbackBody(entry.message, entry.retried, entry.response, {
        dlqId,
        error: entry.error,
        sourceBodyBase64: failureSourceBody(store.state, entry.message),
      });
      const message = callbackMessage(
        { source: entry.message, settings, kind: 'failure-callback', body, seq: store.state.nextSeq, at: now, dlqId },
        config,
      );
      await store.commit({ type: 'dlq.retriggered', dlqId, at: now, message });
      events.emit({ type: 'failure-callback-state', dlqId, state: 'CALLBACK_INPROGRESS' });
      events.emit({
        type: 'callback',
        messageId: message.id,
        kind: 'failure-callback',
        url: message.url,
        sourceMessageId: entry.message.id,
      });
      engine.admit([message]);
      return message;
    },
    async restartRuns(entries, reshape = (trigger) => trigger) {
      const now = config.now();
      let seq = store.state.nextSeq;
      const triggers: MessageRecord[] = [];
      for (const entry of entries) {
        const failedRunId = entry.message.workflow?.runId;
        const trigger = failedRunId === undefined ? undefined : store.state.runs.get(failedRunId)?.trigger;
        if (!trigger?.workflow || failedRunId === undefined) continue;
        triggers.push(
          reshape({
            ...trigger,
            id: newMessageId(),
            seq: seq++,
            notBefore: now,
            dueAt: now,
            createdAt: now,
            workflow: { ...trigger.workflow, runId: newRunId(), createdAt: now, restartOf: failedRunId },
          }),
        );
      }
      // One action, one record: a crash between the two would restart the runs again from the DLQ.
      await store.transaction(() =>
        Promise.all([
          store.commit({ type: 'messages.accepted', at: now, messages: triggers }),
          store.commit({ type: 'dlq.deleted', ids: entries.map((entry) => entry.dlqId) }),
        ]),
      );
      engine.admit(triggers);
      return triggers;
    },
    async endRun(runId, responseBase64) {
      if (store.state.runs.get(runId)?.state !== 'RUN_STARTED') return;
      await store.commit({ type: 'run.ended', runId, at: config.now(), state: 'RUN_SUCCESS', responseBase64 });
      events.emit({ type: 'workflow-run', runId, state: 'RUN_SUCCESS' });
    },
    async cancelRun(runId) {
      if (store.state.runs.get(runId)?.state !== 'RUN_STARTED') return false;
      const pending = store.state.pending.heldIdsWhere((record) => record.workflow?.runId === runId);
      await cancelMessages(pending);
      await waits.drop(runId);
      await store.commit({ type: 'run.ended', runId, at: config.now(), state: 'RUN_CANCELED' });
      events.emit({ type: 'workflow-run', runId, state: 'RUN_CANCELED' });
      return true;
    },
    async resendMessage(messageId, edits = {}) {
      const original = findMessage(store.state, messageId);
      if (!original) throw notFound(`message ${messageId} not found (it may be older than the logs the server keeps)`);
      const now = config.now();
      let { workflow } = original;
      if (workflow) {
        // A trigger again is a new run (the same run id would be taken as the same trigger).
        if (store.state.runs.get(workflow.runId)?.trigger.id !== original.id) {
          throw badRequest(
            `message ${messageId} is a step of workflow run ${workflow.runId} and cannot be sent on its own: resend the run's trigger, or resume the run`,
          );
        }
        workflow = { ...workflow, runId: newRunId(), createdAt: now };
      }
      const message: MessageRecord = {
        ...original,
        id: newMessageId(),
        seq: store.state.nextSeq,
        notBefore: now,
        dueAt: now,
        createdAt: now,
        resentFrom: original.id,
        ...(workflow ? { workflow } : {}),
        ...(edits.body ? { body: edits.body.toString('latin1') } : {}),
        // Edited headers are the whole set: without a Content-Type, the resend has none.
        ...(edits.forwardHeaders ? { forwardHeaders: edits.forwardHeaders, contentType: edits.contentType } : {}),
      };
      await store.commit({ type: 'messages.accepted', at: now, messages: [message] });
      reportAccepted(events, message, now);
      engine.admit([message]);
      return message;
    },
    async releaseMessage(messageId) {
      const pending = store.state.pending.get(messageId);
      if (!pending) throw notFound(`message ${messageId} is not pending: it was delivered, cancelled or never sent`);
      if (pending.queue !== undefined) {
        throw badRequest(
          `message ${messageId} is in queue ${pending.queue}, and a queued message cannot be released early (the service refuses it too); it is delivered in the queue's order`,
        );
      }
      const now = config.now();
      // A message being attempted, or due and waiting for its turn, has a due time already past.
      if (store.state.pending.dueAt(messageId)! <= now) {
        throw notFound(`message ${messageId} is not waiting: it is being delivered or waits for its turn to be`);
      }
      await store.commit({ type: 'message.released', id: messageId, at: now });
      engine.release(messageId);
    },
    async fireSchedule(scheduleId) {
      const schedule = store.state.schedules.get(scheduleId);
      if (!schedule) throw notFound(`schedule ${scheduleId} not found`);
      await acceptance.fireSchedule(schedule, config.now());
    },
    async timeOutWaits(runId) {
      const waiting = [...store.state.waiters.values()].filter((waiter) => waiter.runId === runId);
      if (waiting.length === 0) throw notFound(`workflow run ${runId} is not waiting for an event, a webhook or an invoked run`);
      for (const waiter of waiting) await waits.timeOut(waiter);
      return waiting.length;
    },
  };
}

/** A new run id, in the shape the Workflow SDK gives its own. */
export const newRunId = (): string => `wfr_${randomHex(12)}`;

/** A message the server still knows: pending, in the DLQ, or in the logs it keeps. */
function findMessage(state: DevState, messageId: string): MessageRecord | undefined {
  const pending = state.pending.get(messageId);
  if (pending) return pending;
  for (const entry of state.dlq.values()) if (entry.message.id === messageId) return entry.message;
  return knownMessage(state, messageId);
}
