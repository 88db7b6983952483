import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignatureError } from '../../src/errors';
import { createVerifier, type Verifier, type VerifierOptions, type VerifyInput } from '../../src/signature';
import { CURRENT_KEY, NEXT_KEY, NOW, OTHER_KEY, URL, b64url, forgeToken, hashBody } from './forge-token';

// Both implementations must reach the same verdict, reason and per-key attempts on every input.
const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 1000);
// Room for larger FC_NUM_RUNS: a run costs well under a millisecond, a timeout would be a false alarm.
const TIMEOUT_MS = Math.max(30_000, NUM_RUNS * 5);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

type Verdict =
  | { ok: true; key: string; claims: unknown }
  | { ok: false; reason: string; attempts: string[] }
  | { ok: false; unexpected: string };

async function verdictOf(verifier: Verifier, input: VerifyInput): Promise<Verdict> {
  try {
    const result = await verifier.verify(input);
    return { ok: true, key: result.key, claims: result.claims };
  } catch (error) {
    if (!(error instanceof SignatureError)) return { ok: false, unexpected: String(error) };
    return { ok: false, reason: error.reason, attempts: error.attempts.map((attempt) => `${attempt.key}:${attempt.reason}`) };
  }
}

async function bothVerdicts(options: VerifierOptions, input: VerifyInput): Promise<[Verdict, Verdict]> {
  const node = createVerifier({ ...options, implementation: 'node' });
  const web = createVerifier({ ...options, implementation: 'webcrypto' });
  return [await verdictOf(node, input), await verdictOf(web, input)];
}

const timeClaim = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: NOW - 400, max: NOW + 400 }) },
  fc.double({ min: NOW - 400, max: NOW + 400, noNaN: true }),
  fc.constantFrom(undefined, null, -1, 0, 2 ** 53, 1e21, Number.MAX_VALUE, '1700000000', true),
  fc.string({ maxLength: 8 }),
);

const bodyChoice = fc.oneof(
  { weight: 8, arbitrary: fc.constant('match') },
  { weight: 3, arbitrary: fc.constant('padded') },
  fc.constantFrom('other', 'missing', 'garbage', 'number', 'double-padded'),
);

// Mostly the shape a signer writes (iat = nbf, exp = iat + 300), sometimes each claim on its own.
const timeClaims = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: NOW - 10, max: NOW + 10 }).map((iat) => ({ iat, nbf: iat, exp: iat + 300 })) },
  { weight: 2, arbitrary: fc.record({ iat: timeClaim, nbf: timeClaim, exp: timeClaim }) },
);

const claimsArbitrary = fc.record({
  iss: fc.oneof(
    { weight: 30, arbitrary: fc.constant('Service') },
    fc.constantFrom('Upstash', 'service', undefined, 7),
    fc.string({ maxLength: 8 }),
  ),
  sub: fc.oneof({ weight: 30, arbitrary: fc.constant(URL) }, fc.constantFrom(`${URL}/`, undefined, 42), fc.webUrl()),
  times: timeClaims,
  jti: fc.oneof({ weight: 30, arbitrary: fc.constant('jwt_abc') }, fc.constantFrom(undefined, 1, ''), fc.string({ maxLength: 8 })),
  extra: fc.option(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), { nil: undefined }),
});

const headerArbitrary = fc.oneof(
  { weight: 20, arbitrary: fc.constant<Record<string, unknown> | string>({ alg: 'HS256', typ: 'JWT' }) },
  fc.record(
    {
      alg: fc.constantFrom('HS256', 'HS256', 'HS512', 'none', 'RS256', 'hs256', 42, null),
      typ: fc.constantFrom('JWT', 'jwt', 'at+jwt', 1),
      kid: fc.string({ maxLength: 6 }),
      crit: fc.constantFrom<unknown>(['b64'], [], 'b64', ['exp']),
      b64: fc.boolean(),
    },
    { requiredKeys: [] },
  ),
  fc.constantFrom(
    '{"alg":"HS256"',
    '["HS256"]',
    '\uFEFF{"alg":"HS256"}',
    'null',
    '{"alg":"HS256","alg":"none"}',
    '{"alg":"none","alg":"HS256"}',
  ),
);

const mutationArbitrary = fc.oneof(
  { weight: 25, arbitrary: fc.constant({ kind: 'none' as const }) },
  fc.record({
    kind: fc.constant('flip' as const),
    segment: fc.integer({ min: 0, max: 2 }),
    position: fc.nat(),
    char: fc.constantFrom(...`${ALPHABET}=+/. `),
  }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.integer({ min: 0, max: 2 }), b: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), text: fc.constantFrom('=', '.', ' ', 'A', '.x', '==') }),
  fc.record({ kind: fc.constant('replace' as const), text: fc.string({ maxLength: 60 }) }),
  fc.record({
    kind: fc.constant('reencode-header' as const),
    alg: fc.constantFrom('HS384', 'HS512', 'none', 'RS256', 'ES256', 'PS256', 'EdDSA', ''),
  }),
);

type Mutation = typeof mutationArbitrary extends fc.Arbitrary<infer T> ? T : never;

function mutate(token: string, mutation: Mutation): string {
  const segments = token.split('.');
  switch (mutation.kind) {
    case 'none':
      return token;
    case 'flip': {
      const segment = segments[mutation.segment] ?? '';
      if (segment.length === 0) return token;
      const at = mutation.position % segment.length;
      segments[mutation.segment] = segment.slice(0, at) + mutation.char + segment.slice(at + 1);
      return segments.join('.');
    }
    case 'swap': {
      const a = segments[mutation.a] ?? '';
      segments[mutation.a] = segments[mutation.b] ?? '';
      segments[mutation.b] = a;
      return segments.join('.');
    }
    case 'truncate':
      return token.slice(0, mutation.at % (token.length + 1));
    case 'append':
      return token + mutation.text;
    case 'replace':
      return mutation.text;
    case 'reencode-header':
      segments[0] = b64url(JSON.stringify({ alg: mutation.alg, typ: 'JWT' }));
      return segments.join('.');
  }
}

function bodyClaim(choice: string, body: Uint8Array | string): unknown {
  switch (choice) {
    case 'match':
      return hashBody(body);
    case 'padded':
      return hashBody(body, true);
    case 'double-padded':
      return `${hashBody(body)}==`;
    case 'other':
      return hashBody(`${typeof body === 'string' ? body : 'bytes'}!`);
    case 'number':
      return 12;
    case 'garbage':
      return 'not-a-hash';
    default:
      return undefined;
  }
}

describe('node and webcrypto verifiers agree', () => {
  it(
    'on random valid and mutated tokens',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          headerArbitrary,
          claimsArbitrary,
          bodyChoice,
          fc.oneof(fc.uint8Array({ maxLength: 2048 }), fc.string({ maxLength: 200 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
          fc.constantFrom(CURRENT_KEY, CURRENT_KEY, NEXT_KEY, OTHER_KEY),
          mutationArbitrary,
          fc.record({
            offsetSeconds: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: -3, max: 295 }) }, fc.integer({ min: -20, max: 420 })),
            offsetMs: fc.integer({ min: 0, max: 999 }),
            tolerance: fc.constantFrom(undefined, 0, 1, 5, 2.5, 60),
            issuer: fc.constantFrom(undefined, undefined, undefined, undefined, 'Upstash'),
            withUrl: fc.constantFrom(true, true, true, false),
            onlyNextKey: fc.constantFrom(false, false, false, false, true),
          }),
          async (header, claims, choice, body, key, mutation, setting) => {
            const { extra, times, ...named } = claims;
            const payload = { ...extra, ...named, ...times, body: bodyClaim(choice, body) };
            const token = mutate(forgeToken({ header, payload, key }), mutation);
            const options: VerifierOptions = {
              currentSigningKey: setting.onlyNextKey ? undefined : CURRENT_KEY,
              nextSigningKey: NEXT_KEY,
              issuer: setting.issuer,
              clockToleranceSeconds: setting.tolerance,
              now: () => (NOW + setting.offsetSeconds) * 1000 + setting.offsetMs,
            };
            const input = { signature: token, rawBody: body, ...(setting.withUrl ? { url: URL } : {}) };
            const [node, web] = await bothVerdicts(options, input);
            expect(node).not.toHaveProperty('unexpected');
            expect(web).toEqual(node);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'on arbitrary strings shaped like tokens',
    async () => {
      const segment = fc.string({ unit: fc.constantFrom(...`${ALPHABET}=+/`), maxLength: 60 });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string(),
            fc.tuple(segment, segment, segment).map((parts) => parts.join('.')),
          ),
          async (token) => {
            const options = { currentSigningKey: CURRENT_KEY, nextSigningKey: NEXT_KEY, now: () => NOW * 1000 };
            const [node, web] = await bothVerdicts(options, { signature: token, rawBody: '' });
            expect(node.ok).toBe(false);
            expect(node).not.toHaveProperty('unexpected');
            expect(web).toEqual(node);
          },
        ),
        { numRuns: NUM_RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'on inputs of any type, throwing only SignatureError',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.anything(), fc.anything(), fc.anything(), async (signature, rawBody, url) => {
          const options = { currentSigningKey: CURRENT_KEY, now: () => NOW * 1000 };
          const [node, web] = await bothVerdicts(options, { signature, rawBody, url } as VerifyInput);
          expect(node).not.toHaveProperty('unexpected');
          expect(web).toEqual(node);
        }),
        { numRuns: Math.ceil(NUM_RUNS / 2) },
      );
    },
    TIMEOUT_MS,
  );
});
