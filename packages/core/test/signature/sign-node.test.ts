import { createVerifier, sign } from '../../src/signature';
import { describe, expect, it } from 'vitest';
import { createTokenSigner } from '../../src/internal-protocol';

const KEY = 'sig_current_key_for_tests';
const NOW = 1_800_000_123_456;

const cases: Array<{ name: string; url: string; body: Uint8Array; issuer: string }> = [
  { name: 'a JSON body', url: 'https://app.test/api/hook', body: Buffer.from('{"hello":"world"}'), issuer: 'Upstash' },
  { name: 'an empty body', url: 'http://127.0.0.1:3000/hook', body: new Uint8Array(0), issuer: 'Service' },
  {
    name: 'non-ASCII text and a query',
    url: 'https://app.test/hook?name=Zoë&x=1',
    body: Buffer.from('héllo → 世界 🚀'),
    issuer: 'Service',
  },
  {
    name: 'binary bytes',
    url: 'https://app.test/bin',
    body: Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256),
    issuer: 'Iss "quoted"',
  },
  {
    // Longer than the claims buffer the signer starts with: it grows, and the token is still sign()'s.
    name: 'a long non-ASCII URL',
    url: `https://app.test/hook?q=${'é世'.repeat(400)}`,
    body: Buffer.from('{}'),
    issuer: 'Service',
  },
];

describe('the synchronous node:crypto signer', () => {
  for (const { name, url, body, issuer } of cases) {
    it(`writes the same token as core sign() for ${name}`, async () => {
      const jti = 'jwt_0123456789abcdef0123456789abcdef';
      const signer = createTokenSigner({ key: KEY, issuer, now: () => NOW, jti: () => jti });
      const expected = await sign({ key: KEY, url, rawBody: body, issuer, now: () => NOW, jti });
      expect(signer(url, body)).toBe(expected);
    });
  }

  it('writes a fresh jti per token, verified by core', async () => {
    const signer = createTokenSigner({ key: KEY, issuer: 'Service', now: () => NOW });
    const body = Buffer.from('{"n":1}');
    const first = signer('https://app.test/hook', body);
    const second = signer('https://app.test/hook', body);
    expect(first).not.toBe(second);
    const verifier = createVerifier({ currentSigningKey: KEY, nextSigningKey: 'sig_next', now: () => NOW });
    const verified = await verifier.verify({ signature: first, rawBody: body, url: 'https://app.test/hook' });
    expect(verified.claims.jti).toMatch(/^jwt_[0-9a-f]{32}$/);
  });

  it('keeps writing distinct, well-formed ids after its pool of random bytes is drawn again', () => {
    const signer = createTokenSigner({ key: KEY, issuer: 'Service', now: () => NOW });
    const ids = Array.from({ length: 600 }, () => {
      const payload = signer('https://app.test/hook', new Uint8Array(0)).split('.')[1]!;
      return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { jti: string }).jti;
    });
    expect(ids.every((id) => /^jwt_[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(600);
  });
});
