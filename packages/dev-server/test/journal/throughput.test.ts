import { describe, expect, it } from 'vitest';
import { openJournal } from '../../src/journal';
import { useTempDir } from './temp-dir';

/*
 * Appends per second with fsync, on this machine. Skipped unless asked for, since it measures the disk:
 *   JOURNAL_MEASURE=1 npx vitest run test/journal/throughput
 */

const tempDir = useTempDir();
const record = (id: number) => ({
  type: 'message.accepted',
  id: `msg_${id}`,
  destination: 'http://localhost:3000/api/hook',
  body: 'x'.repeat(64),
});

async function measure(fsync: boolean, run: (append: (id: number) => Promise<void>) => Promise<number>) {
  const { journal } = await openJournal<ReturnType<typeof record>>({ dir: tempDir(), fsync });
  const started = performance.now();
  const appended = await run((id) => journal.append(record(id)));
  const seconds = (performance.now() - started) / 1000;
  const stats = journal.stats();
  await journal.close();
  return { appendsPerSecond: Math.round(appended / seconds), appended, syncs: stats.syncs, batches: stats.batches };
}

const sequential = (count: number) => async (append: (id: number) => Promise<void>) => {
  for (let id = 0; id < count; id += 1) await append(id);
  return count;
};

const concurrent = (rounds: number, width: number) => async (append: (id: number) => Promise<void>) => {
  for (let round = 0; round < rounds; round += 1) {
    await Promise.all(Array.from({ length: width }, (_, i) => append(round * width + i)));
  }
  return rounds * width;
};

describe.skipIf(!process.env.JOURNAL_MEASURE)('journal throughput', () => {
  it('measures appends per second', async () => {
    const results = {
      'sequential awaited, fsync': await measure(true, sequential(2_000)),
      '1,000 concurrent x 20, fsync': await measure(true, concurrent(20, 1_000)),
      'sequential awaited, no fsync': await measure(false, sequential(20_000)),
      '1,000 concurrent x 20, no fsync': await measure(false, concurrent(20, 1_000)),
    };
    console.table(results);
    expect(results['1,000 concurrent x 20, fsync'].syncs).toBeLessThanOrEqual(40);
  }, 60_000);
});
