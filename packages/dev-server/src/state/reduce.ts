import { statsBucket, type DevState } from './dev-state';
import type { DevRecord, DlqEntry, MessageRecord } from './records';

/**
 * Applies one record to the state. The only place state changes, so replaying the journal on start
 * gives exactly the state the server had. Records arrive as JSON round trips: nothing here relies on
 * object identity.
 */
export function reduce(state: DevState, record: DevRecord): void {
  switch (record.type) {
    case 'messages.accepted':
      for (const message of record.messages) addMessage(state, message, record.at);
      for (const key of record.dedupKeys ?? []) {
        state.dedup.set(key, { at: record.at, results: record.messages.map((message) => ({ messageId: message.id, url: message.url })) });
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
      addMessage(state, record.message, record.at);
      return;
    }
    case 'index.created':
      state.indexes.set(record.index.id, record.index);
      return;
    case 'message.restored':
      state.messages.set(record.message.id, {
        record: record.message,
        retried: record.retried,
        dueAt: record.dueAt,
        started: record.started,
      });
      state.nextSeq = Math.max(state.nextSeq, record.message.seq + 1);
      return;
    case 'dlq.restored':
      addDlqEntry(state, record.entry);
      return;
    case 'dedup.restored':
      state.dedup.set(record.key, { at: record.at, results: record.results });
      return;
    case 'stats.restored':
      for (const [minute, bucket] of record.buckets) state.stats.set(minute, { ...bucket });
      return;
    case 'counters.restored':
      state.nextSeq = Math.max(state.nextSeq, record.nextSeq);
      state.nextDlqOrder = Math.max(state.nextDlqOrder, record.nextDlqOrder);
      return;
  }
}

function addMessage(state: DevState, message: MessageRecord, at: number): void {
  state.messages.set(message.id, { record: message, retried: 0, dueAt: message.dueAt, started: false });
  state.nextSeq = Math.max(state.nextSeq, message.seq + 1);
  const bucket = statsBucket(state, at);
  bucket.requests += 1;
  if (message.workflow) bucket.workflowRequests += 1;
}

function applyAttempt(state: DevState, record: Extract<DevRecord, { type: 'attempt' }>): void {
  const pending = state.messages.get(record.id);
  if (!pending) return;
  const bucket = statsBucket(state, record.at);
  bucket.bandwidth += record.bytes;
  pending.started = true;
  if (record.outcome === 'retry') {
    pending.retried = record.retried + 1;
    pending.dueAt = record.dueAt ?? record.at;
  } else {
    state.messages.delete(record.id);
    const workflow = pending.record.workflow !== undefined;
    if (record.outcome === 'delivered') {
      bucket.delivered += 1;
      if (workflow) bucket.workflowDelivered += 1;
    } else {
      bucket.failed += 1;
      if (workflow) bucket.workflowFailed += 1;
    }
    settleFailureCallback(state, pending.record, record);
  }
  for (const message of record.spawned) addMessage(state, message, record.at);
  if (record.dlq) addDlqEntry(state, record.dlq);
}

// A failure callback's final outcome is its DLQ entry's `failureCallbackInfo`: derived here rather
// than written as a record of its own, so the two can never disagree.
function settleFailureCallback(state: DevState, message: MessageRecord, record: Extract<DevRecord, { type: 'attempt' }>): void {
  if (message.kind !== 'failure-callback' || message.dlqId === undefined) return;
  const entry = state.dlq.get(message.dlqId);
  if (!entry) return;
  entry.failureCallbackInfo = {
    state: record.outcome === 'delivered' ? 'CALLBACK_SUCCESS' : 'CALLBACK_FAIL',
    ...(record.response
      ? { responseStatus: record.response.status, responseBodyBase64: record.response.bodyBase64, responseHeaders: record.response.headers }
      : {}),
  };
}

function addDlqEntry(state: DevState, entry: DlqEntry): void {
  state.dlq.set(entry.dlqId, entry);
  state.nextDlqOrder = Math.max(state.nextDlqOrder, entry.order + 1);
}
