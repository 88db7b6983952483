// `@mailroom/core/testing`: requests signed exactly as the service signs them, for users' tests.

import { ENV_VARIABLES, optionalSetting, processEnvironment, resolveHeaderPrefix, type Environment } from './config';
import { expectObject, ValidationError } from './errors';
import { headerNames } from './wire';
import { DEFAULT_SIGNATURE_TTL_SECONDS, sign } from './signature';

/** A delivery to simulate: what the service would send to `url`, and how to spoil it. */
export interface SignRequestOptions {
  /** The destination URL the token is made for (its `sub`). */
  url: string;
  /** The body: bytes and strings are sent as they are; anything else as JSON. */
  body?: unknown;
  /** Sign with this key. Default: `signWith` picks from the keys below or the `MAILROOM_*` variables. */
  key?: string;
  currentSigningKey?: string;
  nextSigningKey?: string;
  /** Which configured key signs. Default `current`. */
  signWith?: 'current' | 'next';
  /** Default `Service`. */
  issuer?: string;
  /** Default `Service` (or `MAILROOM_HEADER_PREFIX`). */
  headerPrefix?: string;
  /** Clock in Unix milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Make the token expired by this many seconds (default when `true`: 60). */
  expired?: boolean | number;
  /** Make the token valid only this many seconds from now (default when `true`: 60). */
  notYetValid?: boolean | number;
  /** Sign a different body than the one sent, as an attacker changing one byte would. */
  tampered?: boolean;
  /** Sign for another URL than `url`. */
  signedUrl?: string;
  messageId?: string;
  /**
   * The token's `jti` (default: a new random one). A receiver with an idempotency store refuses a
   * token it has seen, as a replay: give two deliveries the same id to test that.
   */
  tokenId?: string;
  retried?: number;
  /** Default `application/json` for JSON bodies, none otherwise. */
  contentType?: string;
  /** Forwarded headers, as the destination receives them. */
  headers?: Record<string, string>;
  env?: Environment;
}

/** The headers and exact body bytes of a simulated delivery. */
export interface SignedDelivery {
  headers: Record<string, string>;
  /** The exact bytes that were signed for. */
  body: Uint8Array;
  /**
   * The body as UTF-8 text, for clients that would re-encode bytes: supertest/superagent serialises
   * a Buffer with a JSON content type as `{"type":"Buffer",...}`, so send `text` with them.
   */
  text: string;
}

const encoder = new TextEncoder();

/**
 * The headers a real delivery to `url` would carry, signed like the service signs, so you can test
 * your own handlers with valid and invalid signatures.
 *
 * @example
 * const { headers, text } = await signRequest({ url: 'http://localhost/api/orders', body: { id: 1 }, key: 'sig_test' });
 * await request(app).post('/api/orders').set(headers).send(text);
 */
export async function signRequest(options: SignRequestOptions): Promise<SignedDelivery> {
  expectObject(options, 'options', '{ url, body, key, ... }');
  const env = options.env ?? processEnvironment();
  const prefix = resolveHeaderPrefix(options.headerPrefix, env);
  const { bytes, json } = encodeBody(options.body);
  const key = pickKey(options, env);
  const now = options.now ?? Date.now;
  const shift = options.expired
    ? -(DEFAULT_SIGNATURE_TTL_SECONDS + seconds(options.expired))
    : options.notYetValid
      ? seconds(options.notYetValid)
      : 0;
  const signedBody = options.tampered ? flipLastByte(bytes) : bytes;
  const token = await sign({
    key,
    url: options.signedUrl ?? options.url,
    rawBody: signedBody,
    issuer: options.issuer,
    jti: options.tokenId,
    now: () => now() + shift * 1000,
  });
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  const contentType = options.contentType ?? (json ? 'application/json' : undefined);
  if (contentType) headers['content-type'] = contentType;
  const names = headerNames(prefix);
  headers[names.signature] = token;
  headers[names.messageId] = options.messageId ?? `msg_test_${Math.floor(now()).toString(36)}`;
  headers[names.retried] = String(options.retried ?? 0);
  return { headers, body: bytes, text: new TextDecoder().decode(bytes) };
}

/** Like {@link signRequest}, as a Web `Request` ready for `receiver.fetch` or a Next.js route handler. */
export async function createSignedRequest(options: SignRequestOptions & { method?: string }): Promise<Request> {
  const { headers, body } = await signRequest(options);
  const method = options.method ?? 'POST';
  return new Request(options.url, { method, headers, ...(method === 'GET' || method === 'HEAD' ? {} : { body }) });
}

function encodeBody(body: unknown): { bytes: Uint8Array; json: boolean } {
  if (body === undefined) return { bytes: new Uint8Array(0), json: false };
  if (body instanceof Uint8Array) return { bytes: body, json: false };
  if (typeof body === 'string') return { bytes: encoder.encode(body), json: false };
  return { bytes: encoder.encode(JSON.stringify(body)), json: true };
}

function pickKey(options: SignRequestOptions, env: Environment): string {
  if (options.key !== undefined) return options.key;
  const slot = options.signWith ?? 'current';
  const key =
    slot === 'next'
      ? optionalSetting('nextSigningKey', options.nextSigningKey, env)
      : optionalSetting('currentSigningKey', options.currentSigningKey, env);
  if (key === undefined) {
    const variable = slot === 'next' ? ENV_VARIABLES.nextSigningKey : ENV_VARIABLES.currentSigningKey;
    throw new ValidationError('key', `no ${slot} signing key: pass { key } or { ${slot}SigningKey }, or set ${variable}`);
  }
  return key;
}

function seconds(value: boolean | number): number {
  return value === true ? 60 : Number(value);
}

function flipLastByte(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 0) return encoder.encode(' ');
  const copy = bytes.slice();
  copy[copy.length - 1] = copy[copy.length - 1]! ^ 0x01;
  return copy;
}
