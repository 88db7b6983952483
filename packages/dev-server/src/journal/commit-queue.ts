/** What a caller waits for: one append or one compaction, settled when it is durable or failed. */
export type JournalOperation = ({ kind: 'append'; line: string } | { kind: 'compact'; lines: string[] }) & {
  resolve: () => void;
  reject: (error: unknown) => void;
};

export type AppendOperation = Extract<JournalOperation, { kind: 'append' }>;

/**
 * Cap on one batch, so a burst of appends does not build one huge string; a batch this size already
 * spreads one sync over thousands of records.
 */
const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Takes the run of appends at the front of `queue` (up to {@link MAX_BATCH_BYTES}; at least one), for
 * one write and one sync. Stops at a compaction, which must see exactly the appends queued before it.
 */
export function takeAppendBatch(queue: JournalOperation[]): AppendOperation[] {
  let count = 0;
  let bytes = 0;
  for (let next = queue[0]; next?.kind === 'append'; next = queue[count]) {
    if (count > 0 && bytes + next.line.length > MAX_BATCH_BYTES) break;
    bytes += next.line.length;
    count += 1;
  }
  // One splice, not a shift per record: a large batch would make that quadratic.
  return queue.splice(0, count) as AppendOperation[];
}
