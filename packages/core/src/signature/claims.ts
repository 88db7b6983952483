// The lowest layer of signature checking: the claims and their checks, the failure vocabulary, and
// the verifier's settings. Both implementations (node.ts, web.ts) build on it; verifier.ts picks one.

import { expectObject, describeValue, SignatureError, ValidationError, type SignatureFailure } from '../errors';

/** The claims of a verified `<Prefix>-Signature` token. Times are Unix seconds. */
export interface SignatureClaims {
  /** Issuer: the configured `issuer` (`Service` by default, `Upstash` on the real service). */
  readonly iss: string;
  /** Subject: the destination URL the service delivered to. */
  readonly sub: string;
  readonly iat: number;
  readonly nbf: number;
  readonly exp: number;
  /** Token id (`jwt_...`); usable to spot a replayed delivery. */
  readonly jti: string;
  /** base64url(SHA-256(raw body)), exactly as it appeared in the token (padded or not). */
  readonly body: string;
}

/** Which configured key produced the signature. */
export type SigningKeySlot = 'current' | 'next';

/** What `verify` returns when every check passed. */
export interface VerifiedSignature {
  readonly claims: SignatureClaims;
  readonly key: SigningKeySlot;
}

/** One inbound request, as far as the signature is concerned. */
export interface VerifyInput {
  /** The `<Prefix>-Signature` header value. Anything but a non-empty string is rejected. */
  readonly signature: unknown;
  /** The exact bytes received (a string is hashed as UTF-8). Never re-serialised JSON. */
  readonly rawBody: Uint8Array | string;
  /**
   * The URL the service was asked to deliver to. When given, the `sub` claim must equal it exactly
   * (no trailing-slash, case or query normalisation). When omitted the subject is not checked.
   */
  readonly url?: string;
}

/** Which code path verifies: node:crypto (synchronous, fast) or jose over Web Crypto (any runtime). */
export type VerifierImplementation = 'node' | 'webcrypto';

export interface VerifierOptions {
  /** The current signing key (`sig_...`). Empty or absent counts as "not configured". */
  readonly currentSigningKey?: string | undefined;
  /** The next signing key, tried when the current one does not match (key rotation). */
  readonly nextSigningKey?: string | undefined;
  /** Expected `iss` claim. Default `Service`; the real service uses `Upstash`. */
  readonly issuer?: string | undefined;
  /**
   * Seconds of clock skew allowed on `nbf`, `iat` and `exp`. Default 5: tokens carry `nbf = iat =`
   * the signing second, so a receiver whose clock runs even one second behind the service would
   * otherwise reject fresh deliveries as "not yet valid".
   */
  readonly clockToleranceSeconds?: number | undefined;
  /** Clock in Unix milliseconds, like `Date.now` (the default). Injected by tests. */
  readonly now?: (() => number) | undefined;
  /**
   * `auto` (default) uses node:crypto when the runtime offers it (Node, Bun, Deno) and jose over Web
   * Crypto otherwise (edge, workers). Both give the same verdict on every input.
   */
  readonly implementation?: 'auto' | VerifierImplementation | undefined;
}

export interface Verifier {
  /** The implementation `auto` chose, for logs and tests. */
  readonly implementation: VerifierImplementation;
  /**
   * Resolves with the claims and the matching key, or rejects with a `SignatureError` whose `reason`
   * names the failed check. It never rejects with anything else, whatever the input.
   */
  verify(input: VerifyInput): Promise<VerifiedSignature>;
}

/** The node:crypto verifier also verifies synchronously, saving the promise on hot paths. */
export interface NodeVerifier extends Verifier {
  readonly implementation: 'node';
  /** Same checks and errors as `verify`, thrown synchronously. */
  verifySync(input: VerifyInput): VerifiedSignature;
}

/**
 * A failed check, as a value rather than an exception: the key loop collects one per key and only
 * then decides which to report.
 */
export interface Failure {
  readonly reason: SignatureFailure;
  readonly detail: string;
}

export interface Attempt extends Failure {
  readonly key: SigningKeySlot;
}

export function fail(reason: SignatureFailure, detail: string): Failure {
  return { reason, detail };
}

export function isFailure(value: unknown): value is Failure {
  return typeof value === 'object' && value !== null && 'reason' in value && 'detail' in value;
}

/** Throws a failure that no key could change (no key, missing or malformed token, wrong algorithm). */
export function reject(reason: SignatureFailure, detail: string): never {
  throw rejection(reason, `Signature rejected (${reason}): ${detail}`);
}

/**
 * A SignatureError without a stack trace. A rejected signature is an expected outcome (a stale,
 * forged or misrouted request, possibly a flood of them), not a bug to trace: `reason`, the message
 * and `attempts` say everything, and the frames would only point into this verifier. Capturing them
 * would make a flood of bad requests cost several times as many good ones.
 */
function rejection(reason: SignatureFailure, message: string, attempts?: readonly Attempt[]): SignatureError {
  const limit = Error.stackTraceLimit;
  setStackTraceLimit(0);
  try {
    return new SignatureError(reason, message, attempts);
  } finally {
    setStackTraceLimit(limit);
  }
}

function setStackTraceLimit(limit: number): void {
  try {
    Error.stackTraceLimit = limit;
  } catch {
    // Frozen intrinsics (a hardened runtime): the error keeps its stack, nothing else changes.
  }
}

const KEY_NAMES: Record<SigningKeySlot, string> = { current: 'current key', next: 'next key' };

/**
 * Builds the error after every configured key failed. A key whose signature matched got further
 * than a key whose signature did not, so its reason is the informative one: "current key: bad
 * signature, next key: expired" is an expired token, not a forged one. The reasons of all keys stay
 * in `attempts` for logs.
 */
export function rejectAttempts(attempts: readonly Attempt[], hint: string): never {
  throw attemptsError(attempts, hint);
}

/** The error {@link rejectAttempts} throws, returned instead, for callers that reject without throwing. */
export function attemptsError(attempts: readonly Attempt[], hint: string): SignatureError {
  const chosen = attempts.find((attempt) => attempt.reason !== 'bad-signature') ?? attempts[0];
  if (chosen === undefined) return rejection('no-key', 'Signature rejected (no-key): no signing key was tried');
  const summary = attempts.map((attempt) => `${KEY_NAMES[attempt.key]}: ${attempt.reason}`).join('; ');
  const advice = chosen.reason === 'bad-signature' ? hint : '';
  return rejection(chosen.reason, `Signature rejected (${chosen.reason}): ${chosen.detail} [${summary}]${advice}`, attempts);
}

/**
 * The last line of defence of `verify`: whatever went wrong, the caller sees a SignatureError (a 401)
 * or a ValidationError (our configuration), never a TypeError from deep inside a parser. The message
 * names only the error class, so nothing secret can leak through it.
 */
export function toVerifyError(error: unknown): Error {
  if (error instanceof SignatureError || error instanceof ValidationError) return error;
  const name = error instanceof Error ? error.name : typeof error;
  return new SignatureError('malformed', `Signature rejected (malformed): the token could not be verified (${name})`);
}

export interface ClaimExpectations {
  readonly issuer: string;
  readonly url: string | undefined;
  readonly nowSeconds: number;
  readonly toleranceSeconds: number;
}

const STRING_CLAIMS = ['iss', 'sub', 'jti', 'body'] as const;
const TIME_CLAIMS = ['iat', 'nbf', 'exp'] as const;

/**
 * Checks the claims of a token whose signature already matched, in a fixed order shared by both
 * implementations: types, issuer, subject, not-before, expiry. The first failure wins.
 *
 * Stricter than jose on purpose (jose's checks still run in the Web Crypto path, as a second
 * opinion, and never accept what this rejects):
 * - all seven claims are required; jose treats `iat`/`nbf`/`exp`/`jti`/`body` as optional;
 * - `iat`/`nbf`/`exp` must be non-negative safe integers; jose accepts any number, so `exp: 1e400`
 *   (Infinity after JSON.parse) would never expire and `exp: 1.5` would be compared as a float;
 * - an `iat` later than now + tolerance is `not-yet-valid`; jose ignores `iat` without maxTokenAge.
 * Time comparisons are jose's: expired when `exp <= now - tolerance` (so a token is already expired
 * at its `exp` second, as RFC 7519 says), not yet valid when `nbf > now + tolerance`.
 * `sub` is compared to the URL exactly: no trailing-slash, case or query normalisation, because the
 * service signs the URL it was given and any "equivalent" URL is a different destination.
 */
export function checkClaims(payload: Readonly<Record<string, unknown>>, expected: ClaimExpectations): SignatureClaims | Failure {
  for (const name of STRING_CLAIMS) {
    if (typeof payload[name] !== 'string')
      return fail('claims', `the "${name}" claim must be a string, got ${describeValue(payload[name])}`);
  }
  for (const name of TIME_CLAIMS) {
    const value = payload[name];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
      return fail('claims', `the "${name}" claim must be a whole number of Unix seconds, got ${describeValue(value)}`);
    }
  }
  const claims = payload as unknown as SignatureClaims;
  const { nowSeconds, toleranceSeconds } = expected;
  if (claims.iss !== expected.issuer) {
    return fail(
      'issuer',
      `the token was issued by ${describeValue(claims.iss)}, expected ${describeValue(expected.issuer)}; set the "issuer" option to match the service`,
    );
  }
  if (expected.url !== undefined && claims.sub !== expected.url) {
    return fail('subject', `the token was signed for ${describeValue(claims.sub)}, but this request is for ${describeValue(expected.url)}`);
  }
  if (claims.nbf > nowSeconds + toleranceSeconds) {
    return fail(
      'not-yet-valid',
      `the token is not valid before ${claims.nbf} (now ${nowSeconds}, tolerance ${toleranceSeconds} s); check the server clock`,
    );
  }
  if (claims.iat > nowSeconds + toleranceSeconds) {
    return fail(
      'not-yet-valid',
      `the token claims to be issued at ${claims.iat}, in the future (now ${nowSeconds}, tolerance ${toleranceSeconds} s); check the server clock`,
    );
  }
  if (claims.exp <= nowSeconds - toleranceSeconds) {
    return fail('expired', `the token expired at ${claims.exp} (now ${nowSeconds}, tolerance ${toleranceSeconds} s)`);
  }
  return { iss: claims.iss, sub: claims.sub, iat: claims.iat, nbf: claims.nbf, exp: claims.exp, jti: claims.jti, body: claims.body };
}

export const DEFAULT_ISSUER = 'Service';
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;

interface SigningKey {
  readonly slot: SigningKeySlot;
  readonly secret: string;
}

/** Validated options, with defaults applied. */
export interface VerifierConfig {
  /** Current first, then next; empty when no key is configured (every verify is then `no-key`). */
  readonly keys: readonly SigningKey[];
  readonly issuer: string;
  readonly toleranceSeconds: number;
  readonly now: () => number;
  readonly implementation: 'auto' | 'node' | 'webcrypto';
  /** Appended to a `bad-signature` message: the usual causes, never the key itself. */
  readonly badSignatureHint: string;
}

const IMPLEMENTATIONS = new Set(['auto', 'node', 'webcrypto']);

/**
 * Validates `createVerifier` options. A missing key is not an error here: the receiver still starts,
 * and every verify fails with `no-key`, which the pipeline answers with a clear 500.
 */
export function resolveVerifierConfig(options: unknown): VerifierConfig {
  expectObject(options, '', 'an object of createVerifier options');
  const input = options as VerifierOptions;
  const keys = [readKey(input.currentSigningKey, 'current'), readKey(input.nextSigningKey, 'next')].filter(
    (key): key is SigningKey => key !== undefined,
  );
  // The same key twice (common before the first rotation) would only double the work of a failure.
  const distinct = keys.filter((key, index) => keys.findIndex((other) => other.secret === key.secret) === index);
  return {
    keys: distinct,
    issuer: readIssuer(input.issuer),
    toleranceSeconds: readTolerance(input.clockToleranceSeconds),
    now: readNow(input.now),
    implementation: readImplementation(input.implementation),
    badSignatureHint: badSignatureHint(distinct),
  };
}

function readKey(value: unknown, slot: SigningKeySlot): SigningKey | undefined {
  const path = slot === 'current' ? 'currentSigningKey' : 'nextSigningKey';
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new ValidationError(path, `must be a string, got ${typeof value}`);
  return { slot, secret: value };
}

function readIssuer(value: unknown): string {
  if (value === undefined) return DEFAULT_ISSUER;
  if (typeof value !== 'string' || value === '') throw new ValidationError('issuer', 'must be a non-empty string such as "Upstash"');
  return value;
}

function readTolerance(value: unknown): number {
  if (value === undefined) return DEFAULT_CLOCK_TOLERANCE_SECONDS;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new ValidationError('clockToleranceSeconds', `must be a finite number of seconds >= 0, got ${String(value)}`);
  }
  return value;
}

function readNow(value: unknown): () => number {
  if (value === undefined) return Date.now;
  if (typeof value !== 'function') throw new ValidationError('now', 'must be a function returning Unix milliseconds, like Date.now');
  return value as () => number;
}

function readImplementation(value: unknown): VerifierConfig['implementation'] {
  if (value === undefined) return 'auto';
  if (typeof value !== 'string' || !IMPLEMENTATIONS.has(value)) {
    throw new ValidationError('implementation', `must be "auto", "node" or "webcrypto", got ${String(value)}`);
  }
  return value as VerifierConfig['implementation'];
}

function badSignatureHint(keys: readonly SigningKey[]): string {
  const padded = keys.filter((key) => key.secret.trim() !== key.secret).map((key) => `the ${key.slot} key`);
  const whitespace = padded.length > 0 ? ` Note: ${padded.join(' and ')} starts or ends with whitespace, which is part of the key.` : '';
  return ` Check that currentSigningKey/nextSigningKey (MAILROOM_CURRENT_SIGNING_KEY/MAILROOM_NEXT_SIGNING_KEY) are the service's signing keys.${whitespace}`;
}

export interface VerifyRequest {
  readonly signature: unknown;
  readonly rawBody: Uint8Array | string;
  readonly url: string | undefined;
}

/**
 * The checks that come before the token is even read, shared by both implementations. `no-key` goes
 * first: without a key every request fails, and that is the server's fault, not the caller's.
 */
export function readVerifyInput(input: unknown, config: VerifierConfig): VerifyRequest {
  if (config.keys.length === 0) {
    reject(
      'no-key',
      'no signing key is configured; set currentSigningKey and nextSigningKey (MAILROOM_CURRENT_SIGNING_KEY, MAILROOM_NEXT_SIGNING_KEY)',
    );
  }
  if (typeof input !== 'object' || input === null) reject('missing', 'verify() needs { signature, rawBody }');
  const { signature, rawBody, url } = input as Partial<VerifyRequest>;
  if (signature === undefined || signature === null || signature === '') reject('missing', 'the request carries no signature header');
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    reject('body-hash', `rawBody must be the received bytes (a Uint8Array or a string), got ${rawBody === null ? 'null' : typeof rawBody}`);
  }
  if (url !== undefined && typeof url !== 'string') reject('subject', `url must be a string, got ${url === null ? 'null' : typeof url}`);
  return { signature, rawBody, url };
}
