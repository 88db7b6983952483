import { ValidationError } from '../errors/validation-error';
import type { SigningKeySlot, VerifierOptions } from './verifier-types';

export const DEFAULT_ISSUER = 'Service';
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 5;

export interface SigningKey {
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
  if (typeof options !== 'object' || options === null) throw new ValidationError('', 'createVerifier options must be an object');
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
