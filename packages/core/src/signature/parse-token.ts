import { decodeBase64url, isBase64url, type SegmentDecoder } from './base64url';
import { reject } from './failure';
import { STANDARD_HEADER_SEGMENT, checkHeader } from './token-header';

/**
 * Longest token accepted, in characters. Ours are a few hundred characters plus the destination URL;
 * the bound keeps a hostile header from costing decoding and hashing time. `sign` refuses to produce
 * a longer token, so the two sides agree.
 */
export const MAX_TOKEN_LENGTH = 8192;

/** A token whose shape and header passed; nothing about keys, times or claims is known yet. */
export interface ParsedToken {
  readonly compact: string;
  /** `<header>.<payload>`, the bytes the HMAC covers. */
  readonly signingInput: string;
  readonly payload: Readonly<Record<string, unknown>>;
  /** The signature segment, checked to be canonical base64url, so comparing it as a string is exact. */
  readonly signature: string;
}

// BOM kept (ignoreBOM) so JSON.parse rejects it: a signer never writes one, and jose would silently
// strip it, so rejecting here is the stricter of the two readings. `fatal` rejects invalid UTF-8.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Checks everything that does not depend on a key, shared by both implementations so they cannot
 * disagree on it: a string of at most MAX_TOKEN_LENGTH characters, exactly three segments, strict
 * base64url in each (see isBase64url), a header and a payload that are UTF-8 JSON objects, and a
 * plain HS256 header (see checkHeader). Throws SignatureError `malformed` or `algorithm`. `decode`
 * lets the node verifier use Buffer; every decoder enforces the same strict base64url.
 *
 * @example
 * parseToken('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.e30.c2ln').payload; // {}
 */
export function parseToken(token: unknown, decode: SegmentDecoder = decodeBase64url): ParsedToken {
  if (typeof token !== 'string') reject('malformed', `the signature header must be a string, got ${typeof token}`);
  if (token.length > MAX_TOKEN_LENGTH) {
    reject('malformed', `the token is ${token.length} characters long; at most ${MAX_TOKEN_LENGTH} are accepted`);
  }
  const firstDot = token.indexOf('.');
  const secondDot = firstDot < 0 ? -1 : token.indexOf('.', firstDot + 1);
  if (secondDot < 0 || token.indexOf('.', secondDot + 1) >= 0) {
    reject('malformed', 'the token must be a compact JWS: three base64url segments separated by dots');
  }
  const headerSegment = token.slice(0, firstDot);
  if (headerSegment !== STANDARD_HEADER_SEGMENT) checkHeader(decodeJsonObject(decode(headerSegment), 'header'));
  const payload = decodeJsonObject(decode(token.slice(firstDot + 1, secondDot)), 'payload');
  const signature = token.slice(secondDot + 1);
  if (!isBase64url(signature)) reject('malformed', 'the token signature segment is not base64url');
  return { compact: token, signingInput: token.slice(0, secondDot), payload, signature };
}

function decodeJsonObject(bytes: Uint8Array | undefined, name: string): Record<string, unknown> {
  if (bytes === undefined) reject('malformed', `the token ${name} is not base64url`);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    reject('malformed', `the token ${name} is not UTF-8 JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    reject('malformed', `the token ${name} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}
