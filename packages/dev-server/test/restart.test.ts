import { appendFile, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEV_TOKEN, formatEvent } from '../src/index';
import { always, startDestination, type TestDestination } from './helpers/destination';
import { startTestServer } from './helpers/test-server';
import { encodeRecordLine } from '../src/journal/record-line';

let dataDir: string;
let destination: TestDestination;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'mailroom-dev-'));
  destination = await startDestination();
});
afterEach(async () => {
  await destination.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('restart with a data directory', () => {
  it('generates credentials once and keeps them', async () => {
    const first = await startTestServer({ dataDir });
    const { token, readOnlyToken, managementPassword, currentSigningKey, nextSigningKey } = first.server;
    await first.close();
    expect(token).not.toBe(DEV_TOKEN);
    expect(currentSigningKey).toMatch(/^sig_/);
    expect(nextSigningKey).toMatch(/^sig_/);
    expect(currentSigningKey).not.toBe(nextSigningKey);
    expect((await stat(join(dataDir, 'credentials.json'))).mode & 0o077).toBe(0);
    const second = await startTestServer({ dataDir });
    try {
      expect(second.server).toMatchObject({ token, readOnlyToken, managementPassword, currentSigningKey, nextSigningKey });
      expect((await second.management.users())[0]?.token).toBe(token);
    } finally {
      await second.close();
    }
  });

  it('loses no accepted message: pending deliveries resume after a restart', async () => {
    // The first server's clock stands still, so however slow this machine is, nothing falls due before
    // the close; the second starts ten minutes later, when every delay has passed.
    const startedAt = Date.now();
    const first = await startTestServer({ dataDir, timeScale: 1, now: () => startedAt });
    const accepted: string[] = [];
    for (let index = 0; index < 10; index += 1) {
      const { messageId } = await first.messaging.enqueue({
        queue: `q${index % 3}`,
        destination: `${destination.url}/later`,
        body: String(index),
        delay: '5m',
      });
      accepted.push(messageId);
    }
    await first.close();
    expect(destination.received('/later')).toHaveLength(0);

    const second = await startTestServer({ dataDir, now: () => Date.now() + 10 * 60_000 });
    try {
      const requests = await destination.waitFor('/later', 10);
      expect(new Set(requests.map((request) => request.headers['service-message-id']))).toEqual(new Set(accepted));
      // Still signed with the keys of the data directory.
      await expect(
        second.verify(requests[0]!.headers['service-signature'], requests[0]!.body, `${destination.url}/later`),
      ).resolves.toBeDefined();
      expect(second.events.find((event) => event.type === 'listening')).toMatchObject({ recovered: 10 });
    } finally {
      await second.close();
    }
  });

  it('resumes a retrying message with its retry count, and its callbacks', async () => {
    destination.script('/flaky', (_, index) => (index === 0 ? { status: 500 } : { status: 200 }));
    const first = await startTestServer({ dataDir });
    const { messageId } = await first.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/flaky`,
      body: 'x',
      retries: 3,
      retryDelay: '200000',
      callback: `${destination.url}/cb`,
    });
    await first.waitForEvents('retry', 1);
    await first.close();

    const second = await startTestServer({ dataDir });
    try {
      await second.waitForEvents('delivered', 1, (event) => event.messageId === messageId);
      expect(destination.received('/flaky').map((request) => request.headers['service-retried'])).toEqual(['0', '1']);
      // One callback per attempt, across the restart.
      await destination.waitFor('/cb', 2);
    } finally {
      await second.close();
    }
  });

  it('keeps URL groups, DLQ entries, search indexes, deduplication keys and statistics', async () => {
    destination.script('/down', always(500));
    const first = await startTestServer({ dataDir });
    await first.messaging.urlGroups.addEndpoints('team', [{ name: 'a', url: `${destination.url}/a` }]);
    await first.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/down`,
      body: 'x',
      retries: 0,
      workflow: { runId: 'wfr_keep', url: `${destination.url}/wf` },
    });
    await first.waitForEvents('dlq', 1);
    const index = await first.management.searchIndexes.create({ name: 'kept', region: 'eu-west-1', type: 'free' });
    const { messageId } = await first.messaging.enqueue({
      queue: 'q',
      destination: `${destination.url}/ok`,
      body: 'x',
      deduplicationId: 'once',
    });
    await first.waitForEvents('delivered', 1);
    const userId = (await first.management.users())[0]!.id;
    await first.close();

    for (let round = 0; round < 2; round += 1) {
      // Twice: the second start replays the snapshot the first close compacted to.
      const next = await startTestServer({ dataDir });
      try {
        expect((await next.messaging.urlGroups.list()).map((group) => group.name)).toEqual(['team']);
        expect((await next.messaging.workflowDlq.list()).messages.map((entry) => entry.workflowRunId)).toEqual(['wfr_keep']);
        expect(await next.management.searchIndexes.get(index.id)).toEqual(index);
        expect(
          await next.messaging.enqueue({ queue: 'q', destination: `${destination.url}/ok`, body: 'x', deduplicationId: 'once' }),
        ).toEqual({ messageId, deduplicated: true });
        const stats = await next.management.stats(userId);
        expect(
          stats.daily_messaging_messages.find((series) => series.id === 'delivered')?.data_points.reduce((sum, point) => sum + point.y, 0),
        ).toBe(1);
        expect(stats.dlq_message_count).toBe(1);
      } finally {
        await next.close();
      }
    }
    expect(await readdir(dataDir)).toEqual(expect.arrayContaining(['credentials.json', 'mailroom.jsonl']));
  });
});

describe('a damaged journal', () => {
  async function threePendingMessages(): Promise<string[]> {
    const first = await startTestServer({ dataDir });
    const ids: string[] = [];
    for (const body of ['a', 'b', 'c']) {
      ids.push((await first.messaging.enqueue({ queue: 'q', destination: `${destination.url}/later`, body, delay: '1d' })).messageId);
    }
    await first.close();
    return ids;
  }
  const journalFile = () => join(dataDir, 'mailroom.jsonl');

  it('drops a torn last line and says so in the log', async () => {
    const ids = await threePendingMessages();
    await appendFile(journalFile(), '3f2a9c01 {"type":"messages.acc');
    const second = await startTestServer({ dataDir });
    try {
      const [recovered] = second.events.filter((event) => event.type === 'journal-recovered');
      expect(recovered).toMatchObject({ file: journalFile(), tornBytesDropped: 30, damagedRecordsSkipped: 0 });
      expect(formatEvent(recovered!)).toBe(`journal ${journalFile()}: dropped a torn last line (30 bytes, a write cut short by a crash)`);
      for (const id of ids) expect((await second.messaging.messages.get(id)).messageId).toBe(id);
    } finally {
      await second.close();
    }
  });

  it('refuses to start on a damaged record in the middle, then keeps every intact record with repairJournal', async () => {
    const ids = await threePendingMessages();
    const lines = (await readFile(journalFile(), 'utf8')).split('\n');
    const damagedAt = lines.findIndex((line) => line.includes('"message.restored"') && line.includes(ids[1]!));
    expect(damagedAt).toBeGreaterThan(0);
    lines[damagedAt] = lines[damagedAt]!.replace(
      ids[1]!,
      ids[1]!.replace(/.$/, (c) => (c === 'x' ? 'y' : 'x')),
    );
    await writeFile(journalFile(), lines.join('\n'));
    await expect(startTestServer({ dataDir })).rejects.toThrow(/line \d+ .*--repair-journal/);
    const repaired = await startTestServer({ dataDir, repairJournal: true });
    try {
      const [recovered] = repaired.events.filter((event) => event.type === 'journal-recovered');
      expect(recovered).toMatchObject({ damagedRecordsSkipped: 1, damagedFile: `${journalFile()}.damaged` });
      expect(formatEvent(recovered!)).toMatch(
        /skipped 1 damaged record\(s\) \(\d+ bytes, saved to .*\.damaged\) and kept every intact one/,
      );
      expect((await repaired.messaging.messages.get(ids[0]!)).messageId).toBe(ids[0]);
      expect((await repaired.messaging.messages.get(ids[2]!)).messageId).toBe(ids[2]);
      // The lost message is unknown, and its entries in the snapshot's log went with it.
      await expect(repaired.messaging.messages.get(ids[1]!)).rejects.toMatchObject({ status: 404 });
      const logged = (await repaired.messaging.logs.list()).events.map((event) => event.messageId);
      expect(new Set(logged)).toEqual(new Set([ids[0], ids[2]]));
      expect(await readFile(`${journalFile()}.damaged`, 'utf8')).toBe(`${lines[damagedAt]}\n`);
    } finally {
      await repaired.close();
    }
  });

  it('refuses a record with a good checksum but an impossible shape, naming where, leaving no lock; repairs it on request', async () => {
    const ids = await threePendingMessages();
    const impossible = encodeRecordLine({ type: 'message.restored', message: null, retried: 0, dueAt: 0, started: false }).toString();
    await appendFile(journalFile(), impossible);
    const lines = (await readFile(journalFile(), 'utf8')).split('\n');
    const failure = await startTestServer({ dataDir }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ name: 'JournalCorruptError', line: lines.length - 1 });
    expect((failure as Error).message).toMatch(/damaged \(bad checksum, JSON or shape\).*--repair-journal/);
    // The failed start left no lock behind: a second start fails the same way, not as "locked".
    expect(await readdir(dataDir)).not.toContain('mailroom.lock');
    await expect(startTestServer({ dataDir })).rejects.toMatchObject({ name: 'JournalCorruptError' });
    const repaired = await startTestServer({ dataDir, repairJournal: true });
    try {
      expect(repaired.events.find((event) => event.type === 'journal-recovered')).toMatchObject({ damagedRecordsSkipped: 1 });
      for (const id of ids) expect((await repaired.messaging.messages.get(id)).messageId).toBe(id);
      expect(await readFile(`${journalFile()}.damaged`, 'utf8')).toBe(impossible);
    } finally {
      await repaired.close();
    }
  });
});
