import { ValidationError } from '../errors/validation-error';
import { encodeBase64url } from './base64url';
import { sha256 } from './web-crypto';

/**
 * The `body` claim for a body: base64url(SHA-256(raw bytes)), unpadded as in RFC 7515. A string is
 * hashed as UTF-8. Runs on every runtime (Web Crypto); the dev server and test helpers use it to
 * build tokens, and `sign` uses it for the claim.
 *
 * @example
 * await bodyHash('{"hello":"world"}'); // 'k6I5cakU5erL8KjSUVTNownDwccvu5kU1Hxg88toFYg'
 */
export async function bodyHash(rawBody: Uint8Array | string): Promise<string> {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new ValidationError('rawBody', `must be a Uint8Array or a string, got ${rawBody === null ? 'null' : typeof rawBody}`);
  }
  return encodeBase64url(await sha256(rawBody));
}
