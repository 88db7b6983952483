import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMessagingClient } from '@mailroom/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startDestination, type TestDestination } from './helpers/destination';
import { startCli, useBuiltCli, type CliProcess } from './helpers/cli-process';

// `mailroom dev` as a process, the way users run it: under a pipe that closes, and stopped by a signal.

const cliPath = useBuiltCli();
let dataDir = '';
let server: CliProcess | undefined;
let destination: TestDestination | undefined;

afterEach(async () => {
  if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  await server?.exited;
  server = undefined;
  await destination?.close();
  destination = undefined;
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('mailroom dev as a process', () => {
  it('keeps serving when its stdout closes (`mailroom dev | head -1`), and still stops cleanly on SIGTERM', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailroom-epipe-'));
    destination = await startDestination();
    server = await startCli(cliPath(), dataDir);
    // The reader goes away: the next log line meets EPIPE.
    expect(existsSync(join(dataDir, 'mailroom.lock'))).toBe(true);
    server.child.stdout!.destroy();
    const client = createMessagingClient({ baseUrl: server.url, token: server.token, headerPrefix: 'Service', retry: false, env: {} });
    for (let index = 0; index < 20; index += 1) {
      await client.enqueue({ queue: 'q', destination: `${destination.url}/after-epipe`, body: String(index) });
    }
    await destination.waitFor('/after-epipe', 20);
    expect(server.child.exitCode).toBeNull();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(join(dataDir, 'mailroom.lock'))).toBe(false);
    expect(server.stderr()).not.toMatch(/EPIPE|Unhandled/);
  }, 30_000);
});
