import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The example as a developer runs it in dev mode: `MAILROOM_DEV=1 npm start` with no .env at all.
// Sending from the app starts a dev server inside it, which delivers back to the app, verified with
// the dev server's keys. (MAILROOM_DEV holds a URL here only so the test never needs port 8288.)

const SERVER = fileURLToPath(new URL('../dist/server.js', import.meta.url));
let child: ChildProcess | undefined;

afterEach(() => {
  child?.kill();
  child = undefined;
});

describe('the Express example in dev mode', () => {
  it('sends and receives with MAILROOM_DEV and no other setting', async () => {
    // Only what a shell gives: no MAILROOM_* besides MAILROOM_DEV.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '0', MAILROOM_DEV: 'http://127.0.0.1:0' };
    child = spawn(process.execPath, [SERVER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 10_000;
    while (!output.includes('listening')) {
      if (Date.now() > deadline) throw new Error(`the example did not start: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const app = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
    const sent = await fetch(`${app}/send`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ orderId: 'dev-1', total: 9 }),
    });
    expect(sent.status, output).toBe(200);
    const stored = async () =>
      ((await (await fetch(`${app}/events`)).json()) as Array<{ kind: string; orderId?: string; outcome?: string }>).find(
        (event) => event.orderId === 'dev-1' && event.outcome === 'stored',
      );
    while (!(await stored())) {
      if (Date.now() > deadline + 10_000) throw new Error(`the order never arrived: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(output).toMatch(/dev mode: started mailroom dev at http:\/\/127.0.0.1:\d+ in this process; console: .*#token=/);
  }, 30_000);

  it('refuses dev mode in production, at the first send, with the reason', async () => {
    const env = { PATH: process.env.PATH ?? '', PORT: '0', MAILROOM_DEV: '1', NODE_ENV: 'production' };
    child = spawn(process.execPath, [SERVER], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child!.on('exit', resolve));
    // The receiver is made at start-up, so the app refuses to start at all.
    expect(await exited).not.toBe(0);
    expect(output).toMatch(/NODE_ENV=production/);
  }, 30_000);
});
