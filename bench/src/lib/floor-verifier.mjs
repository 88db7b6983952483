// The floor of verification: what a careful hand-written receiver does with node:crypto alone, no
// library and no error reporting. Mailroom's verifier is measured against it (how close to the
// limit our layers are), never used in it. createHmac/createHash are node:crypto's own constructions.
import { createHash, createHmac, createSecretKey } from 'node:crypto';

const HS256_HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * Returns verify({ signature, bytes, url }) -> claims, throwing on any failure: HS256 header, HMAC
 * with the current then the next key, iss, sub (exact URL), nbf/exp with 5 s tolerance, and the body
 * claim against SHA-256 of the raw bytes (the service pads it with `=`; compared without).
 */
export function createFloorVerifier({ currentSigningKey, nextSigningKey, issuer }) {
  const keys = [createSecretKey(Buffer.from(currentSigningKey)), createSecretKey(Buffer.from(nextSigningKey))];
  return ({ signature, bytes, url }) => {
    const first = signature.indexOf('.');
    const last = signature.lastIndexOf('.');
    if (first <= 0 || last === first) throw new Error('malformed');
    if (signature.slice(0, first) !== HS256_HEADER) throw new Error('algorithm');
    const input = signature.slice(0, last);
    const mac = signature.slice(last + 1);
    if (
      createHmac('sha256', keys[0]).update(input).digest('base64url') !== mac &&
      createHmac('sha256', keys[1]).update(input).digest('base64url') !== mac
    ) {
      throw new Error('bad signature');
    }
    const claims = JSON.parse(Buffer.from(signature.slice(first + 1, last), 'base64url').toString('utf8'));
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== issuer || claims.sub !== url || claims.nbf > now + 5 || claims.exp <= now - 5) throw new Error('claims');
    if (claims.body.replace(/=+$/, '') !== createHash('sha256').update(bytes).digest('base64url')) throw new Error('body hash');
    return claims;
  };
}
