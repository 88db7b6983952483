// Builds tokens independently of src/signature (straight from node:crypto), so a bug in the code
// under test cannot hide in a test helper that shares it.
import { createHash, createHmac } from 'node:crypto';

export const CURRENT_KEY = 'sig_7kYjw48mNvVvVYsSx9zGmhiHbnMW';
export const NEXT_KEY = 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs';
export const OTHER_KEY = 'sig_3nMLMgSwhtAbi8yqB4jv7ZxXxK2e';
export const URL = 'https://example.com/api/webhooks/mailroom';
export const BODY = '{"orderId":"1234","total":42.5,"items":["a","b"]}';
/** Unix seconds of the fixed test clock. */
export const NOW = 1_700_000_000;

export const b64url = (data: string | Uint8Array): string => Buffer.from(data).toString('base64url');

/** base64url(SHA-256(body)), unpadded. */
export function hashBody(body: string | Uint8Array, padded = false): string {
  return createHash('sha256')
    .update(body)
    .digest(padded ? 'base64' : 'base64url')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

export function validClaims(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { iss: 'Service', sub: URL, iat: NOW, nbf: NOW, exp: NOW + 300, jti: 'jwt_test', body: hashBody(BODY), ...overrides };
}

export interface ForgeOptions {
  /** Header object, or raw header JSON text when a string. */
  readonly header?: Record<string, unknown> | string;
  /** Claims object (missing keys: pass `undefined` values to drop), or raw payload text when a string. */
  readonly payload?: Record<string, unknown> | string;
  readonly key?: string;
  /** HMAC hash; 'sha512' for an HS512 token. */
  readonly hmac?: 'sha256' | 'sha512';
  /** Replaces the computed signature segment. */
  readonly signature?: string;
}

/** A compact JWS: header and payload are JSON.stringify'd unless given as text. */
export function forgeToken(options: ForgeOptions = {}): string {
  const header = options.header ?? { alg: 'HS256', typ: 'JWT' };
  const payload = options.payload ?? validClaims();
  const encodedHeader = b64url(typeof header === 'string' ? header : JSON.stringify(header));
  const encodedPayload = b64url(typeof payload === 'string' ? payload : JSON.stringify(payload));
  const signingInput = `${encodedHeader}.${encodedPayload}`;
  const signature = options.signature ?? hmacSegment(signingInput, options.key ?? CURRENT_KEY, options.hmac ?? 'sha256');
  return `${signingInput}.${signature}`;
}

export function hmacSegment(signingInput: string, key: string, hash: 'sha256' | 'sha512' = 'sha256'): string {
  return createHmac(hash, Buffer.from(key, 'utf8')).update(signingInput).digest('base64url');
}
