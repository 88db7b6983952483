import type { SignatureFailure } from '../../src/errors';
import type { VerifierOptions } from '../../src/signature';
import { BODY, CURRENT_KEY, NEXT_KEY, NOW, OTHER_KEY, URL, b64url, forgeToken, hashBody, hmacSegment, validClaims } from './forge-token';

/** One call of `verify`, with the verifier it runs against. */
export interface VerifyCase {
  readonly signature: unknown;
  /** Default BODY. */
  readonly rawBody?: unknown;
  /** Default URL; `omitUrl` leaves the subject unchecked. */
  readonly url?: unknown;
  readonly omitUrl?: boolean;
  /** Clock in Unix milliseconds; default NOW * 1000. */
  readonly nowMs?: number;
  /** Overrides of the verifier options (keys default to CURRENT_KEY and NEXT_KEY). */
  readonly options?: Partial<VerifierOptions>;
}

export interface Vector {
  readonly name: string;
  readonly build: () => VerifyCase;
  readonly expected: 'ok' | SignatureFailure;
  /** For 'ok': the key that matched (default 'current'). */
  readonly key?: 'current' | 'next';
  /** For failures: the reason of each key tried, in order (default: not checked). */
  readonly attempts?: readonly SignatureFailure[];
}

const token = (claims: Record<string, unknown> = {}, key = CURRENT_KEY) => forgeToken({ payload: validClaims(claims), key });
const withoutClaim = (name: string) => {
  const claims = validClaims();
  delete claims[name];
  return forgeToken({ payload: claims });
};
const valid = token();
const [validHeader = '', validPayload = '', validSignature = ''] = valid.split('.');

/** The last signature character with a low bit set: same bytes for a lenient decoder, not canonical. */
function nonCanonicalSignature(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = alphabet.indexOf(validSignature.at(-1) ?? 'A');
  return `${validHeader}.${validPayload}.${validSignature.slice(0, -1)}${alphabet[last | 1]}`;
}

/** A body whose base64url hash has a `-` or `_`, so its standard base64 spelling differs. */
function bodyWithUrlSafeCharacters(): string {
  for (let i = 0; ; i++) {
    const body = `${BODY}${' '.repeat(i)}`;
    if (/[-_]/.test(hashBody(body))) return body;
  }
}

export const VECTORS: readonly Vector[] = [
  // Accepted
  { name: 'valid token, current key', build: () => ({ signature: valid }), expected: 'ok', key: 'current' },
  { name: 'valid token, next key', build: () => ({ signature: token({}, NEXT_KEY) }), expected: 'ok', key: 'next' },
  { name: 'valid token, body as Uint8Array', build: () => ({ signature: valid, rawBody: new TextEncoder().encode(BODY) }), expected: 'ok' },
  {
    name: 'valid token, empty body',
    build: () => ({ signature: token({ body: hashBody('') }), rawBody: new Uint8Array(0) }),
    expected: 'ok',
  },
  {
    name: 'valid token, non-ASCII string body hashed as UTF-8',
    build: () => ({ signature: token({ body: hashBody('héllo ✓ 𝄞') }), rawBody: 'héllo ✓ 𝄞' }),
    expected: 'ok',
  },
  { name: 'body claim with = padding', build: () => ({ signature: token({ body: hashBody(BODY, true) }) }), expected: 'ok' },
  { name: 'body claim without padding', build: () => ({ signature: token({ body: hashBody(BODY) }) }), expected: 'ok' },
  { name: 'header without typ', build: () => ({ signature: forgeToken({ header: { alg: 'HS256' } }) }), expected: 'ok' },
  {
    name: 'header with kid',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS256', typ: 'JWT', kid: 'k1' } }) }),
    expected: 'ok',
  },
  {
    name: 'header members in another order',
    build: () => ({ signature: forgeToken({ header: '{"typ":"JWT","alg":"HS256"}' }) }),
    expected: 'ok',
  },
  { name: 'unknown extra claims are ignored', build: () => ({ signature: token({ aud: 'x', custom: { a: 1 } }) }), expected: 'ok' },
  {
    name: 'no url given: subject not checked',
    build: () => ({ signature: token({ sub: 'https://elsewhere.example/' }), omitUrl: true }),
    expected: 'ok',
  },
  {
    name: 'issuer Upstash when configured',
    build: () => ({ signature: token({ iss: 'Upstash' }), options: { issuer: 'Upstash' } }),
    expected: 'ok',
  },
  {
    name: 'one second before exp, no tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 299) * 1000, options: { clockToleranceSeconds: 0 } }),
    expected: 'ok',
  },
  {
    name: 'last millisecond before exp, no tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 300) * 1000 - 1, options: { clockToleranceSeconds: 0 } }),
    expected: 'ok',
  },
  {
    name: 'exp passed but inside the default 5 s tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 304) * 1000 }),
    expected: 'ok',
  },
  { name: 'nbf in the future inside the tolerance', build: () => ({ signature: token({ nbf: NOW + 5, iat: NOW + 5 }) }), expected: 'ok' },
  {
    name: 'long URL just under the token limit',
    build: () => {
      const url = `${URL}?q=${'a'.repeat(5600)}`;
      return { signature: token({ sub: url }), url };
    },
    expected: 'ok',
  },
  { name: 'same key as current and next', build: () => ({ signature: valid, options: { nextSigningKey: CURRENT_KEY } }), expected: 'ok' },

  // No key configured: the server's fault, reported before anything else
  {
    name: 'no key configured',
    build: () => ({ signature: valid, options: { currentSigningKey: undefined, nextSigningKey: undefined } }),
    expected: 'no-key',
  },
  {
    name: 'empty keys count as none',
    build: () => ({ signature: valid, options: { currentSigningKey: '', nextSigningKey: '' } }),
    expected: 'no-key',
  },
  {
    name: 'no key beats a missing signature',
    build: () => ({ signature: undefined, options: { currentSigningKey: undefined, nextSigningKey: '' } }),
    expected: 'no-key',
  },

  // Missing
  { name: 'missing signature (undefined)', build: () => ({ signature: undefined }), expected: 'missing' },
  { name: 'missing signature (null)', build: () => ({ signature: null }), expected: 'missing' },
  { name: 'empty signature', build: () => ({ signature: '' }), expected: 'missing' },

  // Malformed
  { name: 'garbage string', build: () => ({ signature: 'not a jwt' }), expected: 'malformed' },
  { name: 'two segments', build: () => ({ signature: `${validHeader}.${validPayload}` }), expected: 'malformed' },
  { name: 'four segments', build: () => ({ signature: `${valid}.${validSignature}` }), expected: 'malformed' },
  { name: 'only dots', build: () => ({ signature: '..' }), expected: 'malformed' },
  { name: 'non-string signature (number)', build: () => ({ signature: 42 }), expected: 'malformed' },
  { name: 'non-string signature (array of one token)', build: () => ({ signature: [valid] }), expected: 'malformed' },
  { name: 'non-string signature (object)', build: () => ({ signature: { token: valid } }), expected: 'malformed' },
  { name: 'Bearer prefix', build: () => ({ signature: `Bearer ${valid}` }), expected: 'malformed' },
  { name: 'surrounding whitespace', build: () => ({ signature: ` ${valid}\n` }), expected: 'malformed' },
  { name: 'header not JSON', build: () => ({ signature: forgeToken({ header: '{alg:HS256}' }) }), expected: 'malformed' },
  { name: 'header a JSON array', build: () => ({ signature: forgeToken({ header: '["HS256"]' }) }), expected: 'malformed' },
  {
    name: 'header with a byte order mark',
    build: () => ({ signature: forgeToken({ header: '\uFEFF{"alg":"HS256","typ":"JWT"}' }) }),
    expected: 'malformed',
  },
  { name: 'payload not JSON', build: () => ({ signature: forgeToken({ payload: 'iss=Service' }) }), expected: 'malformed' },
  { name: 'payload a JSON string', build: () => ({ signature: forgeToken({ payload: '"claims"' }) }), expected: 'malformed' },
  { name: 'payload JSON null', build: () => ({ signature: forgeToken({ payload: 'null' }) }), expected: 'malformed' },
  { name: 'payload a JSON array', build: () => ({ signature: forgeToken({ payload: '[{"iss":"Service"}]' }) }), expected: 'malformed' },
  {
    name: 'payload not UTF-8',
    build: () => {
      const payload = b64url(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
      return { signature: `${validHeader}.${payload}.${hmacSegment(`${validHeader}.${payload}`, CURRENT_KEY)}` };
    },
    expected: 'malformed',
  },
  { name: 'padding on the signature segment', build: () => ({ signature: `${valid}=` }), expected: 'malformed' },
  {
    name: 'standard base64 alphabet in the signature',
    build: () => ({ signature: `${validHeader}.${validPayload}.ab+/cd` }),
    expected: 'malformed',
  },
  { name: 'non-canonical last signature character', build: () => ({ signature: nonCanonicalSignature() }), expected: 'malformed' },
  {
    name: 'signature segment of impossible length',
    build: () => ({ signature: `${validHeader}.${validPayload}.abcde` }),
    expected: 'malformed',
  },
  {
    name: 'token longer than 8 KiB',
    build: () => ({ signature: `${validHeader}.${b64url('x'.repeat(6200))}.${validSignature}` }),
    expected: 'malformed',
  },
  {
    name: 'validly signed token over 8 KiB',
    build: () => {
      const url = `${URL}?q=${'a'.repeat(6200)}`;
      return { signature: token({ sub: url }), url };
    },
    expected: 'malformed',
  },

  // Algorithm
  {
    name: 'alg none, empty signature',
    build: () => ({ signature: forgeToken({ header: { alg: 'none', typ: 'JWT' }, signature: '' }) }),
    expected: 'algorithm',
  },
  { name: 'alg none, valid HS256 signature', build: () => ({ signature: forgeToken({ header: { alg: 'none' } }) }), expected: 'algorithm' },
  {
    name: 'HS512 signed with the current key',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS512', typ: 'JWT' }, hmac: 'sha512' }) }),
    expected: 'algorithm',
  },
  {
    name: 'RS256 header',
    build: () => ({ signature: forgeToken({ header: { alg: 'RS256', typ: 'JWT' }, signature: b64url('x'.repeat(256)) }) }),
    expected: 'algorithm',
  },
  { name: 'alg missing', build: () => ({ signature: forgeToken({ header: { typ: 'JWT' } }) }), expected: 'algorithm' },
  { name: 'alg in lower case', build: () => ({ signature: forgeToken({ header: { alg: 'hs256' } }) }), expected: 'algorithm' },
  { name: 'alg not a string', build: () => ({ signature: forgeToken({ header: { alg: 256 } }) }), expected: 'algorithm' },
  {
    name: 'crit b64 with b64 false',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS256', b64: false, crit: ['b64'] } }) }),
    expected: 'algorithm',
  },
  {
    name: 'crit naming an unknown extension',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS256', crit: ['exp'], exp: 1 } }) }),
    expected: 'algorithm',
  },
  { name: 'b64 without crit', build: () => ({ signature: forgeToken({ header: { alg: 'HS256', b64: true } }) }), expected: 'algorithm' },
  {
    name: 'typ other than JWT',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS256', typ: 'at+jwt' } }) }),
    expected: 'algorithm',
  },
  {
    name: 'typ jwt in lower case',
    build: () => ({ signature: forgeToken({ header: { alg: 'HS256', typ: 'jwt' } }) }),
    expected: 'algorithm',
  },

  // Bad signature
  {
    name: 'signed with an unknown key',
    build: () => ({ signature: token({}, OTHER_KEY) }),
    expected: 'bad-signature',
    attempts: ['bad-signature', 'bad-signature'],
  },
  {
    name: 'tampered payload, one character',
    build: () => {
      const tampered = b64url(JSON.stringify(validClaims({ sub: `${URL}x` })));
      return { signature: `${validHeader}.${tampered}.${validSignature}`, url: `${URL}x` };
    },
    expected: 'bad-signature',
  },
  { name: 'empty signature segment', build: () => ({ signature: `${validHeader}.${validPayload}.` }), expected: 'bad-signature' },
  {
    name: 'signature of 32 zero bytes',
    build: () => ({ signature: `${validHeader}.${validPayload}.${b64url(new Uint8Array(32))}` }),
    expected: 'bad-signature',
  },
  {
    name: 'signed with current key, only the next key configured',
    build: () => ({ signature: valid, options: { currentSigningKey: undefined } }),
    expected: 'bad-signature',
    attempts: ['bad-signature'],
  },
  {
    name: 'key with a trailing newline is a different key',
    build: () => ({ signature: token({}, `${CURRENT_KEY}\n`) }),
    expected: 'bad-signature',
  },

  // Time
  {
    name: 'expired beyond the tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 305) * 1000 }),
    expected: 'expired',
    attempts: ['expired'],
  },
  {
    name: 'exactly at exp, no tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 300) * 1000, options: { clockToleranceSeconds: 0 } }),
    expected: 'expired',
  },
  {
    name: 'at exp plus tolerance',
    build: () => ({ signature: valid, nowMs: (NOW + 300 + 2) * 1000, options: { clockToleranceSeconds: 2 } }),
    expected: 'expired',
  },
  { name: 'not yet valid: nbf beyond the tolerance', build: () => ({ signature: token({ nbf: NOW + 6 }) }), expected: 'not-yet-valid' },
  { name: 'not yet valid: iat in the future', build: () => ({ signature: token({ iat: NOW + 60 }) }), expected: 'not-yet-valid' },
  {
    name: 'nbf after exp reports not-yet-valid first',
    build: () => ({ signature: token({ nbf: NOW + 100, exp: NOW - 100 }) }),
    expected: 'not-yet-valid',
  },
  {
    name: 'current key bad, next key valid but expired',
    build: () => ({ signature: token({}, NEXT_KEY), nowMs: (NOW + 400) * 1000 }),
    expected: 'expired',
    attempts: ['bad-signature', 'expired'],
  },

  // Issuer and subject
  { name: 'wrong issuer', build: () => ({ signature: token({ iss: 'Upstash' }) }), expected: 'issuer' },
  { name: 'issuer differs in case', build: () => ({ signature: token({ iss: 'service' }) }), expected: 'issuer' },
  { name: 'subject with a trailing slash', build: () => ({ signature: valid, url: `${URL}/` }), expected: 'subject' },
  {
    name: 'subject with another host case',
    build: () => ({ signature: valid, url: URL.replace('example', 'EXAMPLE') }),
    expected: 'subject',
  },
  { name: 'url given as an empty string', build: () => ({ signature: valid, url: '' }), expected: 'subject' },
  { name: 'url not a string', build: () => ({ signature: valid, url: 42 }), expected: 'subject' },
  { name: 'issuer is checked before subject', build: () => ({ signature: token({ iss: 'Other' }), url: `${URL}/` }), expected: 'issuer' },

  // Body hash
  { name: 'tampered body, one byte', build: () => ({ signature: valid, rawBody: BODY.replace('1234', '1235') }), expected: 'body-hash' },
  {
    name: 'body re-serialised as JSON',
    build: () => ({ signature: valid, rawBody: JSON.stringify(JSON.parse(BODY), null, 1) }),
    expected: 'body-hash',
  },
  { name: 'body claim with two = signs', build: () => ({ signature: token({ body: `${hashBody(BODY)}==` }) }), expected: 'body-hash' },
  { name: 'body claim as hex', build: () => ({ signature: token({ body: 'ab'.repeat(32) }) }), expected: 'body-hash' },
  {
    name: 'body claim in standard base64 (+ and /)',
    build: () => {
      const body = bodyWithUrlSafeCharacters();
      return { signature: token({ body: hashBody(body, true).replace(/-/g, '+').replace(/_/g, '/') }), rawBody: body };
    },
    expected: 'body-hash',
  },
  { name: 'rawBody missing', build: () => ({ signature: valid, rawBody: undefined }), expected: 'body-hash' },
  { name: 'rawBody of the wrong type', build: () => ({ signature: valid, rawBody: { body: BODY } }), expected: 'body-hash' },

  // Claims of the wrong shape
  ...['iss', 'sub', 'iat', 'nbf', 'exp', 'jti', 'body'].map(
    (name): Vector => ({ name: `missing ${name} claim`, build: () => ({ signature: withoutClaim(name) }), expected: 'claims' }),
  ),
  { name: 'exp as a string', build: () => ({ signature: token({ exp: String(NOW + 300) }) }), expected: 'claims' },
  { name: 'exp as a float', build: () => ({ signature: token({ exp: NOW + 300.5 }) }), expected: 'claims' },
  { name: 'nbf as a float jose would accept', build: () => ({ signature: token({ nbf: NOW - 0.5 }) }), expected: 'claims' },
  { name: 'exp negative', build: () => ({ signature: token({ exp: -1 }) }), expected: 'claims' },
  { name: 'exp beyond the safe integers', build: () => ({ signature: token({ exp: 2 ** 53 }) }), expected: 'claims' },
  {
    name: 'exp 1e400 (Infinity once parsed, never expires in jose)',
    build: () => ({ signature: forgeToken({ payload: JSON.stringify(validClaims({ exp: 0 })).replace('"exp":0', '"exp":1e400') }) }),
    expected: 'claims',
  },
  { name: 'iat null', build: () => ({ signature: token({ iat: null }) }), expected: 'claims' },
  { name: 'sub a number', build: () => ({ signature: token({ sub: 42 }) }), expected: 'claims' },
  { name: 'iss an array', build: () => ({ signature: token({ iss: ['Service'] }) }), expected: 'claims' },
  { name: 'body claim a number', build: () => ({ signature: token({ body: 42 }) }), expected: 'claims' },
  {
    name: 'wrong types are reported before a wrong issuer',
    build: () => ({ signature: token({ iss: 'Other', exp: 'soon' }) }),
    expected: 'claims',
  },
  {
    name: 'current key bad, next key valid with a missing claim',
    build: () => {
      const claims = validClaims();
      delete claims.jti;
      return { signature: forgeToken({ payload: claims, key: NEXT_KEY }) };
    },
    expected: 'claims',
    attempts: ['bad-signature', 'claims'],
  },
];
