import { describe, expect, it, vi } from 'vitest';
import { ConfigError, createManagementClient, createMessagingClient, createReceiver } from '../../src';
import { pipelineOf } from '../../src/adapter';
import { devModeTransport, DEV_CREDENTIALS } from '../../src/dev-mode';
import { startStubServer } from '../support/stub-server';

// Dev mode's rules, without a dev server: where it is refused, what it resolves to, and what it says
// when nothing answers. The dev server's own suite starts one through it.

describe('dev mode', () => {
  it('is refused with NODE_ENV=production, by every client and the receiver, naming the fix', () => {
    const env = { MAILROOM_DEV: '1', NODE_ENV: 'production' };
    for (const make of [
      () => createMessagingClient({ env }),
      () => createManagementClient({ env }),
      () => createReceiver({ env, onError: () => {} }),
      () => createMessagingClient({ env: { NODE_ENV: 'production' }, dev: true }),
    ]) {
      const error = (() => {
        try {
          make();
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/NODE_ENV=production.*unset MAILROOM_DEV/);
    }
  });

  it('is refused during next build', () => {
    expect(() => createMessagingClient({ env: { MAILROOM_DEV: 'true', NEXT_PHASE: 'phase-production-build' } })).toThrow(
      /during `next build`/,
    );
  });

  it('is off for MAILROOM_DEV=0 or false, and dev: false wins over the variable', async () => {
    for (const value of ['0', 'false', '']) {
      await expect(createMessagingClient({ env: { MAILROOM_DEV: value } }).signingKeys.get()).rejects.toThrow(/Missing setting "baseUrl"/);
    }
    await expect(createMessagingClient({ env: { MAILROOM_DEV: '1' }, dev: false }).signingKeys.get()).rejects.toThrow(
      /Missing setting "baseUrl"/,
    );
  });

  it('needs no settings: the documented credentials, and the app on $PORT', async () => {
    const client = createMessagingClient({ env: { MAILROOM_DEV: '1', PORT: '4100' } });
    expect(client.headerPrefix).toBe('Service');
    const receiver = createReceiver({ env: { MAILROOM_DEV: '1' }, onError: () => {} });
    expect(() => pipelineOf(receiver).assertConfigured()).not.toThrow();
  });

  it('says once where send() delivers when it guessed the app URL, and prints the console link with its token', async () => {
    vi.resetModules();
    const fresh = (await import('../../src')) as typeof import('../../src');
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      fresh.createMessagingClient({ env: { MAILROOM_DEV: '1', PORT: '4100' } });
      fresh.createMessagingClient({ env: { MAILROOM_DEV: '1', PORT: '4100' } });
      fresh.createMessagingClient({ env: { MAILROOM_DEV: '1', MAILROOM_APP_URL: 'http://127.0.0.1:5000' } });
      fresh.createReceiver({ env: { MAILROOM_DEV: '1' }, onError: () => {} });
    } finally {
      log.mockRestore();
    }
    expect(lines.filter((line) => line.includes('delivers to'))).toEqual([
      '[mailroom] dev mode: send(destination, ...) delivers to http://localhost:4100 (from $PORT, else 3000); set MAILROOM_APP_URL or appUrl if your app listens elsewhere',
    ]);
    expect(lines.find((line) => line.includes('receiving with'))).toContain(`/console/#token=${encodeURIComponent(DEV_CREDENTIALS.token)}`);
  });

  it('refuses a dev url that is not an http origin', () => {
    expect(() => createMessagingClient({ env: {}, dev: { url: 'https://example.com/path' } })).toThrow(/dev.url/);
  });

  it('says how to start a dev server when none answers and it cannot start one (edge runtimes)', async () => {
    const transport = devModeTransport(
      { send: async () => ({ status: 200, statusText: 'OK', headers: new Headers(), text: '' }) },
      {
        url: 'http://127.0.0.1:9',
      },
    );
    const request = {
      method: 'GET' as const,
      url: 'http://127.0.0.1:9/v2/keys',
      headers: {},
      body: undefined,
      signal: undefined,
      timeoutMs: 1000,
    };
    await expect(transport.send(request)).rejects.toThrow(/Start one with `npx mailroom dev`/);
  });

  it('tells a server with other credentials apart, and something else on the port', async () => {
    const stub = await startStubServer();
    try {
      const inner = { send: async () => ({ status: 200, statusText: 'OK', headers: new Headers(), text: '' }) };
      const request = {
        method: 'GET' as const,
        url: `${stub.url}/v2/keys`,
        headers: {},
        body: undefined,
        signal: undefined,
        timeoutMs: 1000,
      };
      stub.reply({ status: 401, json: { error: 'invalid token' } });
      await expect(devModeTransport(inner, { url: stub.url }).send(request)).rejects.toThrow(
        /other credentials \(started with --data-dir\?\)/,
      );
      stub.reply({ status: 404, body: 'nope' });
      await expect(devModeTransport(inner, { url: stub.url }).send(request)).rejects.toThrow(/Something else answers/);
      stub.reply({ status: 200, json: { current: DEV_CREDENTIALS.currentSigningKey, next: DEV_CREDENTIALS.nextSigningKey } });
      await expect(devModeTransport(inner, { url: stub.url }).send(request)).resolves.toMatchObject({ status: 200 });
      expect(stub.requests.at(-1)?.headers.authorization).toBe(`Bearer ${DEV_CREDENTIALS.token}`);
    } finally {
      await stub.close();
    }
  });
});

describe('MAILROOM_DEV as a URL', () => {
  it('points dev mode at a dev server elsewhere, checked like the option', () => {
    expect(() => createMessagingClient({ env: { MAILROOM_DEV: 'http://127.0.0.1:9999' } })).not.toThrow();
    expect(() => createMessagingClient({ env: { MAILROOM_DEV: 'http://127.0.0.1:9999/path' } })).toThrow(/dev.url/);
  });
});
