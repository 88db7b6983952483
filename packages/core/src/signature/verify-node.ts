import type { KeyObject } from 'node:crypto';
import { isBase64url, type SegmentDecoder } from './base64url';
import { bodyClaimMatches, BODY_MISMATCH } from './body-claim';
import { constantTimeEqual } from './constant-time-equal';
import { checkClaims, type ClaimContext } from './check-claims';
import { readClockSeconds } from './clock';
import { attemptsError, fail, isFailure, toVerifyError, type Attempt, type Failure } from './failure';
import type { NodeBuiltins } from './node-builtins';
import { parseToken, type ParsedToken } from './parse-token';
import type { VerifierConfig } from './verifier-config';
import type { NodeVerifier, SignatureClaims, SigningKeySlot, VerifiedSignature, VerifyInput } from './verifier-types';
import { readVerifyInput } from './verify-input';

const BAD_SIGNATURE: Failure = fail('bad-signature', 'the token signature does not match this key');

interface NodeKey {
  readonly slot: SigningKeySlot;
  readonly key: KeyObject;
}

/**
 * The synchronous verifier over node:crypto: about ten times faster than awaiting Web Crypto, since
 * an HMAC and a SHA-256 are a few microseconds of native work and no promise round trips. Parsing
 * and claim checks are the shared ones, so its verdicts equal the jose path's.
 *
 * The modules are passed in (see loadNodeBuiltins) rather than imported, so this file has no import
 * of node:crypto that a bundler could trip over.
 */
export function createNodeVerifier(config: VerifierConfig, builtins: NodeBuiltins): NodeVerifier {
  const { crypto: nodeCrypto, Buffer } = builtins;
  const encoder = new TextEncoder();
  // A KeyObject is imported once; passing the string to createHmac would re-encode it on every call.
  const keys: readonly NodeKey[] = config.keys.map((key) => ({
    slot: key.slot,
    key: nodeCrypto.createSecretKey(encoder.encode(key.secret)),
  }));
  const sha256 = digestFunction(builtins);
  // Buffer's native decoder is several times faster than a JS loop; isBase64url first, because
  // Buffer silently skips characters it does not know and accepts `+`, `/` and `=`.
  const decode: SegmentDecoder = (segment) => (isBase64url(segment) ? Buffer.from(segment, 'base64url') : undefined);

  function signatureMatches(key: KeyObject, token: ParsedToken): boolean {
    // Strings, not Buffers: see constantTimeEqual. The segment is canonical base64url (parseToken),
    // so string equality is byte equality.
    return constantTimeEqual(nodeCrypto.createHmac('sha256', key).update(token.signingInput).digest('base64url'), token.signature);
  }

  function checkBody(claims: SignatureClaims, rawBody: Uint8Array | string): Failure | undefined {
    return bodyClaimMatches(claims.body, sha256(rawBody)) ? undefined : BODY_MISMATCH;
  }

  function checkAfterSignature(token: ParsedToken, rawBody: Uint8Array | string, context: ClaimContext): SignatureClaims | Failure {
    const claims = checkClaims(token.payload, context);
    return isFailure(claims) ? claims : (checkBody(claims, rawBody) ?? claims);
  }

  // The key whose signature matched last is tried first. During a rotation, until the app is given
  // the new keys, every delivery is signed with the next key: without this each one paid for two
  // HMACs (a third of its cost at 1 KiB, profiled). Only the work changes, never the answer: the keys
  // are distinct (resolveVerifierConfig), so at most one can match, and the verdict and `attempts`
  // below are exactly those of trying them in their configured order.
  let preferred = 0;

  function matchingKey(token: ParsedToken): number {
    for (let tried = 0; tried < keys.length; tried++) {
      const index = (preferred + tried) % keys.length;
      if (signatureMatches(keys[index]!.key, token)) return index;
    }
    return -1;
  }

  // A failed check is returned, not thrown: a rejection then costs one throw in verifySync and none
  // in verify. Only input the token parser cannot read throws on the way (it is caught in `outcome`).
  function verifyOrFail(input: VerifyInput): VerifiedSignature | Error {
    const request = readVerifyInput(input, config);
    const token = parseToken(request.signature, decode);
    const context = {
      issuer: config.issuer,
      url: request.url,
      nowSeconds: readClockSeconds(config.now),
      toleranceSeconds: config.toleranceSeconds,
    };
    const matched = matchingKey(token);
    if (matched === -1) return rejection(keys.length);
    preferred = matched;
    const outcome = checkAfterSignature(token, request.rawBody, context);
    return isFailure(outcome) ? rejection(matched, outcome) : { claims: outcome, key: keys[matched]!.slot };
  }

  /**
   * The error of trying the keys in their configured order: each key before `failedAt` failed on its
   * signature, and the key at `failedAt` (whose signature matched) on `failure`; a matching key's
   * outcome is final, as another key cannot do better.
   */
  function rejection(failedAt: number, failure?: Failure): Error {
    const attempts: Attempt[] = [];
    for (let index = 0; index < failedAt; index++) attempts.push({ key: keys[index]!.slot, ...BAD_SIGNATURE });
    if (failure) attempts.push({ key: keys[failedAt]!.slot, ...failure });
    return attemptsError(attempts, config.badSignatureHint);
  }

  function outcome(input: VerifyInput): VerifiedSignature | Error {
    try {
      return verifyOrFail(input);
    } catch (error) {
      return toVerifyError(error);
    }
  }

  function verifySync(input: VerifyInput): VerifiedSignature {
    const result = outcome(input);
    if (result instanceof Error) throw result;
    return result;
  }

  return {
    implementation: 'node',
    verifySync,
    verify: (input) => {
      const result = outcome(input);
      return result instanceof Error ? rejectLater(result) : Promise.resolve(result);
    },
  };
}

/**
 * A promise rejected one microtask from now, by when a caller awaiting `verify` has subscribed to it.
 * `Promise.reject` settles before anyone listens, so Node books every such promise as a possibly
 * unhandled rejection and unbooks it a moment later: about 0.7 µs per rejected token (measured), a
 * tenth of a verify. A caller that never listens still gets Node's unhandled-rejection report.
 */
function rejectLater(error: Error): Promise<never> {
  return new Promise((_resolve, reject) => queueMicrotask(() => reject(error)));
}

/** SHA-256 as canonical unpadded base64url, the spelling of the `body` claim. */
type Digest = (data: Uint8Array | string) => string;

function digestFunction({ crypto: nodeCrypto }: NodeBuiltins): Digest {
  const { hash } = nodeCrypto;
  // crypto.hash skips the Hash object; it is missing before Node 20.12 and in some Node look-alikes.
  if (typeof hash === 'function') return (data) => hash('sha256', data, 'base64url');
  return (data) => nodeCrypto.createHash('sha256').update(data).digest('base64url');
}
