import { type DestinationDefinition, ValidationError } from '@mailroom/core';
import { parseDuration } from '@mailroom/core/protocol';
import type { Duration } from '@mailroom/core';

// Faults on demand: what the real service does now and then, or what cannot be made to happen
// against it, made to happen in a test. Each is scoped (a destination, a URL, or everything), may be
// limited to a number of times, and counts how often it applied.

/** Which deliveries a fault applies to: a destination (by its path), a URL or path, or all of them. */
export type FaultTarget = DestinationDefinition | string;

/** A fault in force. */
export interface Fault {
  /** How many times it applied so far. */
  readonly count: number;
  /** Stops it applying. */
  remove(): void;
}

/** Which deliveries, and how many times (default: every time until removed). */
export interface FaultScope {
  to?: FaultTarget;
  times?: number;
}

/** The faults a test can turn on. */
export interface Faults {
  /**
   * Delivers each matching message twice (the service delivers at least once): both attempts carry
   * the same message id, so the receiver's idempotency is what makes the second one harmless.
   */
  duplicate(scope?: FaultScope): Fault;
  /**
   * The app's handler runs, but its answer is lost on the way back (as after a timeout): the service
   * counts a failed attempt and retries it.
   */
  loseAnswer(scope?: FaultScope): Fault;
  /**
   * The service answers the next calls of the code under test (sending, management) with `status`
   * (429 by default, or 503) and `Retry-After: retryAfter` (1 second by default).
   */
  throttle(options?: { status?: 429 | 503; retryAfter?: Duration; times?: number }): Fault;
  /**
   * Deliveries are signed by a clock `by` off the service's (`'-10m'` or `-600`: a token already expired
   * when it arrives; `'10m'`: not valid yet), to test what the receiver does with either.
   */
  skewClock(options: { by: Duration | `-${string}`; to?: FaultTarget; times?: number }): Fault;
  /** Removes every fault. */
  clear(): void;
}

interface Rule {
  kind: 'duplicate' | 'loseAnswer' | 'throttle' | 'skewClock';
  matches: (url: string) => boolean;
  remaining: number;
  count: number;
  status?: number;
  retryAfterSeconds?: number;
  skewMs?: number;
}

/** The faults in force, and the questions the service's edges ask of them. */
export interface FaultTable extends Faults {
  /** Whether a delivery to `url` is duplicated / loses its answer (counted when it is). */
  take(kind: 'duplicate' | 'loseAnswer', url: string): boolean;
  /** A throttling answer for the next call, if one is in force. */
  throttled(): { status: number; retryAfterSeconds: number } | undefined;
  /** The skew for a token signed for `url` now, in milliseconds. */
  skew(url: string): number;
}

export function createFaultTable(): FaultTable {
  const rules: Rule[] = [];

  const add = (rule: Omit<Rule, 'count'>): Fault => {
    const kept: Rule = { ...rule, count: 0 };
    rules.push(kept);
    return {
      get count() {
        return kept.count;
      },
      remove() {
        const at = rules.indexOf(kept);
        if (at !== -1) rules.splice(at, 1);
      },
    };
  };
  const apply = (kind: Rule['kind'], url: string | undefined): Rule | undefined => {
    const rule = rules.find(
      (candidate) => candidate.kind === kind && candidate.remaining > 0 && (url === undefined || candidate.matches(url)),
    );
    if (!rule) return undefined;
    rule.remaining--;
    rule.count++;
    return rule;
  };

  return {
    duplicate: (scope = {}) => add({ kind: 'duplicate', matches: matcher(scope.to), remaining: times(scope.times) }),
    loseAnswer: (scope = {}) => add({ kind: 'loseAnswer', matches: matcher(scope.to), remaining: times(scope.times) }),
    throttle(options = {}) {
      const status = options.status ?? 429;
      if (status !== 429 && status !== 503) throw new ValidationError('status', `expected 429 or 503, got ${JSON.stringify(status)}`);
      return add({
        kind: 'throttle',
        matches: () => true,
        remaining: times(options.times),
        status,
        retryAfterSeconds: parseDuration('retryAfter', options.retryAfter ?? 1),
      });
    },
    skewClock(options) {
      if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected { by: "10m" } or { by: "-10m" }');
      return add({ kind: 'skewClock', matches: matcher(options.to), remaining: times(options.times), skewMs: signedDuration(options.by) });
    },
    clear() {
      rules.length = 0;
    },
    take: (kind, url) => apply(kind, url) !== undefined,
    throttled() {
      const rule = apply('throttle', undefined);
      return rule && { status: rule.status!, retryAfterSeconds: rule.retryAfterSeconds! };
    },
    skew: (url) => apply('skewClock', url)?.skewMs ?? 0,
  };
}

function times(value: number | undefined): number {
  if (value === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isSafeInteger(value) || value < 1)
    throw new ValidationError('times', `expected a whole number >= 1, got ${JSON.stringify(value)}`);
  return value;
}

function signedDuration(value: Duration | `-${string}`): number {
  if (typeof value === 'string' && value.startsWith('-')) return -parseDuration('by', value.slice(1) as Duration) * 1000;
  if (typeof value === 'number' && value < 0) return -parseDuration('by', -value) * 1000;
  return parseDuration('by', value as Duration) * 1000;
}

/** A destination matches by its path; a string by the whole URL or, starting with `/`, by the path. */
function matcher(target: FaultTarget | undefined): (url: string) => boolean {
  if (target === undefined) return () => true;
  if (typeof target === 'string') {
    if (target.startsWith('/')) return (url) => new URL(url).pathname === target;
    if (!URL.canParse(target))
      throw new ValidationError('to', `expected a destination, a URL or a path starting with "/", got ${JSON.stringify(target)}`);
    return (url) => url === target;
  }
  if (typeof target === 'object' && target !== null && typeof target.path === 'string')
    return (url) => new URL(url).pathname === target.path;
  throw new ValidationError('to', 'expected a destination made by defineDestination, a URL, or a path starting with "/"');
}
