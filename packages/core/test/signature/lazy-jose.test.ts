import { afterAll, expect, it, vi } from 'vitest';
import { BODY, CURRENT_KEY, NEXT_KEY, NOW, URL, forgeToken } from './forge-token';

// jose is 15-25 ms of an app's start, and an app on Node signs and verifies with node:crypto: its
// modules are loaded only by what uses them, the first time.
const loaded: string[] = [];
vi.mock('jose/jwt/sign', async (original) => {
  loaded.push('jose/jwt/sign');
  return original();
});
vi.mock('jose/jwt/verify', async (original) => {
  loaded.push('jose/jwt/verify');
  return original();
});

// The files after this one get the real modules again.
afterAll(() => {
  vi.doUnmock('jose/jwt/sign');
  vi.doUnmock('jose/jwt/verify');
  vi.resetModules();
});

it('loads jose only when a token is signed with sign() or verified over Web Crypto, once each', async () => {
  // The files of a worker share their modules (vitest.shared.ts): another one may have signed already.
  vi.resetModules();
  const core = await import('../../src/index');
  const protocol = await import('../../src/internal-protocol');
  const keys = { currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, now: () => NOW * 1000 };
  await expect(
    core.createVerifier({ ...keys, implementation: 'node' }).verify({ signature: forgeToken(), rawBody: BODY, url: URL }),
  ).resolves.toMatchObject({ key: 'current' });
  expect(loaded).toEqual([]);

  const token = await protocol.sign({ key: CURRENT_KEY, url: URL, rawBody: BODY, now: () => NOW * 1000 });
  await protocol.sign({ key: CURRENT_KEY, url: URL, rawBody: BODY, now: () => NOW * 1000 });
  expect(loaded).toEqual(['jose/jwt/sign']);

  const web = core.createVerifier({ ...keys, implementation: 'webcrypto' });
  await expect(web.verify({ signature: token, rawBody: BODY, url: URL })).resolves.toMatchObject({ key: 'current' });
  await expect(web.verify({ signature: token, rawBody: `${BODY} `, url: URL })).rejects.toThrow();
  expect(loaded).toEqual(['jose/jwt/sign', 'jose/jwt/verify']);
});
