import { ValidationError } from '../errors/validation-error';
import { encodeBase64url } from './base64url';
import { bodyClaimMatches, BODY_MISMATCH } from './body-claim';
import { checkClaims, type ClaimContext } from './check-claims';
import { readClockSeconds } from './clock';
import { isFailure, rejectAttempts, toVerifyError, type Attempt, type Failure } from './failure';
import { joseVerdict } from './jose-verdict';
import { parseToken, type ParsedToken } from './parse-token';
import type { VerifierConfig } from './verifier-config';
import type { SignatureClaims, SigningKeySlot, VerifiedSignature, Verifier, VerifyInput } from './verifier-types';
import { readVerifyInput } from './verify-input';
import { sha256, webCrypto, type HmacKey } from './web-crypto';

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
    context: ClaimContext,
  ): Promise<SignatureClaims | Failure> {
    const jose = await joseVerdict(token.compact, await key.cryptoKey(), context);
    if (!jose.signatureValid) return jose.failure ?? { reason: 'bad-signature', detail: 'the token signature does not match this key' };
    const claims = checkClaims(token.payload, context);
    if (isFailure(claims)) return claims;
    return jose.failure ?? (await checkBody(claims, rawBody)) ?? claims;
  }

  async function verifyOrThrow(input: VerifyInput): Promise<VerifiedSignature> {
    const request = readVerifyInput(input, config);
    const token = parseToken(request.signature);
    const context = {
      issuer: config.issuer,
      url: request.url,
      nowSeconds: readClockSeconds(config.now),
      toleranceSeconds: config.toleranceSeconds,
    };
    const attempts: Attempt[] = [];
    for (const key of keys) {
      const outcome = await tryKey(key, token, request.rawBody, context);
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
