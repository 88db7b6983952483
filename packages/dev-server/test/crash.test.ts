import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessagingClient } from '@mailroom/core';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDestination } from './helpers/destination';
import { startTestServer } from './helpers/test-server';
import { waitUntil } from './helpers/wait';

/*
 * A real crash: a child process runs the dev server (built from this source, bundled, no loader),
 * this test enqueues into it as fast as it answers, and SIGKILLs it mid-stream. A new server on the
 * same data directory must then deliver every message whose enqueue had been answered.
 */

const CHILD = `
import { startDevServer } from './server.js';
const server = await startDevServer({ port: 0, dataDir: process.argv[2], timeScale: 0.001, log: 'silent', headerPrefix: 'Service' });
process.stdout.write(JSON.stringify({ url: server.url, token: server.token }) + '\\n');
`;

let buildDir = '';

beforeAll(async () => {
  buildDir = await mkdtemp(join(tmpdir(), 'mailroom-dev-server-build-'));
  await build({
    entry: { server: fileURLToPath(new URL('../src/index.ts', import.meta.url)) },
    format: ['esm'],
    outDir: buildDir,
    target: 'node20',
    platform: 'node',
    config: false,
    silent: true,
    dts: false,
    sourcemap: false,
    splitting: false,
    // One self-contained file: the temporary directory has no node_modules to resolve from.
    noExternal: [/.*/],
    // undici is CommonJS and requires Node's built-ins, which an ES module bundle needs a require for.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  await writeFile(join(buildDir, 'child.mjs'), CHILD);
}, 30_000);

afterAll(async () => {
  if (buildDir) await rm(buildDir, { recursive: true, force: true });
});

function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  const child = spawn(process.execPath, [join(buildDir, 'child.mjs'), dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ child, ...(JSON.parse(line) as { url: string; token: string }) });
    });
    child.on('exit', (code) => reject(new Error(`the dev server child exited (${code}): ${err}`)));
  });
}

describe('a dev server killed mid-stream', () => {
  it('delivers every message whose enqueue was answered, after a restart on the same data directory', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-dev-crash-'));
    const destination = await startDestination();
    try {
      const { child, url, token } = await startChild(dataDir);
      const client = createMessagingClient({ baseUrl: url, token, retry: false, env: {} });
      const answered: string[] = [];
      const exited = new Promise((resolve) => child.on('exit', resolve));
      // Eight writers in parallel, so the kill lands among appends in flight.
      const writer = async (lane: number) => {
        for (let index = 0; ; index += 1) {
          try {
            const { messageId } = await client.enqueue({
              queue: `lane${lane}`,
              destination: `${destination.url}/crash`,
              body: `${lane}-${index}`,
              delay: '3m',
            });
            answered.push(messageId);
            if (answered.length === 60) child.kill('SIGKILL');
          } catch {
            return;
          }
        }
      };
      await Promise.all(Array.from({ length: 8 }, (_, lane) => writer(lane)));
      await exited;
      expect(answered.length).toBeGreaterThanOrEqual(60);

      const restarted = await startTestServer({ dataDir });
      try {
        // Delivered by either process: at least once, never lost.
        const missing = () => {
          const delivered = new Set(destination.received('/crash').map((request) => request.headers['service-message-id']));
          return answered.filter((id) => !delivered.has(id));
        };
        await waitUntil(
          () => missing().length === 0,
          () => `${missing().length} answered message(s) to be delivered`,
          10_000,
        );
      } finally {
        await restarted.close();
      }
    } finally {
      await destination.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 20_000);

  it('keeps every answered change of the new groups (schedules, queues, flow control, keys, cancels, DLQ deletes)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-dev-crash-groups-'));
    const destination = await startDestination();
    try {
      destination.script('/dead', () => ({ status: 500 }));
      const { child, url, token } = await startChild(dataDir);
      const client = createMessagingClient({ baseUrl: url, token, retry: false, env: {} });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      await client.schedules.create({ destination: `${destination.url}/never`, cron: '0 0 1 1 *', scheduleId: 'kept' });
      await client.queues.upsert({ name: 'held', parallelism: 2, paused: true });
      await client.flowControl.pause('fk');
      const keys = await client.signingKeys.rotate();
      const { messageId: cancelled } = await client.publish({ destination: `${destination.url}/later`, body: 'x', delay: '1h' });
      await client.messages.cancel(cancelled);
      for (const body of ['a', 'b']) await client.publish({ destination: `${destination.url}/dead`, body, retries: 0 });
      let dlq = (await client.dlq.list()).messages;
      for (let tries = 0; dlq.length < 2 && tries < 200; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        dlq = (await client.dlq.list()).messages;
      }
      await client.dlq.delete(dlq[0]!.dlqId);
      // No close, no compaction: what survives is what the journal had when each answer went out.
      child.kill('SIGKILL');
      await exited;

      const restarted = await startTestServer({ dataDir });
      try {
        const after = restarted.messaging;
        expect((await after.schedules.get('kept')).cron).toBe('0 0 1 1 *');
        expect(await after.queues.get('held')).toMatchObject({ parallelism: 2, paused: true });
        expect((await after.flowControl.get('fk')).isPaused).toBe(true);
        expect(await after.signingKeys.get()).toEqual(keys);
        expect((await after.logs.list({ messageId: cancelled })).events.map((event) => event.state)).toContain('CANCELED');
        expect((await after.dlq.list()).messages.map((entry) => entry.dlqId)).toEqual([dlq[1]!.dlqId]);
      } finally {
        await restarted.close();
      }
    } finally {
      await destination.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 20_000);
});
