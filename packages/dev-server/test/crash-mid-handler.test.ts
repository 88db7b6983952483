import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RealServer, startRedis, startTcpRelay } from '@mailroom/test-machine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers/test-server';

// Exactly once as a user meets it: an app with a Redis idempotency store at its default settings,
// SIGKILLed in the middle of its handler, restarted 12 s and 45 s later, against mailroom dev at its
// default settings (the free plan: 3 retries, the last about 63 s after the first attempt). The
// claim the dead instance held must lapse before the last retry, so the message is handled exactly
// once and never ends in the DLQ. Real time throughout: the lease is the app's, in real seconds.

const APP = fileURLToPath(new URL('./fixtures/idempotent-app.mjs', import.meta.url));

let redis: RealServer;
let dev: TestServer;
let dir: string;

beforeAll(async () => {
  redis = await startRedis();
  dev = await startTestServer({ timeScale: 1 });
  dir = mkdtempSync(join(tmpdir(), 'mailroom-crash-'));
}, 600_000);

afterAll(async () => {
  await dev?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** One instance of the app; resolves with the port it bound once it listens. */
function startApp(effects: string, hang: boolean): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [APP], {
    env: {
      ...process.env,
      REDIS_SOCKET: redis.socket,
      EFFECTS: effects,
      HANG: hang ? '1' : '0',
      MAILROOM_CURRENT_SIGNING_KEY: dev.server.currentSigningKey,
      MAILROOM_NEXT_SIGNING_KEY: dev.server.nextSigningKey,
      MAILROOM_HEADER_PREFIX: dev.server.headerPrefix,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the app exited with ${code} before it listened`)));
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const port = /listening (\d+)/.exec(chunk)?.[1];
      if (port) resolve({ child, port: Number(port) });
    });
  });
}

async function crashAndRestart(restartAfterMs: number): Promise<{ lines: string[]; messageId: string }> {
  const effects = join(dir, `effects-${restartAfterMs}.log`);
  writeFileSync(effects, '');
  // The app's stable address, as a host name would be: it refuses connections while no instance runs
  // (the service then sees a failed attempt, as it would).
  const address = await startTcpRelay();
  const first = await startApp(effects, true);
  address.point(first.port);
  const { messageId } = await dev.messaging.publish({ destination: `${address.url}/orders`, body: '{"order":1}' });
  // Killed mid-handler: its claim is held, its side effect never made.
  const started = Date.now();
  while (!readFileSync(effects, 'utf8').includes(`start ${messageId}`)) {
    if (Date.now() - started > 20_000) throw new Error('the first delivery never reached the handler');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  first.child.kill('SIGKILL');
  address.point(undefined);
  await new Promise((resolve) => setTimeout(resolve, restartAfterMs));
  const second = await startApp(effects, false);
  address.point(second.port);
  try {
    await dev.waitForEvents('delivered', 1, (event) => event.messageId === messageId, 90_000);
  } finally {
    second.child.kill('SIGKILL');
    await address.close();
  }
  return { lines: readFileSync(effects, 'utf8').trim().split('\n'), messageId };
}

describe('an app killed mid-handler, with an idempotency store at default settings', () => {
  it('handles the message exactly once and never sends it to the DLQ, restarted after 12 s or after 45 s', async () => {
    const [soon, late] = await Promise.all([crashAndRestart(12_000), crashAndRestart(45_000)]);
    for (const { lines, messageId } of [soon, late]) {
      expect(lines.filter((line) => line === `effect ${messageId}`)).toHaveLength(1);
      expect(dev.events.some((event) => event.type === 'dlq' && event.messageId === messageId)).toBe(false);
    }
    expect((await dev.messaging.dlq.list()).messages).toEqual([]);
  }, 150_000);
});
