import { jwtVerify } from 'jose';
import type { ClaimContext } from './check-claims';
import { fail, type Failure } from './failure';
import type { HmacKey } from './web-crypto';

/** What jose said about one key: did the HMAC match, and if something failed, what. */
export interface JoseVerdict {
  readonly signatureValid: boolean;
  readonly failure: Failure | undefined;
}

/**
 * Runs jose's `jwtVerify` with the algorithm pinned to HS256, our clock, tolerance, issuer and
 * subject, and translates its error classes into our reasons. jose verifies the signature before it
 * looks at any claim, so a claim error also tells us the signature was valid.
 */
export async function joseVerdict(token: string, key: HmacKey, context: ClaimContext): Promise<JoseVerdict> {
  try {
    await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: context.issuer,
      subject: context.url,
      // Whole seconds: jose floors currentDate itself, this makes the flooring visibly ours.
      currentDate: new Date(context.nowSeconds * 1000),
      clockTolerance: context.toleranceSeconds,
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
