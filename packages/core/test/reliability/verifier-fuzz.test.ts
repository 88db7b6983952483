import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { SignatureError, type SignatureFailure } from '../../src/errors';
import { createVerifier, sign, type Verifier, type VerifyInput } from '../../src/signature';
import { CURRENT_KEY, NEXT_KEY, NOW, URL, b64url, hashBody } from '../signature/forge-token';
import {
  B64URL_ALPHABET,
  CONFIGURED_KEYS,
  GENUINE_BODIES,
  NON_B64URL,
  bodyMutation,
  bytesOf,
  claimsText,
  hmac,
  keyHolderToken,
  mutateBody,
  mutateToken,
  mutateUrl,
  sameBytes,
  tokenMutation,
  urlMutation,
  type BodySource,
  type KeyHolderToken,
} from './arbitraries';
import { fcParams, timeoutFor } from './fc-settings';

// Three properties, each run at least 10,000 times in `npm test` (FC_NUM_RUNS raises it):
// 1. forgeries: genuine tokens from `sign`, then mutated by someone without a configured key, with
//    the body (any bytes, in any container) and URL mutated too. Accepted exactly when token, body
//    bytes and URL are the genuine ones; an intact token over other bytes fails with `body-hash`.
// 2. key holders: tokens signed with any key over claims of any shape (wrong types, strings, floats,
//    negatives, repeated members), judged against an independent model of what `sign` writes.
// 3. garbage: strings that are not tokens at all. Never accepted.
// In all three, both implementations must give the same verdict (same `reason`, same per-key
// attempts) and nothing but a SignatureError may ever come out.

const RUNS = 10_000;
// jose over Web Crypto costs ~100-200 µs per verify; 5 ms per run leaves room for a loaded machine.
const TIMEOUT = timeoutFor(RUNS, 5);

const REASONS: ReadonlySet<SignatureFailure> = new Set<SignatureFailure>([
  'missing',
  'malformed',
  'algorithm',
  'bad-signature',
  'expired',
  'not-yet-valid',
  'issuer',
  'subject',
  'body-hash',
  'claims',
  'no-key',
]);

type Verdict =
  | { ok: true; key: string; claims: unknown }
  | { ok: false; reason: string; attempts: string[] }
  | { ok: false; unexpected: string };

async function verdictOf(verifier: Verifier, input: VerifyInput): Promise<Verdict> {
  try {
    const { key, claims } = await verifier.verify(input);
    return { ok: true, key, claims };
  } catch (error) {
    if (!(error instanceof SignatureError) || !REASONS.has(error.reason)) {
      return { ok: false, unexpected: `${(error as Error)?.name}: ${(error as Error)?.message ?? String(error)}` };
    }
    // A key must never surface, whatever the input.
    for (const key of CONFIGURED_KEYS) {
      if (error.message.includes(key)) return { ok: false, unexpected: `message contains a signing key: ${error.message}` };
    }
    return { ok: false, reason: error.reason, attempts: error.attempts.map((attempt) => `${attempt.key}:${attempt.reason}`) };
  }
}

interface Pair {
  node: Verifier;
  web: Verifier;
}

function verifierPair(clockToleranceSeconds?: number): Pair {
  // Half a second into NOW: both implementations floor the clock, so this is NOW for both.
  const options = { currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, now: () => NOW * 1000 + 500, clockToleranceSeconds };
  return { node: createVerifier({ ...options, implementation: 'node' }), web: createVerifier({ ...options, implementation: 'webcrypto' }) };
}

/** Both verdicts, after checking they agree and that neither threw anything but a SignatureError. */
async function agreedVerdict(pair: Pair, input: VerifyInput): Promise<Verdict> {
  const node = await verdictOf(pair.node, input);
  const web = await verdictOf(pair.web, input);
  if ('unexpected' in node) throw new Error(`node path: ${node.unexpected}`);
  if ('unexpected' in web) throw new Error(`webcrypto path: ${web.unexpected}`);
  expect(web).toEqual(node);
  return node;
}

interface Genuine {
  token: string;
  body: BodySource;
  bytes: Uint8Array;
  key: 'current' | 'next';
  claims: Record<string, unknown>;
}

const genuine: Genuine[] = [];

beforeAll(async () => {
  for (const [slot, key] of [
    ['current', CURRENT_KEY],
    ['next', NEXT_KEY],
  ] as const) {
    for (const body of GENUINE_BODIES) {
      const token = await sign({ key, url: URL, rawBody: body, now: () => NOW * 1000, jti: 'jwt_fuzz' });
      const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      genuine.push({ token, body, bytes: bytesOf(body), key: slot, claims });
    }
  }
});

/** Is this exactly a token `sign` made with a configured key, for exactly these bytes? */
function isGenuine(token: string, bytes: Uint8Array): boolean {
  return genuine.some((candidate) => candidate.token === token && sameBytes(candidate.bytes, bytes));
}

describe('verifier fuzzing: forgeries (no configured key)', () => {
  const pair = verifierPair();

  it(
    'accepts a token exactly when it is a genuine one over the same bytes and URL: zero forgeries',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.oneof(
            { weight: 1, arbitrary: fc.constant([]) },
            { weight: 4, arbitrary: fc.array(tokenMutation, { minLength: 1, maxLength: 3 }) },
          ),
          bodyMutation,
          urlMutation,
          async (index, mutations, bodyChange, urlChange) => {
            const original = genuine[index % genuine.length]!;
            let token = original.token;
            for (const mutation of mutations) token = mutateToken(token, mutation, original.claims);
            const rawBody = mutateBody(original.body, bodyChange);
            const url = mutateUrl(urlChange);
            const verdict = await agreedVerdict(pair, { signature: token, rawBody, ...(url !== undefined ? { url } : {}) });
            const bytes = bytesOf(rawBody);
            const legitimate = isGenuine(token, bytes) && (url === undefined || url === URL);
            expect(verdict.ok, `token ${JSON.stringify(token.slice(0, 200))}`).toBe(legitimate);
            const signed = genuine.find((candidate) => candidate.token === token);
            if (verdict.ok) expect(verdict.key).toBe(signed?.key);
            // An intact token that fails names the check that failed: the URL first, then the body.
            if (signed && !legitimate)
              expect(verdict).toMatchObject({ reason: url !== undefined && url !== URL ? 'subject' : 'body-hash' });
          },
        ),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );
});

describe('verifier fuzzing: key holders (claims of any shape)', () => {
  const pairs = new Map<number | undefined, Pair>([0, undefined, 30].map((tolerance) => [tolerance, verifierPair(tolerance)]));

  it(
    'accepts a token with claims of any shape exactly when an independent model of the checks does',
    async () => {
      const input = fc.nat({ max: GENUINE_BODIES.length - 1 }).chain((bodyIndex) => {
        const bytes = bytesOf(GENUINE_BODIES[bodyIndex]!);
        return fc.record({
          bodyIndex: fc.constant(bodyIndex),
          token: keyHolderToken(hashBody(bytes)),
          tolerance: fc.constantFrom<number | undefined>(undefined, 0, 30),
          url: fc.constantFrom<string | undefined>(URL, URL, URL, undefined, `${URL}/`),
        });
      });
      let accepted = 0;
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(input, async ({ bodyIndex, token, tolerance, url }) => {
          runs += 1;
          const bytes = bytesOf(GENUINE_BODIES[bodyIndex]!);
          const compact = compactOf(token);
          const verdict = await agreedVerdict(pairs.get(tolerance)!, {
            signature: compact,
            rawBody: bytes,
            ...(url !== undefined ? { url } : {}),
          });
          const expected = modelAccepts(token, bytes, url, NOW, tolerance ?? 5);
          expect(verdict.ok, `${token.headerText} ${claimsText(token.members)} key=${JSON.stringify(token.key)}`).toBe(expected);
          if (verdict.ok) {
            accepted += 1;
            expect(verdict.key).toBe(token.key === CURRENT_KEY ? 'current' : 'next');
          }
        }),
        fcParams(RUNS),
      );
      // The model is only worth something if both verdicts actually occur often.
      expect(accepted / runs).toBeGreaterThan(0.1);
      expect(accepted / runs).toBeLessThan(0.9);
    },
    TIMEOUT,
  );
});

describe('verifier fuzzing: strings that are not tokens', () => {
  const pair = verifierPair();
  const segment = fc.string({ unit: fc.constantFrom(...B64URL_ALPHABET, ...NON_B64URL), maxLength: 80 });
  const notAToken = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
    fc.array(segment, { maxLength: 6 }).map((parts) => parts.join('.')),
    fc
      .tuple(fc.jsonValue({ maxDepth: 2 }), fc.jsonValue({ maxDepth: 2 }), segment)
      .map(
        ([header, payload, signature]) => `${b64url(JSON.stringify(header) ?? '')}.${b64url(JSON.stringify(payload) ?? '')}.${signature}`,
      ),
    fc.integer({ min: 8180, max: 8200 }).map((length) => `eyJhbGciOiJIUzI1NiJ9.${'A'.repeat(length - 24)}.${'B'.repeat(2)}`),
    fc.constantFrom('', '.', '..', '...', 'null', 'Bearer x.y.z', 'eyJhbGciOiJub25lIn0.e30.', ' eyJhbGciOiJIUzI1NiJ9.e30.x'),
  );

  it(
    'never accepts one and only ever throws SignatureError',
    async () => {
      await fc.assert(
        fc.asyncProperty(notAToken, fc.constantFrom<BodySource>('', '{}', new Uint8Array([0])), async (signature, rawBody) => {
          const verdict = await agreedVerdict(pair, { signature, rawBody, url: URL });
          expect(verdict.ok).toBe(false);
        }),
        fcParams(RUNS),
      );
    },
    TIMEOUT,
  );
});

function compactOf(token: KeyHolderToken): string {
  const input = `${b64url(token.headerText)}.${b64url(claimsText(token.members))}`;
  return `${input}.${hmac(input, token.key, 'sha256')}`;
}

/**
 * What a verifier must accept, written from the spec rather than from src/signature: a plain HS256
 * JWT header, an HMAC by a configured key, all seven claims with their types (times as non-negative
 * whole Unix seconds), the issuer, the subject when a URL is checked, the time window with its
 * tolerance, and the body hash (padded or not). A member written twice counts with its last value,
 * the reading RFC 7519 section 4 allows (JSON.parse's).
 */
function modelAccepts(token: KeyHolderToken, bytes: Uint8Array, url: string | undefined, now: number, tolerance: number): boolean {
  const header = parseObject(token.headerText);
  if (header === undefined) return false;
  if (header.alg !== 'HS256' || Object.hasOwn(header, 'crit') || Object.hasOwn(header, 'b64')) return false;
  if (Object.hasOwn(header, 'typ') && header.typ !== 'JWT') return false;
  if (!(CONFIGURED_KEYS as readonly string[]).includes(token.key)) return false;
  const claims = parseObject(claimsText(token.members));
  if (claims === undefined) return false;
  for (const name of ['iss', 'sub', 'jti', 'body']) if (typeof claims[name] !== 'string') return false;
  for (const name of ['iat', 'nbf', 'exp']) {
    const value = claims[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return false;
  }
  const { iss, sub, iat, nbf, exp, body } = claims as { iss: string; sub: string; iat: number; nbf: number; exp: number; body: string };
  if (iss !== 'Service') return false;
  if (url !== undefined && sub !== url) return false;
  if (nbf > now + tolerance || iat > now + tolerance || exp <= now - tolerance) return false;
  const digest = hashBody(bytes);
  return body === digest || body === `${digest}=`;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
