import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessagingClient, createReceiver, defineDestination } from '@mailroom/core';
import { handleNodeRequest, writeOutbound } from '@mailroom/core/adapter';
import { closeStartedDevServers } from '@mailroom/core/internal-protocol';
import { signRequest } from '@mailroom/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startDevServer } from '../src/index';
import { waitUntil } from './helpers/wait';

// Dev mode end to end: no settings at all. The client starts a dev server in this process on first
// use (this package is what it imports), and a receiver in dev mode verifies what it delivers.

// Inside this package, so a script there resolves @mailroom/core and @mailroom/dev-server as an app would.
const PACKAGE_CACHE = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
mkdirSync(PACKAGE_CACHE, { recursive: true });

const ping = defineDestination({ name: 'ping', schema: z.object({ n: z.number() }) });
let servers: Server[] = [];

afterEach(async () => {
  await closeStartedDevServers();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  servers = [];
});

async function app(dev: true | { url: string } = true): Promise<{ url: string; received: number[] }> {
  const received: number[] = [];
  const receiver = createReceiver({ dev, env: {}, onError: () => {} });
  const endpoint = receiver.destination(ping, (message) => void received.push(message.body.n));
  const server = createServer(async (req, res) => writeOutbound(res, await handleNodeRequest(endpoint, req)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

describe('dev mode', () => {
  it('starts a dev server on first use and delivers to a receiver in dev mode, with no settings', async () => {
    // Port 0: a dev server of this process on whatever port it gets (8288 stays free for the developer's).
    const target = await app();
    const client = createMessagingClient({ env: {}, dev: { url: 'http://127.0.0.1:0' }, appUrl: target.url });
    await client.send(ping, { n: 1 });
    await waitUntil(() => target.received.length === 1, 'the delivery');
    // A second client of the process reuses the running server.
    const again = createMessagingClient({ env: {}, dev: { url: 'http://127.0.0.1:0' }, appUrl: target.url });
    await again.send(ping, { n: 2 });
    await waitUntil(() => target.received.length === 2, 'the second delivery');
    expect(target.received).toEqual([1, 2]);
  });

  it('uses a dev server that already runs, and refuses one started with other credentials', async () => {
    const running = await startDevServer({ port: 0, log: 'silent' });
    const target = await app();
    try {
      const client = createMessagingClient({ env: {}, dev: { url: running.url }, appUrl: target.url });
      await client.send(ping, { n: 3 });
      await waitUntil(() => target.received.length === 1, 'the delivery');
    } finally {
      await running.close();
    }
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-dev-mode-'));
    const other = await startDevServer({ port: 0, log: 'silent', dataDir });
    try {
      const client = createMessagingClient({ env: {}, dev: { url: other.url }, appUrl: target.url, retry: false });
      await expect(client.send(ping, { n: 4 })).rejects.toThrow(/other credentials \(started with --data-dir\?\)/);
    } finally {
      await other.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps verifying after the dev server rotated its keys twice (the receiver reads the current keys)', async () => {
    const running = await startDevServer({ port: 0, log: 'silent' });
    try {
      const target = await app({ url: running.url });
      const client = createMessagingClient({ env: {}, dev: { url: running.url }, appUrl: target.url });
      await client.signingKeys.rotate();
      await client.signingKeys.rotate();
      await client.send(ping, { n: 5 });
      await waitUntil(() => target.received.length === 1, 'the delivery signed with twice-rotated keys');
      expect(target.received).toEqual([5]);
    } finally {
      await running.close();
    }
  });

  it('refuses a forged delivery in dev mode with a message about the dev server, not variables the app never set', async () => {
    const running = await startDevServer({ port: 0, log: 'silent' });
    try {
      const reports: unknown[] = [];
      const receiver = createReceiver({ dev: { url: running.url }, env: {}, onError: (error) => void reports.push(error) });
      const endpoint = receiver.destination(ping, () => {});
      const forged = await signRequest({ url: 'http://127.0.0.1/ping', body: { n: 1 }, key: 'sig_not_the_dev_servers' });
      const answer = await endpoint.handle({
        method: 'POST',
        url: '/ping',
        headers: forged.headers,
        rawBody: new TextEncoder().encode(forged.text),
      });
      expect(answer.status).toBe(401);
      const message = (reports[0] as Error).message;
      expect(message).toContain(`Dev mode verifies with the keys of the dev server at ${running.url}`);
      expect(message).not.toContain('MAILROOM_CURRENT_SIGNING_KEY');
    } finally {
      await running.close();
    }
  });

  it('lets a script that only sends exit once its message is delivered (the in-process server holds it only while a message is pending)', async () => {
    const delivered: string[] = [];
    const destination = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        delivered.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    servers.push(destination);
    const dir = await mkdtemp(join(PACKAGE_CACHE, 'dev-mode-script-'));
    try {
      const script = join(dir, 'send.mjs');
      await writeFile(
        script,
        `import { createMessagingClient } from '@mailroom/core';
const client = createMessagingClient();
await client.publishJSON({ destination: process.argv[2], body: { from: 'script' }, delay: '1s' });
console.log('sent');
`,
      );
      const env = { ...process.env, MAILROOM_DEV: 'http://127.0.0.1:0', NODE_ENV: 'development' };
      const child = spawn(process.execPath, [script, `http://127.0.0.1:${(destination.address() as AddressInfo).port}/hook`], {
        env,
        cwd: dir,
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk));
      const exited = await new Promise<number | null>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`the script did not exit: ${output}`));
        }, 20_000);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve(code);
        });
      });
      expect(exited, output).toBe(0);
      // It stayed for the delayed message, and no longer.
      expect(delivered).toEqual(['{"from":"script"}']);
      expect(output).toContain('console: http://127.0.0.1:');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
