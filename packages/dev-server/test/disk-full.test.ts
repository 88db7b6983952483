import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JournalUnavailableError } from '../src/journal';
import { storageRefusal } from '../src/errors';
import { type CliProcess, startCli, useBuiltCli } from './helpers/cli-process';
import { startDestination, type TestDestination } from './helpers/destination';
import { waitUntil } from './helpers/wait';

// A full disk as a user meets it: `mailroom dev --data-dir` on a small tmpfs of its own (a mount
// namespace, so no root is needed and nothing outside changes), filled up by a ballast file. A send
// is refused with a 507 that says why, nothing refused shows anywhere (lists, logs, the journal), a
// delivery whose outcome could not be written is made again, and once the ballast goes, everything
// resumes by itself.

const cliPath = useBuiltCli();
let dir = '';
let destination: TestDestination;
let server: CliProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mailroom-disk-full-'));
  destination = await startDestination();
  // The tmpfs is mounted on `dir` inside the server's own namespaces: this process reaches it through /proc.
  const inSmallDisk = ['unshare', '--map-root-user', '--mount', 'sh', '-c', `mount -t tmpfs -o size=8m tmpfs '${dir}' && exec "$@"`, 'sh'];
  server = await startCli(cliPath(), dir, 30_000, [], inSmallDisk);
}, 90_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await destination?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const onDisk = (name: string): string => join(`/proc/${server.child.pid}/root`, dir, name);

async function call(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), text: await response.text() };
}

const publish = (path: string, headers: Record<string, string> = {}) =>
  call('POST', `/v2/publish/${destination.url}${path}`, '{"hello":"disk"}', headers);

/** Writes zeros until the disk is full; the ballast's path. */
function fillDisk(): string {
  const ballast = onDisk('ballast');
  const fd = openSync(ballast, 'w');
  try {
    // Large pieces, then pages: what is left is at most the unused end of the journal's last page.
    for (const size of [64 * 1024, 4096]) {
      const chunk = Buffer.alloc(size);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return ballast;
}

describe('a full disk under --data-dir', () => {
  it('refuses with 507, shows nothing refused, and resumes by itself once space returns', async () => {
    expect((await publish('/before')).status).toBe(200);
    await destination.waitFor('/before', 1);
    const waiting = await publish('/waiting', { 'Service-Delay': '1d' });
    expect(waiting.status).toBe(200);
    const waitingId = (JSON.parse(waiting.text) as { messageId: string }).messageId;
    // Accepted before the disk fills, its attempt still running when writes start failing.
    let answerSlow!: () => void;
    const held = new Promise<void>((resolve) => (answerSlow = resolve));
    let arrived!: () => void;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    destination.script('/slow', (_, index) => {
      arrived();
      return index === 0 ? { until: held } : { status: 200 };
    });
    const slow = await publish('/slow');
    expect(slow.status).toBe(200);
    const slowId = (JSON.parse(slow.text) as { messageId: string }).messageId;
    await slowArrived;

    // Watched the whole time the disk is full: a message accepted before never disappears, not even
    // while the server reloads its journal to drop what it refused.
    const waitingSeen = new Set<number>();
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        waitingSeen.add((await call('GET', `/v2/messages/${waitingId}`)).status);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const ballast = fillDisk();
    // A few small records may still fit the journal's last page: those are accepted (and delivered later).
    const accepted: string[] = [];
    let refused = { status: 0, retryAfter: null as string | null, text: '' };
    let refusedPath = '';
    for (let i = 0; i < 100 && !refusedPath; i += 1) {
      const path = `/fill-${i}/`;
      const answer = await publish(path);
      if (answer.status === 200) accepted.push(path);
      else [refused, refusedPath] = [answer, path];
    }
    expect(refused.status).toBe(507);
    expect(JSON.parse(refused.text)).toEqual({
      error: expect.stringMatching(/disk is full \(ENOSPC\).*nothing of this request was accepted/),
    });
    expect(refused.retryAfter).toBe('5');
    const batch = JSON.stringify([
      { destination: `${destination.url}/refused-batch` },
      { destination: `${destination.url}/refused-batch` },
    ]);
    expect((await call('POST', '/v2/batch', batch)).status).toBe(507);
    expect((await call('POST', '/v2/queues', JSON.stringify({ queueName: 'refused-queue' }))).status).toBe(507);

    // Nothing refused shows: not in the messages, the logs, the queues, nor in the journal a restart replays.
    const shown = [
      (await call('GET', '/dev/messages')).text,
      (await call('GET', '/v2/events')).text,
      (await call('GET', '/v2/queues')).text,
      readFileSync(onDisk('mailroom.jsonl'), 'utf8'),
    ];
    for (const text of shown) {
      expect(text).not.toMatch(/refused/);
      expect(text).not.toContain(refusedPath);
    }
    expect((await call('GET', `/v2/messages/${waitingId}`)).status).toBe(200);
    expect(server.stdout()).toMatch(/"type":"storage","state":"refusing","reason":"the server's disk is full \(ENOSPC\)"/);

    // Its answer comes too late: the attempt was stopped when writes failed, and is made again.
    answerSlow();
    rmSync(ballast);
    let after = await publish('/after');
    await waitUntil(
      async () => {
        if (after.status === 200) return true;
        expect(after.status).toBe(507);
        after = await publish('/after');
        return after.status === 200;
      },
      'a send accepted again after the ballast was removed',
      20_000,
    );
    expect(server.stdout()).toMatch(/"type":"storage","state":"resumed"/);
    watching = false;
    await watcher;
    expect([...waitingSeen]).toEqual([200]);
    await destination.waitFor('/after', 1);
    // The attempt whose outcome was refused is made again; what was delivered before is not.
    await destination.waitFor('/slow', 2);
    await waitUntil(async () => (await call('GET', `/v2/messages/${slowId}`)).status === 404, '/slow settled', 20_000);
    expect(destination.received('/before')).toHaveLength(1);
    expect(destination.received('/after')).toHaveLength(1);
    for (const path of accepted) await destination.waitFor(path, 1);
    expect(destination.received(refusedPath)).toHaveLength(0);
    expect((await call('GET', `/v2/messages/${waitingId}`)).status).toBe(200);
    expect(readFileSync(onDisk('mailroom.jsonl'), 'utf8')).toMatch(/\/after/);
  }, 90_000);
});

describe('the refusal a failed write answers', () => {
  it('is 507 for a full disk or quota, 503 for any other failure, each naming the system code under the journal error', () => {
    const failed = (code: string) =>
      new JournalUnavailableError('Writing the journal failed', { cause: Object.assign(new Error(code), { code }) });
    expect(storageRefusal(failed('EDQUOT'))).toMatchObject({ status: 507, message: expect.stringContaining('(EDQUOT)') });
    const io = storageRefusal(failed('EIO'));
    expect(io).toMatchObject({ status: 503, headers: { 'Retry-After': '5' } });
    expect(io.message).toBe(
      'the server could not write its journal (EIO): nothing of this request was accepted. It tries again by itself; retry shortly',
    );
    expect(storageRefusal(new Error('no code')).message).toContain('(an I/O error)');
  });
});
