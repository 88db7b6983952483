import { describe, expect, it } from 'vitest';
import { JournalUnavailableError, openMemoryJournal } from '../../src/journal';

describe('openMemoryJournal', () => {
  it('has nothing to replay and counts what it was given', async () => {
    const { journal, records, recovery } = await openMemoryJournal<{ id: number }>();
    expect(records).toEqual([]);
    expect(recovery).toEqual({
      tornBytesDropped: 0,
      damagedRecordsSkipped: 0,
      damagedBytesSkipped: 0,
      damagedFile: undefined,
      file: undefined,
    });
    await Promise.all([journal.append({ id: 1 }), journal.append({ id: 2 })]);
    await journal.compact([{ id: 2 }]);
    expect(journal.stats()).toEqual({ appends: 2, batches: 2, syncs: 0, compactions: 1, recordsInFile: 1, bytesInFile: 0 });
  });

  it('refuses appends after close', async () => {
    const { journal } = await openMemoryJournal<number>();
    await journal.close();
    await journal.close();
    await expect(journal.append(1)).rejects.toBeInstanceOf(JournalUnavailableError);
  });
});
