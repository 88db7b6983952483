import { expectObject, ValidationError } from '../errors';
import { bodyHash, readClockSeconds, MAX_TOKEN_LENGTH } from './token';
import { DEFAULT_ISSUER } from './claims';

export const DEFAULT_SIGNATURE_TTL_SECONDS = 300;

export interface SignOptions {
  /** The signing key string (`sig_...`); its UTF-8 bytes are the HMAC key. */
  readonly key: string;
  /** The destination URL, written to `sub` exactly as given. Must be absolute http(s). */
  readonly url: string;
  /** The exact body bytes that will be sent; a string is hashed as UTF-8. */
  readonly rawBody: Uint8Array | string;
  /** `iss` claim. Default `Service`; the real service writes `Upstash`. */
  readonly issuer?: string | undefined;
  /** Clock in Unix milliseconds, like `Date.now` (the default). */
  readonly now?: (() => number) | undefined;
  /** Lifetime: `exp = iat + ttlSeconds`. Default 300 (5 minutes), like the service. */
  readonly ttlSeconds?: number | undefined;
  /** Token id. Default `jwt_` + 32 random hex digits. */
  readonly jti?: string | undefined;
}

const encoder = new TextEncoder();
// Loaded on the first signature: the dev server and most apps import this module and sign with
// node:crypto (createTokenSigner), and jose's import is 15-20 ms of their start.
let joseSign: Promise<typeof import('jose/jwt/sign')['SignJWT']> | undefined;
const loadSignJwt = () => (joseSign ??= import('jose/jwt/sign').then((jose) => jose.SignJWT));

/**
 * Signs a delivery the way the service does: an HS256 JWT (`{"alg":"HS256","typ":"JWT"}`) with
 * claims `iss`, `sub` (the URL), `iat`, `nbf` (both now, in whole seconds), `exp` (now + ttl), `jti`
 * and `body` (unpadded base64url SHA-256 of the raw body). Used by the dev server and the test
 * helpers; receivers verify with `createVerifier`. Bad options throw a ValidationError naming the
 * option.
 *
 * @example
 * const token = await sign({ key: 'sig_current', url: 'https://example.com/api/hook', rawBody: '{"hello":"world"}' });
 * headers.set('Service-Signature', token);
 */
export async function sign(options: SignOptions): Promise<string> {
  expectObject(options, '', 'an object of sign options');
  const key = readKey(options.key);
  const url = readUrl(options.url);
  const issuer = readNonEmpty('issuer', options.issuer) ?? DEFAULT_ISSUER;
  const ttlSeconds = readTtl(options.ttlSeconds);
  const jti = readNonEmpty('jti', options.jti) ?? randomJti();
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new ValidationError('now', 'must be a function returning Unix milliseconds, like Date.now');
  const body = await bodyHash(options.rawBody);
  const iat = readClockSeconds(now);
  const SignJWT = await loadSignJwt();
  const token = await new SignJWT({ iss: issuer, sub: url, iat, nbf: iat, exp: iat + ttlSeconds, jti, body })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(encoder.encode(key));
  if (token.length > MAX_TOKEN_LENGTH) {
    throw new ValidationError('url', `makes the token ${token.length} characters long; receivers accept at most ${MAX_TOKEN_LENGTH}`);
  }
  return token;
}

function readKey(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError('key', 'must be a non-empty signing key string (e.g. the current signing key, sig_...)');
  }
  return value;
}

function readUrl(value: unknown): string {
  if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) {
    throw new ValidationError(
      'url',
      `must be an absolute URL starting with http:// or https://, got ${typeof value === 'string' ? JSON.stringify(value) : typeof value}`,
    );
  }
  try {
    new URL(value);
  } catch {
    throw new ValidationError('url', `is not a valid URL: ${JSON.stringify(value)}`);
  }
  return value;
}

function readNonEmpty(path: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new ValidationError(path, 'must be a non-empty string');
  return value;
}

function readTtl(value: unknown): number {
  if (value === undefined) return DEFAULT_SIGNATURE_TTL_SECONDS;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new ValidationError('ttlSeconds', `must be a whole number of seconds > 0, got ${String(value)}`);
  }
  return value;
}

function randomJti(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return `jwt_${hex}`;
}
