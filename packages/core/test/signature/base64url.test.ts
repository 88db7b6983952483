import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64url, encodeBase64url, isBase64url } from '../../src/signature/token';
import { bodyClaimMatches } from '../../src/signature/token';
import { constantTimeEqual } from '../../src/signature/token';

describe('base64url', () => {
  it('round-trips any bytes and agrees with Buffer', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const text = encodeBase64url(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64url'));
        expect(isBase64url(text)).toBe(true);
        expect(decodeBase64url(text)).toEqual(bytes);
      }),
    );
  });

  it('rejects what lenient decoders accept', () => {
    for (const text of ['aGk=', 'aG k', 'a+b/', 'aGl', 'aR', 'abcde', 'é', '\u0000']) {
      expect(isBase64url(text)).toBe(false);
      expect(decodeBase64url(text)).toBeUndefined();
    }
    expect(decodeBase64url('')).toEqual(new Uint8Array(0));
  });

  it('accepts exactly the canonical spelling of each byte string', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'), maxLength: 12 }),
        (text) => {
          const decoded = decodeBase64url(text);
          if (decoded !== undefined) expect(encodeBase64url(decoded)).toBe(text);
        },
      ),
    );
  });
});

describe('body claim and constant-time compare', () => {
  const hash = 'k6I5cakU5erL8KjSUVTNownDwccvu5kU1Hxg88toFYg';

  it('accepts the unpadded and the single-padded spelling only', () => {
    expect(bodyClaimMatches(hash, hash)).toBe(true);
    expect(bodyClaimMatches(`${hash}=`, hash)).toBe(true);
    expect(bodyClaimMatches(`${hash}==`, hash)).toBe(false);
    expect(bodyClaimMatches(`${hash.slice(0, 42)}h`, hash)).toBe(false);
    expect(bodyClaimMatches('', hash)).toBe(false);
  });

  it('compares strings like ===', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(constantTimeEqual(a, b)).toBe(a === b);
      }),
    );
    expect(constantTimeEqual(hash, hash.slice())).toBe(true);
  });
});
