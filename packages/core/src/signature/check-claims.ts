import { describeValue } from './describe-value';
import { fail, type Failure } from './failure';
import type { SignatureClaims } from './verifier-types';

export interface ClaimContext {
  readonly issuer: string;
  readonly url: string | undefined;
  readonly nowSeconds: number;
  readonly toleranceSeconds: number;
}

const STRING_CLAIMS = ['iss', 'sub', 'jti', 'body'] as const;
const TIME_CLAIMS = ['iat', 'nbf', 'exp'] as const;

/**
 * Checks the claims of a token whose signature already matched, in a fixed order shared by both
 * implementations: types, issuer, subject, not-before, expiry. The first failure wins.
 *
 * Stricter than jose on purpose (jose's checks still run in the Web Crypto path, as a second
 * opinion, and never accept what this rejects):
 * - all seven claims are required; jose treats `iat`/`nbf`/`exp`/`jti`/`body` as optional;
 * - `iat`/`nbf`/`exp` must be non-negative safe integers; jose accepts any number, so `exp: 1e400`
 *   (Infinity after JSON.parse) would never expire and `exp: 1.5` would be compared as a float;
 * - an `iat` later than now + tolerance is `not-yet-valid`; jose ignores `iat` without maxTokenAge.
 * Time comparisons are jose's: expired when `exp <= now - tolerance` (so a token is already expired
 * at its `exp` second, as RFC 7519 says), not yet valid when `nbf > now + tolerance`.
 * `sub` is compared to the URL exactly: no trailing-slash, case or query normalisation, because the
 * service signs the URL it was given and any "equivalent" URL is a different destination.
 */
export function checkClaims(payload: Readonly<Record<string, unknown>>, context: ClaimContext): SignatureClaims | Failure {
  for (const name of STRING_CLAIMS) {
    if (typeof payload[name] !== 'string')
      return fail('claims', `the "${name}" claim must be a string, got ${describeValue(payload[name])}`);
  }
  for (const name of TIME_CLAIMS) {
    const value = payload[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return fail('claims', `the "${name}" claim must be a whole number of Unix seconds, got ${describeValue(value)}`);
    }
  }
  const claims = payload as unknown as SignatureClaims;
  const { nowSeconds, toleranceSeconds } = context;
  if (claims.iss !== context.issuer) {
    return fail(
      'issuer',
      `the token was issued by ${describeValue(claims.iss)}, expected ${describeValue(context.issuer)}; set the "issuer" option to match the service`,
    );
  }
  if (context.url !== undefined && claims.sub !== context.url) {
    return fail('subject', `the token was signed for ${describeValue(claims.sub)}, but this request is for ${describeValue(context.url)}`);
  }
  if (claims.nbf > nowSeconds + toleranceSeconds) {
    return fail(
      'not-yet-valid',
      `the token is not valid before ${claims.nbf} (now ${nowSeconds}, tolerance ${toleranceSeconds} s); check the server clock`,
    );
  }
  if (claims.iat > nowSeconds + toleranceSeconds) {
    return fail(
      'not-yet-valid',
      `the token claims to be issued at ${claims.iat}, in the future (now ${nowSeconds}, tolerance ${toleranceSeconds} s); check the server clock`,
    );
  }
  if (claims.exp <= nowSeconds - toleranceSeconds) {
    return fail('expired', `the token expired at ${claims.exp} (now ${nowSeconds}, tolerance ${toleranceSeconds} s)`);
  }
  return { iss: claims.iss, sub: claims.sub, iat: claims.iat, nbf: claims.nbf, exp: claims.exp, jti: claims.jti, body: claims.body };
}
