import { STATUS_CODES } from 'node:http';
import { noteRunEvent, noteWorkflowMessage, resumeRunStep } from './runs';
import { statsBucket, type DevState } from './dev-state';
import { type CreatedRun, deferCreated, keepLog, type LogFields, logEntry } from './event-log';
import { noteOrigin, takePending } from './message-index';
import type { AttemptDetail, DevRecord, DlqEntry, MessageRecord } from './records';
import type { StoredMessageLine } from './stored-message-lines';
import type { StoredLine } from './stored-messages';

/**
 * Applies one record to the state. Every change a reader can see happens here (the only other is the
 * store's pruning of what has expired, which readers already ignore), so replaying the journal on
 * start gives exactly the state the server had. Records arrive as JSON round trips: nothing here relies on
 * object identity. The logs are derived here too, so they can never disagree with what happened.
 */
export function reduce(state: DevState, record: DevRecord): void {
  changeLogStart = state.nextLogOrder;
  switch (record.type) {
    case 'batch':
      for (const inner of record.records) reduce(state, inner);
      return;
    case 'messages.accepted':
      for (const message of record.messages) {
        addMessage(state, message, record.at);
        noteWorkflowMessage(state, message);
      }
      for (const key of record.dedupKeys ?? []) {
        state.dedup.set(key, { at: record.at, results: record.messages.map((message) => ({ messageId: message.id, url: message.url })) });
      }
      if (record.schedule) {
        const schedule = state.schedules.get(record.schedule.id);
        if (schedule) {
          schedule.lastScheduleTime = record.schedule.time;
          schedule.lastScheduleStates = Object.fromEntries(record.messages.map((message) => [message.id, 'IN_PROGRESS' as const]));
        }
      }
      return;
    case 'attempt':
      applyAttempt(state, record);
      return;
    case 'group.updated':
      if (record.group) state.groups.set(record.name, record.group);
      else state.groups.delete(record.name);
      return;
    case 'dlq.retriggered': {
      const entry = state.dlq.get(record.dlqId);
      if (entry) entry.failureCallbackInfo = { state: 'CALLBACK_INPROGRESS' };
      noteRunEvent(state, entry?.message.workflow?.runId, { at: record.at, kind: 'failure-function-again' });
      addMessage(state, record.message, record.at);
      return;
    }
    case 'index.created':
      state.indexes.set(record.index.id, record.index);
      return;
    case 'messages.cancelled':
      for (const id of record.ids) {
        const message = takePending(state, id);
        if (!message) continue;
        log(state, message, { time: record.at, state: 'CANCEL_REQUESTED' });
        log(state, message, { time: record.at, state: 'CANCELED' });
        if (message.workflow) {
          const bucket = statsBucket(state, record.at);
          bucket.workflowCanceled = (bucket.workflowCanceled ?? 0) + 1;
        }
        settleSchedule(state, message, 'FAIL');
      }
      return;
    case 'fault.set':
      state.faults.set(record.fault.id, { ...record.fault });
      return;
    case 'fault.applied': {
      const fault = state.faults.get(record.id);
      if (fault) fault.count += 1;
      return;
    }
    case 'fault.removed':
      if (record.id === '*') state.faults.clear();
      else state.faults.delete(record.id);
      return;
    case 'message.released':
      // The attempt it waited for comes now: its retry count stays, no attempt is added.
      state.pending.bringForward(record.id, record.at);
      return;
    case 'dlq.deleted':
      for (const id of record.ids) {
        if (record.at !== undefined)
          noteRunEvent(state, state.dlq.get(id)?.message.workflow?.runId, { at: record.at, kind: 'dlq-deleted' });
        state.dlq.delete(id);
      }
      return;
    case 'dlq.retried':
      record.ids.forEach((id, index) => {
        const entry = state.dlq.get(id);
        const again = record.messages[index];
        if (entry && again) resumeRunStep(state, entry.message, again);
        state.dlq.delete(id);
      });
      for (const message of record.messages) addMessage(state, message, record.at);
      return;
    case 'queue.updated':
      if (record.queue) state.queues.set(record.name, record.queue);
      else state.queues.delete(record.name);
      return;
    case 'schedule.updated':
      if (record.schedule) state.schedules.set(record.id, record.schedule);
      else state.schedules.delete(record.id);
      return;
    case 'flow.updated':
      state.flowKeys.set(record.key, record.flow);
      return;
    case 'keys.rotated':
      state.signingKeys = { current: record.current, next: record.next };
      return;
    case 'message.restored':
      state.pending.put(record.message, record.retried, record.dueAt, record.started);
      noteOrigin(state, record.message);
      state.nextSeq = Math.max(state.nextSeq, record.message.seq + 1);
      return;
    case 'dlq.restored':
      addDlqEntry(state, record.entry);
      return;
    case 'dedup.restored':
      state.dedup.set(record.key, { at: record.at, results: record.results });
      return;
    case 'run.ended': {
      const run = state.runs.get(record.runId);
      if (!run) return;
      run.state = record.state;
      run.completedAt = record.at;
      delete run.earlyEvents;
      if (record.responseBase64 !== undefined) run.responseBase64 = record.responseBase64;
      noteRunEvent(state, run.runId, { at: record.at, kind: 'ended', detail: record.state });
      return;
    }
    case 'waiter.added':
      state.waiters.set(record.waiter.id, record.waiter);
      return;
    case 'waiter.removed':
      state.waiters.delete(record.id);
      return;
    case 'run.restored':
      state.runs.set(record.run.runId, record.run);
      return;
    case 'run.event-stored': {
      const run = state.runs.get(record.runId);
      if (!run) return;
      run.earlyEvents ??= {};
      (run.earlyEvents[record.eventId] ??= []).push(record.dataBase64);
      return;
    }
    case 'run.event-taken': {
      const run = state.runs.get(record.runId);
      const stored = run?.earlyEvents?.[record.eventId];
      stored?.shift();
      if (run?.earlyEvents && stored?.length === 0) delete run.earlyEvents[record.eventId];
      return;
    }
    case 'stats.restored':
      for (const [minute, bucket] of record.buckets) state.stats.set(minute, { ...bucket });
      return;
    case 'logs.restored': {
      const messages = new Map(record.messages.map((message) => [message.id, message]));
      for (const entry of record.logs) {
        // One only named was pending as the snapshot was written, so it is now: it is named here too,
        // without an index of 100,000 ids before a restart answers. A repair that lost it drops its entries.
        const id = entry.messageId;
        keepLog(state, messages.get(id) ?? id, logEntry(entry.order, id, entry.time, entry));
      }
      return;
    }
    case 'counters.restored':
      state.nextSeq = Math.max(state.nextSeq, record.nextSeq);
      state.nextDlqOrder = Math.max(state.nextDlqOrder, record.nextDlqOrder);
      state.nextLogOrder = Math.max(state.nextLogOrder, record.nextLogOrder ?? 1);
      return;
  }
}

/**
 * What `messages.accepted` of one plain message, or `message.restored` of one never attempted, does,
 * for a journal line read as bytes (stored-messages.ts; `line`: where it is): the message is kept as
 * where it is, and its `CREATED` entry names it by id until it leaves the pending ones. `run`: a
 * replay's entries not yet put in the log (event-log.ts), which the replay puts in before anything else.
 */
export function reduceStoredMessage(state: DevState, scanned: StoredMessageLine, line: StoredLine, run: CreatedRun): void {
  changeLogStart = state.nextLogOrder;
  state.pending.putStored(scanned, line);
  state.nextSeq = Math.max(state.nextSeq, scanned.seq + 1);
  if (scanned.kind === 'restored') return;
  statsBucket(state, scanned.at).requests += 1;
  if (deferCreated(state, run, scanned.id, scanned.at)) return;
  keepLog(state, scanned.id, logEntry(state.nextLogOrder, scanned.id, scanned.at, { time: scanned.at, state: 'CREATED' }));
}

function addMessage(state: DevState, message: MessageRecord, at: number): void {
  state.pending.put(message);
  noteOrigin(state, message);
  state.nextSeq = Math.max(state.nextSeq, message.seq + 1);
  const bucket = statsBucket(state, at);
  bucket.requests += 1;
  if (message.workflow) bucket.workflowRequests += 1;
  if (message.workflow?.init) bucket.workflowRuns = (bucket.workflowRuns ?? 0) + 1;
  log(state, message, { time: at, state: 'CREATED' });
}

function applyAttempt(state: DevState, record: Extract<DevRecord, { type: 'attempt' }>): void {
  const message = state.pending.get(record.id);
  if (!message) return;
  const bucket = statsBucket(state, record.at);
  bucket.bandwidth += record.bytes;
  state.pending.markStarted(record.id);
  log(state, message, { time: record.startedAt ?? record.at, state: 'ACTIVE' });
  const responseStatus = record.response?.status;
  const attempt = attemptDetail(record);
  if (record.outcome !== 'delivered') {
    // An HTTP failure reads as its status line, as the service writes it: `400 Bad Request`.
    const error = record.error ?? (record.response ? statusLine(record.response.status) : 'no answer');
    log(state, message, { time: record.at, state: 'ERROR', error, responseStatus, attempt });
  }
  if (record.outcome === 'retry') {
    const dueAt = record.dueAt ?? record.at;
    state.pending.retryAt(record.id, record.retried + 1, dueAt);
    log(state, message, { time: record.at, state: 'RETRY', nextDeliveryTime: dueAt, delaySource: record.delaySource || undefined });
  } else {
    takePending(state, record.id);
    const workflow = message.workflow !== undefined;
    if (record.outcome === 'delivered') {
      bucket.delivered += 1;
      if (workflow) bucket.workflowDelivered += 1;
      log(state, message, { time: record.at, state: 'DELIVERED', responseStatus, attempt });
    } else {
      bucket.failed += 1;
      if (workflow) bucket.workflowFailed += 1;
      log(state, message, { time: record.at, state: 'FAILED', responseStatus });
    }
    settleFailureCallback(state, message, record);
    settleSchedule(state, message, record.outcome === 'delivered' ? 'SUCCESS' : 'FAIL');
  }
  for (const spawned of record.spawned) addMessage(state, spawned, record.at);
  if (record.dlq) {
    addDlqEntry(state, record.dlq);
    noteRunEvent(state, record.dlq.message.workflow?.runId, {
      at: record.at,
      kind: 'dead-lettered',
      messageId: record.dlq.message.id,
      detail: record.response ? `answered ${record.response.status}` : (record.error ?? 'no answer'),
    });
    // A step that failed for good fails its run.
    const run = record.dlq.message.workflow && state.runs.get(record.dlq.message.workflow.runId);
    if (run && run.state === 'RUN_STARTED') {
      run.state = 'RUN_FAILED';
      run.completedAt = record.at;
      delete run.earlyEvents;
    }
  }
}

// A failure callback's final outcome is its DLQ entry's `failureCallbackInfo`: derived here rather
// than written as a record of its own, so the two can never disagree.
function settleFailureCallback(state: DevState, message: MessageRecord, record: Extract<DevRecord, { type: 'attempt' }>): void {
  if (message.kind !== 'failure-callback' || message.dlqId === undefined) return;
  const entry = state.dlq.get(message.dlqId);
  if (!entry) return;
  noteRunEvent(state, entry.message.workflow?.runId, {
    at: record.at,
    kind: 'failure-function',
    detail: record.response ? `answered ${record.response.status}` : (record.error ?? 'no answer'),
  });
  entry.failureCallbackInfo = {
    state: record.outcome === 'delivered' ? 'CALLBACK_SUCCESS' : 'CALLBACK_FAIL',
    ...(record.response
      ? { responseStatus: record.response.status, responseBodyBase64: record.response.bodyBase64, responseHeaders: record.response.headers }
      : {}),
  };
}

function settleSchedule(state: DevState, message: MessageRecord, outcome: 'SUCCESS' | 'FAIL'): void {
  if (message.scheduleId === undefined || message.kind !== 'message') return;
  const states = state.schedules.get(message.scheduleId)?.lastScheduleStates;
  if (states && message.id in states) states[message.id] = outcome;
}

/** Kept per attempt in the logs: enough to show a response, never a megabyte of it. */
const LOGGED_BODY_BYTES = 4096;
const LOGGED_BASE64_CHARS = (LOGGED_BODY_BYTES / 3) * 4 - 4;

function attemptDetail(record: Extract<DevRecord, { type: 'attempt' }>): AttemptDetail {
  const startedAt = record.startedAt ?? record.at;
  let response: AttemptDetail['response'];
  if (record.response) {
    const { bodyBase64 } = record.response;
    // Most answers are small: keep their base64 as it is rather than decode and encode it again.
    const short = bodyBase64.length <= LOGGED_BASE64_CHARS;
    const body = short ? undefined : Buffer.from(bodyBase64, 'base64');
    response = {
      status: record.response.status,
      headers: record.response.headers,
      bodyBase64: body ? body.subarray(0, LOGGED_BODY_BYTES).toString('base64') : bodyBase64,
      truncated: body ? body.length > LOGGED_BODY_BYTES : false,
    };
  }
  // One shape for every attempt, absent fields undefined, as for log entries.
  return {
    retried: record.retried,
    startedAt,
    durationMs: record.at - startedAt,
    signature: record.signature,
    spanId: record.spanId,
    response,
    error: record.error,
  };
}

function addDlqEntry(state: DevState, entry: DlqEntry): void {
  state.dlq.set(entry.dlqId, entry);
  state.nextDlqOrder = Math.max(state.nextDlqOrder, entry.order + 1);
}

/** The order of the first log entry the record being applied adds (`reduce` is synchronous). */
let changeLogStart = 0;

function log(state: DevState, message: MessageRecord, entry: LogFields): void {
  // Two entries of one change (ERROR then RETRY, CANCEL_REQUESTED then CANCELED) are a millisecond
  // apart: the SDKs page the log by the times in cursors, and their suites expect each page's to be
  // older. Entries of separate changes keep their own times (an attempt's ACTIVE is when it started).
  const last = state.logs.at(-1);
  const sameChange = last !== undefined && last.order >= changeLogStart && last.messageId === message.id;
  const time = sameChange && last.time >= entry.time ? last.time + 1 : entry.time;
  keepLog(state, message, logEntry(state.nextLogOrder, message.id, time, entry));
}

/** `400 Bad Request`; a status without a reason phrase is its number alone. */
function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason === undefined ? String(status) : `${status} ${reason}`;
}
