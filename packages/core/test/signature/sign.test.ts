import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors';
import { DEFAULT_SIGNATURE_TTL_SECONDS, createVerifier, sign, type SignOptions } from '../../src/signature';
import { BODY, CURRENT_KEY, NOW, URL } from './forge-token';

const base: SignOptions = { key: CURRENT_KEY, url: URL, rawBody: BODY, now: () => NOW * 1000 };

function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
}

async function validationPath(options: unknown): Promise<string> {
  try {
    await sign(options as SignOptions);
  } catch (error) {
    if (error instanceof ValidationError) return error.path;
    throw error;
  }
  throw new Error('sign accepted invalid options');
}

describe('sign', () => {
  it('writes the service claims with a 5 minute lifetime by default', async () => {
    const token = await sign(base);
    expect(JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = claimsOf(token);
    expect(claims).toMatchObject({ iss: 'Service', sub: URL, iat: NOW, nbf: NOW, exp: NOW + DEFAULT_SIGNATURE_TTL_SECONDS });
    expect(claims.jti).toMatch(/^jwt_[0-9a-f]{32}$/);
    expect(Object.keys(claims)).toEqual(['iss', 'sub', 'iat', 'nbf', 'exp', 'jti', 'body']);
  });

  it('uses a fresh jti each time', async () => {
    expect(claimsOf(await sign(base)).jti).not.toBe(claimsOf(await sign(base)).jti);
  });

  it('honours issuer, ttlSeconds and jti', async () => {
    const claims = claimsOf(await sign({ ...base, issuer: 'Upstash', ttlSeconds: 60, jti: 'jwt_fixed' }));
    expect(claims).toMatchObject({ iss: 'Upstash', exp: NOW + 60, jti: 'jwt_fixed' });
  });

  it('keeps the URL exactly as given', async () => {
    const url = 'HTTPS://Example.com:443/a/../b?x=1#frag';
    expect(claimsOf(await sign({ ...base, url })).sub).toBe(url);
  });

  it.each(['node', 'webcrypto'] as const)('round-trips through the verifier (%s)', async (implementation) => {
    for (const rawBody of [BODY, new Uint8Array([0, 255, 1, 128]), '', 'ünïcödé ✓']) {
      const token = await sign({ ...base, rawBody, issuer: 'Upstash' });
      const verifier = createVerifier({ currentSigningKey: CURRENT_KEY, issuer: 'Upstash', now: () => NOW * 1000, implementation });
      await expect(verifier.verify({ signature: token, rawBody, url: URL })).resolves.toMatchObject({ key: 'current' });
    }
  });

  it.each([
    ['options not an object', null, ''],
    ['empty key', { ...base, key: '' }, 'key'],
    ['blank key', { ...base, key: '   ' }, 'key'],
    ['key not a string', { ...base, key: 42 }, 'key'],
    ['url not http(s)', { ...base, url: 'ftp://example.com/x' }, 'url'],
    ['relative url', { ...base, url: '/api/hook' }, 'url'],
    ['url not parseable', { ...base, url: 'http://exa mple.com' }, 'url'],
    ['url not a string', { ...base, url: new globalThis.URL(URL) }, 'url'],
    ['url making the token too long', { ...base, url: `${URL}?q=${'a'.repeat(7000)}` }, 'url'],
    ['rawBody missing', { ...base, rawBody: undefined }, 'rawBody'],
    ['rawBody an object', { ...base, rawBody: { a: 1 } }, 'rawBody'],
    ['empty issuer', { ...base, issuer: '' }, 'issuer'],
    ['ttl zero', { ...base, ttlSeconds: 0 }, 'ttlSeconds'],
    ['ttl fractional', { ...base, ttlSeconds: 1.5 }, 'ttlSeconds'],
    ['ttl negative', { ...base, ttlSeconds: -300 }, 'ttlSeconds'],
    ['empty jti', { ...base, jti: '' }, 'jti'],
    ['now not a function', { ...base, now: NOW * 1000 }, 'now'],
    ['now returning NaN', { ...base, now: () => Number.NaN }, 'now'],
    ['now returning a Date', { ...base, now: () => new Date() }, 'now'],
  ])('rejects %s with a ValidationError', async (_name, options, path) => {
    expect(await validationPath(options)).toBe(path);
  });
});
