import { createHmac, createSecretKey, hash, randomBytes } from 'node:crypto';
import { MAX_TOKEN_LENGTH } from './parse-token';
import { DEFAULT_SIGNATURE_TTL_SECONDS } from './sign';

/** Signs one delivery: the `<Prefix>-Signature` token for this exact URL and body. */
export type TokenSigner = (url: string, body: Uint8Array) => string;

export interface TokenSignerOptions {
  /** The current signing key; its UTF-8 bytes are the HMAC key. */
  key: string;
  issuer: string;
  /** Unix milliseconds. */
  now: () => number;
  /** Token ids; default `jwt_` + 32 random hex digits, like `sign`'s. */
  jti?: () => string;
}

// `{"alg":"HS256","typ":"JWT"}`, exactly as jose serialises the header `sign` sets.
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

/**
 * The synchronous node:crypto signer, beside the node:crypto verifier: the same token as `sign()`
 * (claims `iss`, `sub`, `iat`, `nbf`, `exp`, `jti`, `body`, in that order, byte for byte; a test
 * holds them equal) without jose's promise and key import per call, for a server that signs every
 * delivery (the dev server). Its options are trusted: check them once where they come from.
 *
 * @example const signer = createTokenSigner({ key: 'sig_current', issuer: 'Service', now: Date.now }); signer(url, body)
 */
export function createTokenSigner(options: TokenSignerOptions): TokenSigner {
  const { issuer, now } = options;
  // Imported once: a string key would be read into a key object on every signature.
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
  return `jwt_${randomBytes(16).toString('hex')}`;
}
