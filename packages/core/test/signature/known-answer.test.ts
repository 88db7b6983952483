import { describe, expect, it } from 'vitest';
import { bodyHash, createVerifier, sign } from '../../src/signature';

// Fixed tokens: any change to the token format (header, claim names or order, body-hash spelling,
// clock rounding) breaks these, on purpose. Both were checked against an independent HMAC (Python).

/** What `sign` writes for these inputs. */
const SIGNED = {
  key: 'sig_known_answer_key',
  url: 'https://example.com/api/hook',
  rawBody: '{"hello":"world"}',
  nowMs: 1_700_000_000_000,
  jti: 'jwt_known_answer',
  token:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJTZXJ2aWNlIiwic3ViIjoiaHR0cHM6Ly9leGFtcGxlLmNvbS9hcGkvaG9vayIsImlhdCI6MTcwMDAwMDAwMCwibmJmIjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDAzMDAsImp0aSI6Imp3dF9rbm93bl9hbnN3ZXIiLCJib2R5IjoiazZJNWNha1U1ZXJMOEtqU1VWVE5vd25Ed2NjdnU1a1UxSHhnODh0b0ZZZyJ9.0Z1Y1itS8Xdin-vfX344g0jDXl6AQj0l1WaiIz4I66s',
};

/** Shaped like the real service's tokens: iss Upstash, its claim order, a padded body hash. */
const SERVICE_STYLE = {
  nextKey: 'sig_next_known_answer',
  url: 'https://example.com/api/leads',
  rawBody: '{"leadId":"123","n":1}',
  nowMs: 1_700_000_100_000,
  token:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJVcHN0YXNoIiwic3ViIjoiaHR0cHM6Ly9leGFtcGxlLmNvbS9hcGkvbGVhZHMiLCJleHAiOjE3MDAwMDAzMDAsIm5iZiI6MTcwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwLCJqdGkiOiJqd3RfNmNCUGJDV1RtQXY1d3J0TjdMdGU2S2tnbTFMWiIsImJvZHkiOiJxTlZQNkNRd3NvblRGU0FMSzB1aDZCRDF3bFNNQ2ludnBuamF4Q3Jyb0VFPSJ9.uvXSOi6aQX6AwTcdE1ZexHokxiFRoQFbxvaXKnMTYtA',
};

describe('known-answer vectors', () => {
  it('sign produces the fixed token', async () => {
    const token = await sign({ key: SIGNED.key, url: SIGNED.url, rawBody: SIGNED.rawBody, now: () => SIGNED.nowMs, jti: SIGNED.jti });
    expect(token).toBe(SIGNED.token);
  });

  it('floors the clock to whole seconds', async () => {
    const token = await sign({ key: SIGNED.key, url: SIGNED.url, rawBody: SIGNED.rawBody, now: () => SIGNED.nowMs + 999, jti: SIGNED.jti });
    expect(token).toBe(SIGNED.token);
  });

  it('bodyHash is the unpadded base64url SHA-256', async () => {
    expect(await bodyHash('{"hello":"world"}')).toBe('k6I5cakU5erL8KjSUVTNownDwccvu5kU1Hxg88toFYg');
    expect(await bodyHash(new TextEncoder().encode('{"hello":"world"}'))).toBe('k6I5cakU5erL8KjSUVTNownDwccvu5kU1Hxg88toFYg');
    expect(await bodyHash('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
  });

  it.each(['node', 'webcrypto'] as const)('the fixed tokens verify (%s)', async (implementation) => {
    const signed = createVerifier({ currentSigningKey: SIGNED.key, now: () => SIGNED.nowMs, implementation });
    await expect(signed.verify({ signature: SIGNED.token, rawBody: SIGNED.rawBody, url: SIGNED.url })).resolves.toEqual({
      key: 'current',
      claims: {
        iss: 'Service',
        sub: SIGNED.url,
        iat: 1_700_000_000,
        nbf: 1_700_000_000,
        exp: 1_700_000_300,
        jti: SIGNED.jti,
        body: 'k6I5cakU5erL8KjSUVTNownDwccvu5kU1Hxg88toFYg',
      },
    });
    const service = createVerifier({
      currentSigningKey: 'sig_current_known_answer',
      nextSigningKey: SERVICE_STYLE.nextKey,
      issuer: 'Upstash',
      now: () => SERVICE_STYLE.nowMs,
      implementation,
    });
    const result = await service.verify({
      signature: SERVICE_STYLE.token,
      rawBody: new TextEncoder().encode(SERVICE_STYLE.rawBody),
      url: SERVICE_STYLE.url,
    });
    expect(result.key).toBe('next');
    expect(result.claims.body).toBe('qNVP6CQwsonTFSALK0uh6BD1wlSMCinvpnjaxCrroEE=');
  });
});
