import { ValidationError } from '../errors';
import { BODY_MISMATCH, bodyClaimMatches, encodeBase64url, parseToken, readClockSeconds, sha256, type ParsedToken } from './token';
import {
  checkClaims,
  fail,
  isFailure,
  readVerifyInput,
  rejectAttempts,
  toVerifyError,
  type Attempt,
  type ClaimExpectations,
  type Failure,
  type SignatureClaims,
  type SigningKeySlot,
  type VerifiedSignature,
  type Verifier,
  type VerifierConfig,
  type VerifyInput,
} from './claims';

// Loaded on the first verification, and from the subpath, not the root (which loads all of jose):
// an app on Node verifies with node:crypto and never pays the 15-25 ms its import costs.
let joseVerify: Promise<typeof import('jose/jwt/verify')['jwtVerify']> | undefined;
const loadJwtVerify = () => (joseVerify ??= import('jose/jwt/verify').then((jose) => jose.jwtVerify));

/**
 * Types taken from the `crypto` global rather than the DOM lib, which this package does not load.
 */
type WebCrypto = typeof globalThis.crypto;
type HmacKey = Awaited<ReturnType<WebCrypto['subtle']['importKey']>>;

/** Web Crypto, present on Node >= 19, Deno, Bun, browsers, workers and edge runtimes. */
function webCrypto(): WebCrypto | undefined {
  const candidate = (globalThis as { crypto?: WebCrypto }).crypto;
  return typeof candidate?.subtle?.digest === 'function' ? candidate : undefined;
}

/** What jose said about one key: did the HMAC match, and if something failed, what. */
interface JoseVerdict {
  readonly signatureValid: boolean;
  readonly failure: Failure | undefined;
}

/**
 * Runs jose's `jwtVerify` with the algorithm pinned to HS256, our clock, tolerance, issuer and
 * subject, and translates its error classes into our reasons. jose verifies the signature before it
 * looks at any claim, so a claim error also tells us the signature was valid.
 */
async function joseVerdict(token: string, key: HmacKey, expected: ClaimExpectations): Promise<JoseVerdict> {
  const jwtVerify = await loadJwtVerify();
  try {
    await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: expected.issuer,
      subject: expected.url,
      // Whole seconds: jose floors currentDate itself, this makes the flooring visibly ours.
      currentDate: new Date(expected.nowSeconds * 1000),
      clockTolerance: expected.toleranceSeconds,
    });
    return { signatureValid: true, failure: undefined };
  } catch (error) {
    return fromJoseError(error);
  }
}

function fromJoseError(error: unknown): JoseVerdict {
  const { code, claim, reason } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    claim?: unknown;
    reason?: unknown;
  };
  switch (code) {
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return { signatureValid: false, failure: fail('bad-signature', 'the token signature does not match this key') };
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return { signatureValid: false, failure: fail('algorithm', 'jose refused the token header') };
    case 'ERR_JWT_EXPIRED':
      return { signatureValid: true, failure: fail('expired', 'jose: the token has expired') };
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return { signatureValid: true, failure: fromClaimFailure(claim, reason) };
    case 'ERR_JWT_INVALID':
      // Raised only after the signature verified (claims set not an object, unencoded payload).
      return { signatureValid: true, failure: fail('malformed', 'jose: the token claims set is invalid') };
    default:
      return { signatureValid: false, failure: fail('malformed', 'jose could not read the token') };
  }
}

function fromClaimFailure(claim: unknown, reason: unknown): Failure {
  if (reason === 'check_failed' && claim === 'nbf') return fail('not-yet-valid', 'jose: the token is not valid yet');
  if (reason === 'check_failed' && claim === 'iss') return fail('issuer', 'jose: unexpected issuer');
  if (reason === 'check_failed' && claim === 'sub') return fail('subject', 'jose: unexpected subject');
  return fail('claims', `jose: the "${String(claim)}" claim is missing or invalid`);
}

interface WebKey {
  readonly slot: SigningKeySlot;
  readonly cryptoKey: () => Promise<HmacKey>;
}

/**
 * The verifier for runtimes without node:crypto (edge, workers): jose's `jwtVerify` over Web Crypto
 * checks the HMAC (and its own claim rules), the body hash uses `crypto.subtle.digest`.
 *
 * To give exactly the node path's verdicts it runs the same shared checks around jose: parseToken
 * before (so jose never sees a token our rules call malformed or of the wrong algorithm), and
 * checkClaims after a valid signature (our claim rules are stricter and their order is fixed).
 * jose's own claim verdict is kept as a second opinion: if it ever rejected what ours accepted, its
 * reason would be reported, so the stricter of the two always wins.
 */
export function createWebVerifier(config: VerifierConfig): Verifier {
  if (webCrypto() === undefined) {
    throw new ValidationError('implementation', 'neither node:crypto nor Web Crypto (crypto.subtle) is available in this runtime');
  }
  const encoder = new TextEncoder();
  const keys: readonly WebKey[] = config.keys.map((key) => {
    // Imported once per key; jose given raw bytes would import them again on every verify.
    let imported: Promise<HmacKey> | undefined;
    const cryptoKey = () =>
      (imported ??= crypto.subtle.importKey('raw', encoder.encode(key.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']));
    return { slot: key.slot, cryptoKey };
  });

  async function checkBody(claims: SignatureClaims, rawBody: Uint8Array | string): Promise<Failure | undefined> {
    return bodyClaimMatches(claims.body, encodeBase64url(await sha256(rawBody))) ? undefined : BODY_MISMATCH;
  }

  async function tryKey(
    key: WebKey,
    token: ParsedToken,
    rawBody: Uint8Array | string,
    expected: ClaimExpectations,
  ): Promise<SignatureClaims | Failure> {
    const jose = await joseVerdict(token.compact, await key.cryptoKey(), expected);
    if (!jose.signatureValid) return jose.failure ?? { reason: 'bad-signature', detail: 'the token signature does not match this key' };
    const claims = checkClaims(token.payload, expected);
    if (isFailure(claims)) return claims;
    return jose.failure ?? (await checkBody(claims, rawBody)) ?? claims;
  }

  async function verifyOrThrow(input: VerifyInput): Promise<VerifiedSignature> {
    const request = readVerifyInput(input, config);
    const token = parseToken(request.signature);
    const expected = {
      issuer: config.issuer,
      url: request.url,
      nowSeconds: readClockSeconds(config.now),
      toleranceSeconds: config.toleranceSeconds,
    };
    const attempts: Attempt[] = [];
    for (const key of keys) {
      const outcome = await tryKey(key, token, request.rawBody, expected);
      if (!isFailure(outcome)) return { claims: outcome, key: key.slot };
      attempts.push({ key: key.slot, ...outcome });
      // Only a signature mismatch leaves a chance for the next key.
      if (outcome.reason !== 'bad-signature') break;
    }
    return rejectAttempts(attempts, config.badSignatureHint);
  }

  return {
    implementation: 'webcrypto',
    async verify(input) {
      try {
        return await verifyOrThrow(input);
      } catch (error) {
        throw toVerifyError(error);
      }
    },
  };
}
