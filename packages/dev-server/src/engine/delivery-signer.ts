import { createHmac, createSecretKey, hash } from 'node:crypto';
import { DEFAULT_SIGNATURE_TTL_SECONDS, MAX_TOKEN_LENGTH } from '@mailroom/core';
import { randomHex } from '../ids';

/** Signs one delivery: the `<P>-Signature` token for this exact URL and body. */
export type DeliverySigner = (url: string, body: Uint8Array) => string;

export interface DeliverySignerOptions {
  /** The current signing key; its UTF-8 bytes are the HMAC key. */
  key: string;
  issuer: string;
  /** Unix milliseconds. */
  now: () => number;
  /** Token ids; default `jwt_` + 32 random hex digits, like core's `sign`. */
  jti?: () => string;
}

// `{"alg":"HS256","typ":"JWT"}`, exactly as jose serialises the header core's `sign` sets.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * The dev server's signer: the same token as core's `sign()` (an HS256 JWT with `iss`, `sub`, `iat`,
 * `nbf`, `exp`, `jti` and `body` in that order, byte for byte; a test holds them equal), computed
 * synchronously with node:crypto. `sign()` goes through jose and Web Crypto, whose promise and key
 * import per call cost more than everything else a delivery does. Options were checked once by
 * `startDevServer`, and every URL at enqueue, so none of `sign()`'s per-call validation is repeated.
 */
export function createDeliverySigner(options: DeliverySignerOptions): DeliverySigner {
  const { issuer, now } = options;
  // Imported once: a string key would be re-read into a key on every signature.
  const key = createSecretKey(Buffer.from(options.key, 'utf8'));
  const jti = options.jti ?? randomJti;
  return (url, body) => {
    const iat = Math.floor(now() / 1000);
    const claims = {
      iss: issuer,
      sub: url,
      iat,
      nbf: iat,
      exp: iat + DEFAULT_SIGNATURE_TTL_SECONDS,
      jti: jti(),
      // One-shot: no Hash object (and its stream machinery) per delivery.
      body: hash('sha256', body, 'base64url'),
    };
    const input = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const token = `${input}.${createHmac('sha256', key).update(input).digest('base64url')}`;
    if (token.length > MAX_TOKEN_LENGTH) {
      throw new RangeError(`the URL makes the signature ${token.length} characters long; receivers accept at most ${MAX_TOKEN_LENGTH}`);
    }
    return token;
  };
}

function randomJti(): string {
  return `jwt_${randomHex(16)}`;
}
