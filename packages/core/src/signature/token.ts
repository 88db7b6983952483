import { describeValue, ValidationError } from '../errors';
import { fail, reject, type Failure } from './claims';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

// Value of each base64url character; -1 marks "not base64url".
const SEXTETS = (() => {
  const table = new Int8Array(128).fill(-1);
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i;
  return table;
})();

function sextet(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code < 128 ? (SEXTETS[code] as number) : -1;
}

const SYNTAX = /^[A-Za-z0-9_-]*$/;

/**
 * Is `text` canonical unpadded base64url (RFC 7515 section 2)? Only the 64 URL-safe characters, no
 * `=`, no whitespace, a length that is not 1 mod 4, and zero unused low bits in the last character.
 *
 * Why strict: a lenient decoder (Buffer, atob) maps several spellings to the same bytes, which makes
 * a token malleable (a second, different string that still verifies) and would let the verifier
 * implementations disagree about what is "well formed". Every decoder here runs this check first.
 *
 * @example
 * isBase64url('aGk'); // true
 * isBase64url('aGl'); // false: non-zero trailing bits
 */
export function isBase64url(text: string): boolean {
  const remainder = text.length % 4;
  if (remainder === 1 || !SYNTAX.test(text)) return false;
  if (remainder === 0) return true;
  const last = sextet(text, text.length - 1);
  return (last & (remainder === 2 ? 0x0f : 0x03)) === 0;
}

/** Turns one segment of a token into bytes, or `undefined` when it is not canonical base64url. */
export type SegmentDecoder = (segment: string) => Uint8Array | undefined;

/**
 * Decodes canonical unpadded base64url (see isBase64url), `undefined` for anything else. Plain JS,
 * for runtimes without Buffer; the node verifier swaps in Buffer behind the same check.
 *
 * @example
 * decodeBase64url('aGk'); // Uint8Array [104, 105]
 */
export const decodeBase64url: SegmentDecoder = (text) => (isBase64url(text) ? decodeChecked(text) : undefined);

function decodeChecked(text: string): Uint8Array {
  const out = new Uint8Array((text.length * 3) >>> 2);
  const remainder = text.length % 4;
  const whole = text.length - remainder;
  let o = 0;
  for (let i = 0; i < whole; i += 4) {
    const n = (sextet(text, i) << 18) | (sextet(text, i + 1) << 12) | (sextet(text, i + 2) << 6) | sextet(text, i + 3);
    out[o++] = n >>> 16;
    out[o++] = (n >>> 8) & 0xff;
    out[o++] = n & 0xff;
  }
  if (remainder === 0) return out;
  const a = sextet(text, whole);
  const b = sextet(text, whole + 1);
  out[o++] = (a << 2) | (b >>> 4);
  if (remainder === 3) out[o] = ((b & 0x0f) << 4) | (sextet(text, whole + 2) >>> 2);
  return out;
}

/**
 * Encodes bytes as unpadded base64url, the JWS spelling. Plain JS so it runs on every runtime.
 *
 * @example
 * encodeBase64url(new Uint8Array([104, 105])); // 'aGk'
 */
export function encodeBase64url(bytes: Uint8Array): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = (bytes[i] as number) << 16;
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]!;
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8);
    out += ALPHABET[n >>> 18]! + ALPHABET[(n >>> 12) & 63]! + ALPHABET[(n >>> 6) & 63]!;
  }
  return out;
}

/**
 * Compares two strings without an early exit, so the time taken does not reveal how long a prefix
 * matched. Both verifiers compare base64url strings of digests with it (43 ASCII characters).
 *
 * Why not node's `timingSafeEqual`: it needs Buffers, and decoding both digests into Buffers for it
 * costs more than the comparison itself. This loop does the same work whatever the contents. The length is not secret (a SHA-256 is always 43 characters
 * here), so a length mismatch returns at once.
 *
 * @example
 * constantTimeEqual('abc', 'abc'); // true
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

const UNPADDED_LENGTH = 43; // base64url of a 32-byte SHA-256 digest
const EQUALS = 61;

/**
 * Does the `body` claim name this digest? `expected` is the canonical unpadded base64url of the
 * SHA-256 of the received body. Both spellings of the claim are accepted: unpadded (43 characters,
 * RFC 7515, what `sign` writes) and padded with its single `=` (44 characters). Any other spelling,
 * including a non-canonical one, cannot equal the canonical string and so does not match.
 */
export function bodyClaimMatches(claim: string, expected: string): boolean {
  const unpadded =
    claim.length === UNPADDED_LENGTH + 1 && claim.charCodeAt(UNPADDED_LENGTH) === EQUALS ? claim.slice(0, UNPADDED_LENGTH) : claim;
  return constantTimeEqual(unpadded, expected);
}

export const BODY_MISMATCH: Failure = fail(
  'body-hash',
  'the "body" claim does not match SHA-256 of the received body; verify the exact bytes received, never re-serialised JSON',
);

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

/**
 * Reads the injected clock (Unix milliseconds, like `Date.now`) as whole Unix seconds, the unit of
 * `iat`/`nbf`/`exp`. Flooring matches jose, so both verifier implementations see the same "now".
 * A clock returning garbage is a configuration bug, hence a ValidationError and not a 401.
 */
export function readClockSeconds(now: () => number): number {
  let milliseconds: unknown;
  try {
    milliseconds = now();
  } catch (cause) {
    throw new ValidationError('now', 'the clock function threw', { cause });
  }
  if (typeof milliseconds !== 'number' || !Number.isFinite(milliseconds)) {
    throw new ValidationError('now', `the clock must return Unix milliseconds (like Date.now()), got ${String(milliseconds)}`);
  }
  return Math.floor(milliseconds / 1000);
}

/**
 * base64url of `{"alg":"HS256","typ":"JWT"}`, the header every signer we know of (the real service,
 * jose, `sign`) writes. Recognising it by string equality skips decoding and parsing on the hot path;
 * any other spelling goes through the full checks below.
 */
const STANDARD_HEADER_SEGMENT = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9';

/**
 * Accepts only a plain HS256 JWS header. Rejected, all as `algorithm`:
 * - `alg` missing, or anything but exactly `HS256` (`none`, `HS512`, `RS256`, `hs256`, ...);
 * - `crit`, whatever its value: we implement no extension, so a token that demands one is refused
 *   (jose would accept `crit: ["b64"]` and then verify an unencoded payload);
 * - `b64`, even without `crit`, so no reader can mistake the payload encoding;
 * - `typ` other than exactly `JWT` (it may be absent).
 * Other parameters (`kid`, `cty`, `jku`, `x5u`, ...) are ignored: keys come from configuration, never
 * from the token, so nothing in the header can pick or supply one.
 */
function checkHeader(header: Readonly<Record<string, unknown>>): void {
  if (!Object.hasOwn(header, 'alg')) reject('algorithm', 'the token header has no "alg"; only HS256 is accepted');
  if (header.alg !== 'HS256') reject('algorithm', `the token header has "alg" ${describeValue(header.alg)}; only HS256 is accepted`);
  if (Object.hasOwn(header, 'crit')) reject('algorithm', 'the token header has "crit"; no JWS extension is supported');
  if (Object.hasOwn(header, 'b64')) reject('algorithm', 'the token header has "b64"; only base64url-encoded payloads are accepted');
  if (Object.hasOwn(header, 'typ') && header.typ !== 'JWT') {
    reject('algorithm', `the token header has "typ" ${describeValue(header.typ)}; expected "JWT" or none`);
  }
}

/**
 * Longest token accepted, in characters. Ours are a few hundred characters plus the destination URL;
 * the bound keeps a hostile header from costing decoding and hashing time. `sign` refuses to produce
 * a longer token, so the two sides agree.
 */
export const MAX_TOKEN_LENGTH = 8192;

/** The longest issuer the URL bound below allows for (the real service's is `Upstash`). */
export const MAX_ISSUER_LENGTH = 64;

/** Bytes the claims may take so that header, claims and signature fit MAX_TOKEN_LENGTH. */
const MAX_CLAIMS_BYTES = Math.floor(((MAX_TOKEN_LENGTH - STANDARD_HEADER_SEGMENT.length - 2 - 43) * 3) / 4);
const encoder = new TextEncoder();
// Every claim but the URL at its widest: a long issuer, ten-digit times, a full jti and body hash.
const CLAIMS_WITHOUT_URL = encoder.encode(
  JSON.stringify({
    iss: 'x'.repeat(MAX_ISSUER_LENGTH),
    sub: '',
    iat: 9e9,
    nbf: 9e9,
    exp: 9e9,
    jti: `jwt_${'0'.repeat(32)}`,
    body: 'x'.repeat(43),
  }),
).length;

/**
 * The most bytes a URL may take inside a signature's claims (JSON-escaped, UTF-8): a destination or
 * callback URL longer than this would be signed into a token receivers refuse, so it is refused
 * before it is enqueued, by the client and by the dev server alike.
 */
export const MAX_SIGNED_URL_BYTES = MAX_CLAIMS_BYTES - CLAIMS_WITHOUT_URL;

/** Why `url` cannot be signed into a token receivers accept, or `undefined` when it can. */
export function unsignableUrl(url: string): string | undefined {
  const bytes = encoder.encode(JSON.stringify(url)).length - 2;
  if (bytes <= MAX_SIGNED_URL_BYTES) return undefined;
  return `is ${bytes} bytes long; a URL the service signs may take at most ${MAX_SIGNED_URL_BYTES}, so that its signature stays within the ${MAX_TOKEN_LENGTH} characters receivers accept`;
}

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

/** SHA-256 of the exact bytes; a string is hashed as its UTF-8 encoding. */
export async function sha256(data: Uint8Array | string): Promise<Uint8Array> {
  const bytes = typeof data === 'string' ? encoder.encode(data) : data;
  // Web Crypto refuses views of a SharedArrayBuffer (a TypeError), which node:crypto hashes fine;
  // a copy keeps both verifier implementations on the same verdict for the same bytes.
  const digestible = bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice();
  return new Uint8Array(await crypto.subtle.digest('SHA-256', digestible));
}
