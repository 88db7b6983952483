// The shared test data: signing keys, bodies of exact sizes, the zod schema every contender
// validates with, and tokens as the real service writes them.
import { createHash, randomBytes } from 'node:crypto';
import { createTokenSigner, sign } from '@mailroom/core/internal-protocol';
import { SignJWT } from 'jose';
import { z } from 'zod';

// Shaped like the service's keys (`sig_` + base58-ish); only their UTF-8 bytes matter.
export const CURRENT_KEY = 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r';
export const NEXT_KEY = 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs';
export const ISSUER = 'Upstash';
const HEADER_PREFIX = 'Upstash';
export const PUBLIC_URL = 'https://bench.mailroom.test';

/** The receiver settings of every Mailroom route the bench measures: the service's keys, prefix and issuer, errors unlogged. */
export const MAILROOM_OPTIONS = {
  currentSigningKey: CURRENT_KEY,
  nextSigningKey: NEXT_KEY,
  headerPrefix: HEADER_PREFIX,
  issuer: ISSUER,
  publicUrl: PUBLIC_URL,
  onError: () => {},
};

export const orderSchema = z.object({
  orderId: z.string().min(1),
  customer: z.object({ id: z.string(), email: z.email(), name: z.string() }),
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive(), priceCents: z.number().int().nonnegative() })).min(1),
  currency: z.string().length(3),
  note: z.string(),
});

/** A JSON order of exactly `bytes` UTF-8 bytes (the note is padded to fit), as a Buffer. */
export function orderBody(bytes) {
  const items = [];
  const itemCount = Math.max(1, Math.floor(bytes / 1024) * 8 || 3);
  for (let i = 0; i < itemCount; i++) items.push({ sku: `SKU-${String(i).padStart(6, '0')}`, quantity: 1 + (i % 4), priceCents: 1299 + i });
  const order = {
    orderId: 'ord_01HZX3K9Q7Y2',
    customer: { id: 'cus_42', email: 'ada@example.com', name: 'Ada Lovelace' },
    items,
    currency: 'EUR',
    note: '',
  };
  const base = Buffer.byteLength(JSON.stringify(order));
  if (base > bytes) {
    // Too many items for the size: drop some until it fits, then pad.
    while (Buffer.byteLength(JSON.stringify(order)) > bytes && order.items.length > 1) order.items.pop();
  }
  order.note = 'x'.repeat(bytes - Buffer.byteLength(JSON.stringify(order)));
  const text = JSON.stringify(order);
  if (Buffer.byteLength(text) !== bytes) throw new Error(`orderBody: could not build exactly ${bytes} bytes`);
  orderSchema.parse(JSON.parse(text));
  return Buffer.from(text);
}

/** The same bytes with one character of the note changed: same length, different hash. */
export function tamper(body) {
  const copy = Buffer.from(body);
  const at = copy.lastIndexOf('x'.charCodeAt(0));
  copy[at] = 'y'.charCodeAt(0);
  return copy;
}

const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function serviceJti() {
  let out = 'jwt_';
  for (const byte of randomBytes(28)) out += base62[byte % 62];
  return out;
}

/**
 * A token as the real service writes it (its documented example payload): claims in the order
 * iss, sub, exp, nbf, iat, jti, body, and `body` as base64url(SHA-256) WITH its `=` padding
 * (44 characters). Core's `sign` writes the unpadded RFC 7515 form (43 characters); both
 * verifiers accept both, and the correctness checks prove it for each contender.
 */
export async function serviceToken({ key, url, rawBody, nowSeconds = Math.floor(Date.now() / 1000) }) {
  const body = `${createHash('sha256').update(rawBody).digest('base64url')}=`;
  const claims = { iss: ISSUER, sub: url, exp: nowSeconds + 300, nbf: nowSeconds, iat: nowSeconds, jti: serviceJti(), body };
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(key));
}

/**
 * A new token on every call, as the service signs each delivery (a receiver with an idempotency store
 * refuses one it has seen): core's synchronous signer, the one the dev server signs deliveries with.
 */
export function freshTokens({ key, url, rawBody }) {
  const sign = createTokenSigner({ key, issuer: ISSUER, now: Date.now });
  return () => sign(url, rawBody);
}

/** A token from core's own `sign` (the dev server's signer): unpadded body claim. */
function coreToken({ key, url, rawBody }) {
  return sign({ key, url, rawBody, issuer: ISSUER });
}

/**
 * Every token a measurement needs for one body and URL: `valid` (current key), `next` (signed with
 * the next key, so a verifier must fail the current key first), `tampered` (valid token, body with
 * one byte changed) and `unpadded` (core's `sign`).
 */
export async function tokenSet(rawBody, url) {
  return {
    url,
    body: rawBody,
    tamperedBody: tamper(rawBody),
    valid: await serviceToken({ key: CURRENT_KEY, url, rawBody }),
    next: await serviceToken({ key: NEXT_KEY, url, rawBody }),
    unpadded: await coreToken({ key: CURRENT_KEY, url, rawBody }),
  };
}

export function bodyClaimOf(token) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).body;
}

/** A sender's span, as a traced send forwards it with the message (W3C `traceparent`). */
export const TRACE_PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
