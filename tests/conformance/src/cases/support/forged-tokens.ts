import { createHash, createHmac } from 'node:crypto';
import { CURRENT_KEY, FIXED_NOW } from '../../fixtures';

// Tokens no honest signer makes. Built by hand (not with jose, which refuses most of them) so the
// receiver is tested against exactly what an attacker could send.

function segment(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** Claims that would pass every check, so only the header or signature can be why a token fails. */
export function validClaims(url: string, body: Uint8Array): Record<string, unknown> {
  const now = Math.floor(FIXED_NOW / 1000);
  return {
    iss: 'Service',
    sub: url,
    iat: now,
    nbf: now,
    exp: now + 300,
    jti: 'jwt_conformance_forged',
    body: createHash('sha256').update(body).digest('base64url'),
  };
}

/** `alg: none` with an empty signature: the oldest JWT bypass. */
export function unsignedToken(claims: Record<string, unknown>): string {
  return `${segment({ alg: 'none', typ: 'JWT' })}.${segment(claims)}.`;
}

/**
 * A token whose header names `alg` but which is signed with HMAC-`hash` over the real key: HS512 is a
 * valid signature under another algorithm; RS256 with an HMAC is the classic key-confusion attack.
 */
export function tokenWithAlgorithm(alg: string, hash: 'sha256' | 'sha512', claims: Record<string, unknown>, key = CURRENT_KEY): string {
  const input = `${segment({ alg, typ: 'JWT' })}.${segment(claims)}`;
  return `${input}.${createHmac(hash, key).update(input).digest('base64url')}`;
}
