import { type DestinationDefinition, type Duration, ValidationError } from '@mailroom/core';
import type { FaultInput, Faults as EmbeddedFaults } from '@mailroom/dev-server/internal-embedded';

// Faults on demand: what the real service does now and then, or what cannot be made to happen
// against it, made to happen in a test. Each is scoped (a destination, a URL, or everything), may be
// limited to a number of times, and counts how often it applied. The rules are the service's own
// (the dev server's `--fault`); this is their shape for a test.

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
   * The service answers the next sending calls of the code under test (publish, enqueue, batch, creating a schedule) with `status`
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

/**
 * Turns the test's faults into the service's own rules (the same as `mailroom dev --fault`). `open`
 * throws once the service is closed: setting a fault then is a mistake the test hears about, while
 * removing one (an `afterEach` after `close()`) has nothing left to do.
 */
export function faultsOver(rules: EmbeddedFaults, open: (what: string) => void): Faults {
  const add = (input: FaultInput): Fault => {
    open(`faults.${input.kind}()`);
    let id: string;
    try {
      id = rules.set(input).fault.id;
    } catch (error) {
      // A 400 from the service's rules is about the input; anything else is no input error.
      if (error instanceof Error && (error as { status?: unknown }).status === 400) throw new ValidationError('fault', error.message);
      throw error;
    }
    let removed = false;
    return {
      get count() {
        return rules.list().find((fault) => fault.id === id)?.count ?? countWhenRemoved.get(id) ?? 0;
      },
      remove() {
        if (removed) return;
        removed = true;
        const fault = rules.list().find((candidate) => candidate.id === id);
        if (!fault) return;
        countWhenRemoved.set(id, fault.count);
        // In memory, so only a closed service refuses: nothing is left to remove then.
        rules.remove(id).catch(() => {});
      },
    };
  };
  // A removed fault still answers how often it applied.
  const countWhenRemoved = new Map<string, number>();
  const scoped = (kind: FaultInput['kind'], scope: FaultScope | undefined): FaultInput => {
    if (scope !== undefined && (scope === null || typeof scope !== 'object'))
      throw new ValidationError('scope', 'expected { to?, times? }');
    return { kind, ...target(scope?.to), ...(scope?.times !== undefined ? { times: scope.times } : {}) };
  };
  return {
    duplicate: (scope) => add(scoped('duplicate', scope)),
    loseAnswer: (scope) => add(scoped('lose-answer', scope)),
    throttle(options = {}) {
      if (options === null || typeof options !== 'object')
        throw new ValidationError('options', 'expected { status?, retryAfter?, times? }');
      return add({
        kind: 'throttle',
        ...(options.status !== undefined ? { status: options.status } : {}),
        ...(options.retryAfter !== undefined ? { retryAfter: options.retryAfter } : {}),
        ...(options.times !== undefined ? { times: options.times } : {}),
      });
    },
    skewClock(options) {
      if (options === null || typeof options !== 'object') throw new ValidationError('options', 'expected { by: "10m" } or { by: "-10m" }');
      return add({ ...scoped('skew-clock', options), by: options.by });
    },
    clear() {
      for (const fault of rules.list()) countWhenRemoved.set(fault.id, fault.count);
      rules.clear().catch(() => {});
    },
  };
}

/** A destination matches by its path; a string is a whole URL or, starting with `/`, a path. */
function target(to: FaultTarget | undefined): { to?: string } {
  if (to === undefined) return {};
  if (typeof to === 'string') return { to };
  if (typeof to === 'object' && to !== null && typeof to.path === 'string') return { to: to.path };
  throw new ValidationError('to', 'expected a destination made by defineDestination, a URL, or a path starting with "/"');
}
