import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Client } from '@upstash/qstash';
import { afterEach, describe, expect, it } from 'vitest';
import { runServiceCommand } from '../src/cli/service-commands';
import { lineWriter } from '../src/events';
import { useBuiltCli } from './helpers/cli-process';
import { destination, t, useTestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';

// The `mailroom` commands for any service against a running `mailroom dev`: what a person sees (tables,
// questions, exit codes) and what a script gets (--json). Commands run in this process as main.ts runs
// them; a few run as real processes to prove main.ts's wiring (argv, piped stdin, exit codes, SIGINT).

// The test server runs a thousand times faster: a delay of 150 h is nine minutes, longer than any test.
useTestServer();
const cliPath = useBuiltCli();
const folders: string[] = [];
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `terminal`: run in-process as at a terminal, answering yes to every question. */
type Options = { input?: string; env?: Record<string, string>; terminal?: boolean };

/** `mailroom` as a process: what main.ts wires (argv, stdin, stdout, the exit code). */
function mailroomProcess(args: string[], options: Options = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath(), ...args], {
      env: { PATH: process.env.PATH ?? '', MAILROOM_URL: t.server.url, MAILROOM_TOKEN: t.server.token, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

/** A stream that hands each chunk written to it to `onText`. */
function collecting(onText: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      onText(chunk.toString('utf8'));
      done();
    },
  });
}

/**
 * The same command in this process, as main.ts runs it (without a terminal unless `terminal` says
 * so): a process start costs 0.4-1.5 s, and main.ts's wiring has process tests of its own below.
 */
async function mailroom(args: string[], options: Options = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io = { out: lineWriter(collecting((text) => void (stdout += text))), err: lineWriter(collecting((text) => void (stderr += text))) };
  const code = await runServiceCommand(args, io, {
    env: { MAILROOM_URL: t.server.url, MAILROOM_TOKEN: t.server.token, ...options.env },
    interactive: options.terminal === true,
    ask: async () => (options.terminal ? true : Promise.reject(new Error('mailroom asked a question without a terminal'))),
    readStdin: async () => options.input ?? '',
  });
  return { code, stdout, stderr };
}

const json = (run: Run) => JSON.parse(run.stdout) as Record<string, unknown> & Array<Record<string, unknown>>;

async function folder(): Promise<string> {
  const made = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
  folders.push(made);
  return made;
}

describe('the mailroom commands: help, usage and exit codes', () => {
  it('lists every command, and each has --help with an example', async () => {
    const help = await mailroomProcess(['--help']);
    expect(help.code).toBe(0);
    for (const name of ['messages cancel', 'dlq retry', 'logs', 'schedules sync', 'publish', 'dev']) expect(help.stdout).toContain(name);
    const dlq = await mailroom(['dlq', 'list', '--help']);
    expect(dlq.code).toBe(0);
    expect(dlq.stdout).toMatch(/Example: mailroom dlq list/);
  });

  it('exits 2 on a usage mistake, 3 when the thing is not there, 4 when refused', async () => {
    const unknown = await mailroomProcess(['nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('mailroom --help');
    expect((await mailroom(['nope'])).code).toBe(2);
    expect((await mailroom(['dlq', 'list', '--bogus'])).code).toBe(2);
    const noService = await mailroom(['queues'], { env: { MAILROOM_URL: '', MAILROOM_TOKEN: '' } });
    expect(noService.code).toBe(2);
    expect(noService.stderr).toContain('MAILROOM_URL');
    const missing = await mailroom(['messages', 'get', 'msg_none']);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/msg_none|not found/i);
    expect((await mailroom(['queues'], { env: { MAILROOM_TOKEN: 'wrong' } })).code).toBe(4);
    expect((await mailroom(['messages', 'cancel', '--all'], { env: { MAILROOM_TOKEN: t.server.readOnlyToken }, input: '' })).code).toBe(2);
  });
});

describe('messages, publish, logs', () => {
  it('publishes a body from stdin, finds the delayed message, and cancels it', async () => {
    const published = await mailroomProcess(['publish', `${destination.url}/later`, '--delay', '150h', '--json'], {
      input: '{"orderId":"o-1"}',
    });
    expect(published.code, published.stderr).toBe(0);
    const { messageId } = JSON.parse(published.stdout) as { messageId: string };
    expect(messageId).toMatch(/^msg_/);
    const got = await mailroom(['messages', 'get', messageId]);
    expect(got.stdout).toContain(messageId);
    expect(got.stdout.split('\n')[0]).toMatch(/^messageId\s+url/);
    const cancel = await mailroom(['messages', 'cancel', messageId, '--json']);
    expect(json(cancel)).toEqual({ cancelled: 1 });
    expect((await mailroom(['messages', 'get', messageId])).code).toBe(3);
  });

  it('asks before cancelling everything, and without a terminal refuses unless --yes', async () => {
    for (const index of [1, 2]) await t.messaging.publish({ destination: `${destination.url}/later-${index}`, body: 'x', delay: '150h' });
    const refused = await mailroom(['messages', 'cancel', '--all']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(json(await mailroom(['messages', 'cancel', '--all', '--yes', '--json']))).toMatchObject({
      cancelled: 2,
      actionId: expect.any(String),
    });
  });

  it('prints the logs, and --follow prints a new event as it happens', async () => {
    await t.messaging.publish({ destination: `${destination.url}/logged`, body: 'x' });
    await destination.waitFor('/logged', 1);
    await waitUntil(
      async () => (await t.messaging.logs.list()).events.some((event) => event.state === 'DELIVERED'),
      'the delivery in the logs',
    );
    const logs = await mailroom(['logs', '--json']);
    expect((json(logs).events as Array<{ state: string }>).map((event) => event.state)).toContain('DELIVERED');

    const child = spawn(process.execPath, [cliPath(), 'logs', '--follow', '--json', '--count', '1'], {
      env: { PATH: process.env.PATH ?? '', MAILROOM_URL: t.server.url, MAILROOM_TOKEN: t.server.token },
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk));
    try {
      await waitUntil(
        () => out.includes('"events"'),
        () => `the first page, got ${out}`,
      );
      const { messageId } = await t.messaging.publish({ destination: `${destination.url}/followed`, body: 'y' });
      await waitUntil(
        () => out.includes(messageId),
        () => `the new event, got ${out}`,
        15_000,
      );
    } finally {
      child.kill('SIGINT');
    }
  });
});

describe('the DLQ', () => {
  it('lists, shows, retries one, and deletes all after asking', async () => {
    destination.script('/fails', () => ({ status: 500, body: 'boom' }));
    for (const index of [1, 2]) await t.messaging.publish({ destination: `${destination.url}/fails`, body: String(index), retries: 0 });
    await waitUntil(async () => (await t.messaging.dlq.list()).messages.length === 2, 'two DLQ entries');

    const list = await mailroom(['dlq', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/dlqId\s+messageId\s+url\s+responseStatus/);
    expect(list.stdout.match(/\/fails/g)).toHaveLength(2);
    const [first] = (await t.messaging.dlq.list()).messages;
    expect((await mailroom(['dlq', 'get', first!.dlqId])).stdout).toContain('boom');

    destination.script('/fails', () => ({ status: 200 }));
    expect((await mailroom(['dlq', 'retry', first!.dlqId])).code).toBe(0);
    await destination.waitFor('/fails', 3);

    const refused = await mailroom(['dlq', 'delete', '--all']);
    expect(refused.code).toBe(2);
    expect((await t.messaging.dlq.list()).messages.length).toBeGreaterThan(0);
    expect((await mailroom(['dlq', 'delete', '--all', '--yes'])).code).toBe(0);
    expect((await t.messaging.dlq.list()).messages).toEqual([]);
    expect((await mailroom(['dlq', 'get', 'nope-0'])).code).toBe(3);
  });

  it('prints queues, URL groups and runs as tables, empty ones as (none)', async () => {
    await t.messaging.queues.upsert({ name: 'orders', parallelism: 2 });
    expect((await mailroom(['queues'])).stdout).toMatch(/orders\s+2/);
    expect((await mailroom(['url-groups'])).stdout).toBe('(none)\n');
    expect((await mailroom(['workflows', 'runs'])).stdout).toBe('(none)\n');
    expect((await mailroom(['workflows', 'dlq'])).stdout).toBe('(none)\n');
    // The service restarts the ids it holds and ignores the rest.
    expect((await mailroom(['workflows', 'restart', 'nope-0'])).stdout).toBe('(none)\n');
  });
});

describe('bulk actions by filter', () => {
  it('cancels what a filter names and nothing else, and retries and deletes the DLQ by filter across batches', async () => {
    for (const label of ['stale', 'stale', 'keep'])
      await t.messaging.publish({ destination: `${destination.url}/later`, body: 'x', delay: '150h', label });
    const cancel = await mailroom(['messages', 'cancel', '--label', 'stale', '--yes', '--json']);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(json(cancel)).toMatchObject({ cancelled: 2 });
    expect((await t.messaging.logs.list({ state: 'CANCELED' })).events).toHaveLength(2);
    expect((await mailroom(['messages', 'cancel', 'msg_1', '--label', 'x'])).code).toBe(2);

    // 150 entries: more than one batch (100) of a bulk DLQ call, on a queue and two URLs.
    destination.script('/broken', () => ({ status: 500, body: 'boom' }));
    const items = Array.from({ length: 150 }, (_, index) => ({
      destination: `${destination.url}/broken`,
      body: String(index),
      retries: 0,
      ...(index < 120 ? { label: 'bulk' } : {}),
    }));
    await t.messaging.batch(items);
    const inDlq = async () => {
      let entries = 0;
      for await (const _entry of t.messaging.dlq.iterate()) entries += 1;
      return entries;
    };
    await waitUntil(async () => (await inDlq()) === 150, '150 DLQ entries', 30_000);
    const firstPage = json(await mailroom(['dlq', 'list', '--label', 'bulk', '--count', '100', '--json']));
    expect(firstPage.messages).toHaveLength(100);
    const nextPage = json(await mailroom(['dlq', 'list', '--label', 'bulk', '--cursor', String(firstPage.cursor), '--json']));
    expect(nextPage.messages).toHaveLength(20);

    // With a terminal, to see what a person sees: the count as it goes, then the total.
    const deleted = await mailroom(['dlq', 'delete', '--label', 'bulk'], { terminal: true });
    expect(deleted.code).toBe(0);
    expect(deleted.stderr).toContain('deleted 100...');
    expect(deleted.stderr).toContain('deleted 120...');
    expect(await inDlq()).toBe(30);

    destination.script('/broken', () => ({ status: 200 }));
    const retried = await mailroom(['dlq', 'retry', '--filter-url', `${destination.url}/broken`, '--yes', '--json']);
    expect(retried.code, retried.stderr).toBe(0);
    expect(json(retried)).toEqual({ retried: 30 });
    await destination.waitFor('/broken', 180);
    expect((await t.messaging.dlq.list()).messages).toEqual([]);

    for (const index of [1, 2]) await t.messaging.publish({ destination: `${destination.url}/later-${index}`, body: 'x', delay: '150h' });
    const cancelled = await mailroom(['messages', 'cancel', '--all'], { terminal: true });
    expect(cancelled.code).toBe(0);
    expect(cancelled.stderr).toMatch(/\[#{30}\] [1-9]\d*\/[1-9]\d*/);
  }, 120_000);
});

describe('queues, URL groups and schedules: set up and taken down', () => {
  it('creates, changes, pauses, resumes, and deletes after asking', async () => {
    const set = await mailroom(['queues', 'set', 'orders', '--parallelism', '3']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/orders\s+3/);
    expect((await mailroom(['queues', 'pause', 'orders'])).code).toBe(0);
    expect((await t.messaging.queues.get('orders')).paused).toBe(true);
    expect((await mailroom(['queues', 'resume', 'orders'])).code).toBe(0);
    expect((await t.messaging.queues.get('orders')).paused).toBe(false);
    expect((await mailroom(['queues', 'set', 'orders', '--parallelism', 'many'])).code).toBe(2);
    expect((await mailroom(['queues', 'delete', 'orders'])).code).toBe(2);
    expect((await mailroom(['queues', 'delete', 'orders', '--yes'])).code).toBe(0);
    expect(await t.messaging.queues.list()).toEqual([]);

    const added = await mailroom(['url-groups', 'add', 'fanout', `${destination.url}/a`, `${destination.url}/b`]);
    expect(added.code, added.stderr).toBe(0);
    expect((await t.messaging.urlGroups.get('fanout')).endpoints.map((each) => each.url)).toEqual([
      `${destination.url}/a`,
      `${destination.url}/b`,
    ]);
    expect((await mailroom(['url-groups', 'remove', 'fanout', `${destination.url}/b`])).code).toBe(0);
    expect((await t.messaging.urlGroups.get('fanout')).endpoints.map((each) => each.url)).toEqual([`${destination.url}/a`]);
    expect((await mailroom(['url-groups', 'add', 'fanout'])).code).toBe(2);
    expect((await mailroom(['url-groups', 'delete', 'fanout', '--yes'])).code).toBe(0);
    expect((await mailroom(['url-groups', 'delete', 'fanout', '--yes'])).code).toBe(3);

    const created = await mailroom([
      'schedules',
      'create',
      `${destination.url}/report`,
      '--cron',
      '0 3 * * *',
      '--schedule-id',
      'nightly',
      '--body',
      '{"kind":"report"}',
      '--retries',
      '1',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(json(created)).toEqual({ scheduleId: 'nightly' });
    // The vendor's own SDK reads back what the command wrote.
    const vendor = await new Client({ baseUrl: t.server.url, token: t.server.token }).schedules.get('nightly');
    expect(vendor).toMatchObject({ cron: '0 3 * * *', destination: `${destination.url}/report`, body: '{"kind":"report"}', retries: 1 });
    expect((await mailroom(['schedules', 'pause', 'nightly'])).code).toBe(0);
    expect((await t.messaging.schedules.get('nightly')).isPaused).toBe(true);
    expect((await mailroom(['schedules', 'resume', 'nightly'])).code).toBe(0);
    expect((await t.messaging.schedules.get('nightly')).isPaused).toBe(false);
    expect((await mailroom(['schedules', 'create', `${destination.url}/report`])).code).toBe(2);
    const badCron = await mailroom(['schedules', 'create', `${destination.url}/report`, '--cron', '61 * * * *']);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toContain('cron');
    expect((await mailroom(['schedules', 'delete', 'nightly'])).code).toBe(2);
    expect((await mailroom(['schedules', 'delete', 'nightly', '--yes'])).code).toBe(0);
    expect(await t.messaging.schedules.list()).toEqual([]);
  }, 180_000);
});

describe('schedules sync: schedules kept as code', () => {
  it('creates, updates each field it manages, deletes after asking, and changes nothing the second time', async () => {
    const dir = await folder();
    const file = join(dir, 'schedules.json');
    const write = (schedules: unknown[]) => writeFile(file, JSON.stringify({ schedules }));
    const a = { scheduleId: 'nightly-report', destination: `${destination.url}/report`, cron: '0 3 * * *', body: { kind: 'report' } };
    const b = { scheduleId: 'hourly-sync', destination: `${destination.url}/sync`, cron: '0 * * * *' };
    await write([a, b]);

    const dry = await mailroom(['schedules', 'sync', file]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('+ nightly-report  0 3 * * *');
    expect(dry.stdout).toContain('2 to create, 0 to update, 0 to delete');
    expect(dry.stdout).toContain('--apply');
    expect(await t.messaging.schedules.list()).toEqual([]);

    expect((await mailroom(['schedules', 'sync', file, '--apply'])).code).toBe(0);
    expect((await t.messaging.schedules.list()).map((schedule) => schedule.scheduleId).sort()).toEqual(['hourly-sync', 'nightly-report']);
    // The vendor's own SDK reads back what the sync wrote.
    const vendor = await new Client({ baseUrl: t.server.url, token: t.server.token }).schedules.get('nightly-report');
    expect(vendor).toMatchObject({ cron: '0 3 * * *', destination: `${destination.url}/report`, body: '{"kind":"report"}' });
    expect((await mailroom(['schedules', 'sync', file])).stdout).toContain('nothing to change');

    // One schedule per field, each changed in that field only: one sync must update each for that field.
    const edits: Array<[string, Record<string, unknown>]> = [
      ['cron', { cron: '30 3 * * *' }],
      ['destination', { destination: `${destination.url}/report-v2` }],
      ['body', { body: 'plain' }],
      ['method', { method: 'PUT' }],
      ['retries', { retries: 1 }],
      ['delay', { delay: '30s' }],
      ['callback', { callback: `${destination.url}/cb` }],
      ['failureCallback', { failureCallback: `${destination.url}/fcb` }],
    ];
    const each = edits.map(([field]) => ({ ...a, scheduleId: `by-${field}` }));
    await write([a, b, ...each]);
    expect((await mailroom(['schedules', 'sync', file, '--apply'])).code).toBe(0);
    const changed = edits.map(([field, change], index) => ({ ...each[index]!, ...change, field }));
    await write([a, b, ...changed.map(({ field: _field, ...spec }) => spec)]);
    const plan = await mailroom(['schedules', 'sync', file, '--apply', '--json']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(
      (json(plan).update as Array<{ spec: { scheduleId: string }; changed: string[] }>).map((update) => [
        update.spec.scheduleId,
        update.changed,
      ]),
    ).toEqual(edits.map(([field]) => [`by-${field}`, [field]]));
    expect((await mailroom(['schedules', 'sync', file])).stdout).toContain('nothing to change');
    const current = a;

    await write([current]);
    const refused = await mailroom(['schedules', 'sync', file, '--apply']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain('- hourly-sync');
    expect((await t.messaging.schedules.list()).length).toBe(2 + edits.length);
    expect((await mailroom(['schedules', 'sync', file, '--apply', '--yes'])).code).toBe(0);
    expect((await t.messaging.schedules.list()).map((schedule) => schedule.scheduleId)).toEqual(['nightly-report']);
  }, 180_000);

  it('reads a TypeScript file, and refuses a bad one naming the field', async () => {
    const dir = await folder();
    const ts = join(dir, 'schedules.ts');
    await writeFile(
      ts,
      `interface Spec { scheduleId: string; destination: string; cron: string }\nconst daily: Spec = { scheduleId: 'daily', destination: '${destination.url}/daily', cron: '0 9 * * 1-5' };\nexport default [daily];\n`,
    );
    const tmp = await folder();
    expect((await mailroomProcess(['schedules', 'sync', ts, '--apply'], { env: { TMPDIR: tmp } })).code).toBe(0);
    expect((await t.messaging.schedules.get('daily')).cron).toBe('0 9 * * 1-5');
    // Nothing is left behind in the temporary folder (a transpiled copy of the file, once).
    expect(await readdir(tmp)).toEqual([]);

    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify([{ scheduleId: 'x', destination: `${destination.url}/x`, cron: '61 * * * *' }]));
    const refused = await mailroom(['schedules', 'sync', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('[0].cron');
  });
});
