import { type DevState, dedupLive, dlqLive, statsLive, type Expiry } from './dev-state';
import type { DevRecord, LogRecord, MessageRecord } from './records';

/**
 * The state as the fewest records that rebuild it, for journal compaction. Expired deduplication
 * keys, DLQ entries past retention and old statistics are left out: compaction is where they go.
 */
export function snapshotRecords(state: DevState, expiry: Expiry): DevRecord[] {
  const records: DevRecord[] = [
    { type: 'counters.restored', nextSeq: state.nextSeq, nextDlqOrder: state.nextDlqOrder, nextLogOrder: state.nextLogOrder },
  ];
  if (state.signingKeys) records.push({ type: 'keys.rotated', ...state.signingKeys });
  for (const queue of state.queues.values()) records.push({ type: 'queue.updated', name: queue.name, queue });
  for (const schedule of state.schedules.values()) records.push({ type: 'schedule.updated', id: schedule.scheduleId, schedule });
  for (const flow of state.flowKeys.values()) records.push({ type: 'flow.updated', key: flow.key, flow });
  const buckets = [...state.stats].filter(([minute]) => statsLive(minute, expiry));
  if (buckets.length > 0) records.push({ type: 'stats.restored', buckets });
  for (const group of state.groups.values()) records.push({ type: 'group.updated', name: group.name, group });
  for (const index of state.indexes.values()) records.push({ type: 'index.created', index });
  // Before the pending messages: a restored step must find its run.
  for (const run of state.runs.values()) records.push({ type: 'run.restored', run });
  for (const waiter of state.waiters.values()) records.push({ type: 'waiter.added', waiter });
  for (const entry of state.dlq.values()) if (dlqLive(entry.at, expiry)) records.push({ type: 'dlq.restored', entry });
  for (const [key, entry] of state.dedup) {
    if (dedupLive(entry.at, expiry)) records.push({ type: 'dedup.restored', key, at: entry.at, results: entry.results });
  }
  // Before the pending messages: their own CREATED entries are in here, and replaying a message must not log it again.
  // One record per message, with its entries: a line stays small enough to decode on its own.
  const byMessage = new Map<string, { logs: LogRecord[]; messages: [MessageRecord] }>();
  state.logs.forEach((entry, index) => {
    const group = byMessage.get(entry.messageId);
    if (group) group.logs.push(entry);
    else byMessage.set(entry.messageId, { logs: [entry], messages: [state.logMessages[index]!] });
  });
  for (const group of byMessage.values()) records.push({ type: 'logs.restored', ...group });
  for (const pending of state.messages.values()) {
    records.push({
      type: 'message.restored',
      message: pending.record,
      retried: pending.retried,
      dueAt: pending.dueAt,
      started: pending.started,
    });
  }
  return records;
}
