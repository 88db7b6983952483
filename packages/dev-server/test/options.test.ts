import { describe, expect, it } from 'vitest';
import { startDevServer } from '../src/index';
import { resolveOptions } from '../src/settings';

describe('startDevServer options', () => {
  it('applies the documented defaults', () => {
    expect(resolveOptions({}, {})).toMatchObject({
      port: 8288,
      host: '127.0.0.1',
      dataDir: undefined,
      headerPrefix: 'Service',
      issuer: 'Service',
      plan: 'free',
      timeScale: 1,
      log: 'text',
    });
  });

  it('takes the header prefix from the argument, then MAILROOM_HEADER_PREFIX', () => {
    expect(resolveOptions({}, { MAILROOM_HEADER_PREFIX: 'Upstash' }).headerPrefix).toBe('Upstash');
    expect(resolveOptions({ headerPrefix: 'Acme' }, { MAILROOM_HEADER_PREFIX: 'Upstash' }).headerPrefix).toBe('Acme');
  });

  it.each([
    [{ port: -1 }, /port/],
    [{ port: 70_000 }, /port/],
    [{ port: 1.5 }, /port/],
    [{ timeScale: -1 }, /timeScale/],
    [{ timeScale: Number.NaN }, /timeScale/],
    [{ plan: 'gold' as 'free' }, /plan/],
    [{ log: 'xml' as 'text' }, /log/],
    [{ issuer: '' }, /issuer/],
    [{ dataDir: '' }, /dataDir/],
    [{ headerPrefix: 'Bad-' }, /prefix/i],
  ])('refuses %j', async (options, message) => {
    await expect(startDevServer(options)).rejects.toThrow(message);
  });

  it('answers on an IPv6 host with a bracketed URL', async () => {
    const server = await startDevServer({ port: 0, host: '::1', log: 'silent' }).catch(() => undefined);
    if (!server) return; // No IPv6 loopback on this machine.
    try {
      expect(server.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      const response = await fetch(`${server.url}/v2/topics`, { headers: { authorization: `Bearer ${server.token}` } });
      expect(await response.json()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
