import { SignatureError, type SignatureFailure } from '../errors/signature-error';
import { ValidationError } from '../errors/validation-error';
import type { SigningKeySlot } from './verifier-types';

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
 * was over a third of the cost of a rejection (profiled, 1 KiB body: about 9 of 25 µs), so a bad
 * request cost three times a good one.
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
