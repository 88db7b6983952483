import type { DevState } from './dev-state';
import { dedupLive, dlqLive, statsLive, type Expiry } from './expiry';
import type { DevRecord } from './records';

/**
 * The state as the fewest records that rebuild it, for journal compaction. Expired deduplication
 * keys, DLQ entries past retention and old statistics are left out: compaction is where they go.
 */
export function snapshotRecords(state: DevState, expiry: Expiry): DevRecord[] {
  const records: DevRecord[] = [{ type: 'counters.restored', nextSeq: state.nextSeq, nextDlqOrder: state.nextDlqOrder }];
  const buckets = [...state.stats].filter(([minute]) => statsLive(minute, expiry));
  if (buckets.length > 0) records.push({ type: 'stats.restored', buckets });
  for (const group of state.groups.values()) records.push({ type: 'group.updated', name: group.name, group });
  for (const index of state.indexes.values()) records.push({ type: 'index.created', index });
  for (const entry of state.dlq.values()) if (dlqLive(entry.at, expiry)) records.push({ type: 'dlq.restored', entry });
  for (const [key, entry] of state.dedup) {
    if (dedupLive(entry.at, expiry)) records.push({ type: 'dedup.restored', key, at: entry.at, results: entry.results });
  }
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
