import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, createApp, LISTENING, publicAddress, run, start, startDevServer, type App } from '../src/harness';

// A Next.js 16 App Router app through `next build` (its own type check, a minifying production
// bundle) and `next start`, receiving a message that mailroom dev delivers.
let app: App;
const running: Array<{ stop(): Promise<void> }> = [];
const next = () => join(app.dir, 'node_modules/next/dist/bin/next');

beforeAll(async () => {
  app = await createApp('next', {
    packed: inject('tarballs'),
    mailroom: ['core', 'adapters', 'dev-server'],
    locked: ['next', 'react', 'react-dom', 'zod', 'typescript', '@types/react', '@types/react-dom', '@types/node'],
  });
});

afterAll(async () => {
  await Promise.all(running.map((process) => process.stop()));
  await app?.remove();
});

describe('a Next.js App Router app', () => {
  it('builds with next build', async () => {
    const result = await run(process.execPath, [next(), 'build'], {
      cwd: app.dir,
      env: cleanEnv(),
      timeoutMs: 240_000,
      allowFailure: true,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('receives a message under next start, and logs refusals with readable error names', async () => {
    // The app's public URL is a proxy on port 0; `next start -p 0` binds a free port and says which.
    const address = await publicAddress();
    running.push(address);
    const appUrl = address.url;
    const dev = await startDevServer(app, appUrl);
    running.push(dev);
    const server = await start(process.execPath, [next(), 'start', '-p', '0', '-H', '127.0.0.1'], {
      cwd: app.dir,
      env: cleanEnv(dev.env),
      ready: /Ready in|started server/i,
    });
    running.push(server);
    address.forwardTo(LISTENING.exec(server.output())![1]!);

    const sent = await run(process.execPath, ['send.mjs'], { cwd: app.dir, env: cleanEnv(dev.env) });
    expect(sent.stdout.trim()).toMatch(/^msg_/);
    let received: unknown[] = [];
    for (let waited = 0; received.length === 0 && waited < 20_000; waited += 100) {
      received = (await (await fetch(`${appUrl}/api/events`)).json()) as unknown[];
      if (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received).toEqual([{ orderId: 'next-1' }]);

    // The module-level client of app/api/send (built without settings) sends once they are there.
    const viaRoute = await fetch(`${appUrl}/api/send`, { method: 'POST', body: JSON.stringify({ orderId: 'next-2' }) });
    expect(viaRoute.status).toBe(200);
    for (let waited = 0; received.length < 2 && waited < 20_000; waited += 100) {
      received = (await (await fetch(`${appUrl}/api/events`)).json()) as unknown[];
      if (received.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(received).toEqual([{ orderId: 'next-1' }, { orderId: 'next-2' }]);

    const unsigned = await fetch(`${appUrl}/api/order-placed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"orderId":"x"}',
    });
    expect(unsigned.status).toBe(401);
    // The production bundle is minified; the log still names the error class.
    for (let waited = 0; !server.output().includes('SignatureError') && waited < 5000; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.output()).toMatch(/request refused at signature: SignatureError: /);
  });
});
