import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createMessagingClient } from '@mailroom/core';
import { closeStartedDevServers } from '@mailroom/core/internal-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { orderPlaced } from '../src/destinations';

// The example as a developer runs it in dev mode: `MAILROOM_DEV=1 npm start`, no .env. The app
// boots (its start-up checks see the dev server's keys) and verifies what `mailroom dev` delivers;
// here the sender is a dev-mode client in the test, which starts that dev server. (The test's
// MAILROOM_DEV holds port 0, a dev server of its own on whatever port it gets, so nothing needs 8288;
// the app listens on port 0 too, and says where.)

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(async () => {
  child?.kill();
  child = undefined;
  await closeStartedDevServers();
});

describe('the NestJS example in dev mode', () => {
  it('boots with MAILROOM_DEV alone and verifies what the dev server delivers', async () => {
    const dev = 'http://127.0.0.1:0';
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', MAILROOM_DEV: '1' };
    child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 15_000;
    while (!output.includes('listening')) {
      if (Date.now() > deadline) throw new Error(`the example did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const app = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
    const client = createMessagingClient({ env: { MAILROOM_DEV: dev }, appUrl: app });
    await client.send(orderPlaced, { orderId: 'dev-nest', total: 3 });
    while (!((await (await fetch(`${app}/events`)).json()) as Array<{ orderId?: string }>).some((event) => event.orderId === 'dev-nest')) {
      if (Date.now() > deadline + 10_000) throw new Error(`the order never arrived: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).not.toMatch(/MailroomSetupError/);
  }, 40_000);
});
