import { expectObject, RetryAfterError, ValidationError } from '../errors';
import { isThenable } from '../maybe-promise';

// Exactly-once handling over at-least-once delivery: before a handler runs, its delivery claims the
// message (its id at this destination) in a store shared by every instance of the app; a claim that
// is held answers "later", a message already handled answers 2xx without running the handler again.

/** What claiming a message found. */
export type ClaimResult =
  /** Nobody held it (or the holder's lease ran out): the caller holds it now and runs the handler. */
  | { state: 'claimed' }
  /** A handler finished with it: answer 2xx without running one. */
  | { state: 'done' }
  /** Another delivery holds it: ask the service to come back when that claim ends. */
  | { state: 'busy'; retryAfterMs: number };

/**
 * Where endpoints remember which messages they handled, shared by every instance of the app. Each
 * operation must be atomic in the store: two deliveries claiming at once must not both get `claimed`.
 * A store in memory may answer at once; one over the network answers with a promise.
 */
export interface IdempotencyStore {
  /** Claims `key` for `owner` for `leaseMs`, unless it is held by another owner or done. */
  claim(key: string, owner: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /** Marks `key` handled, for `ttlMs`, unless another owner took it over meanwhile. */
  complete(key: string, owner: string, ttlMs: number): void | Promise<void>;
  /** Gives up `owner`'s claim (its handler failed), so the next delivery runs the handler again. */
  release(key: string, owner: string): void | Promise<void>;
}

/** `idempotency` as an endpoint or `createMailroom` takes it: a store, or a store with its times. */
export type IdempotencyOption = IdempotencyStore | IdempotencySettings;

export interface IdempotencySettings {
  store: IdempotencyStore;
  /**
   * How long a delivery holds a message while its handler runs (default 300). A holder that crashed
   * keeps it this long, then a retry takes it over: set it above your handler's longest run.
   */
  leaseSeconds?: number;
  /**
   * How long a handled message is remembered (default 16 days): longer than the service goes on
   * retrying one: 20 retries (the paid plan's most) take about 15.3 days at the default backoff, as
   * every retry after the fifth waits a day. Keep it above your messages' own retry horizon.
   */
  ttlSeconds?: number;
}

/** The answer to a delivery of a message already handled: 2xx, and a header that says why. */
export const ALREADY_HANDLED: unique symbol = Symbol('mailroom.alreadyHandled');

const DEFAULT_LEASE_SECONDS = 300;
const DEFAULT_TTL_SECONDS = 16 * 24 * 60 * 60;

/** A delivery as the guard needs it: which message, and where it was sent. */
export interface GuardedDelivery {
  messageId: string | undefined;
  /** The URL the service delivered to (the token's `sub`), else the request's. */
  destination: string;
}

/** Which message, delivered where: the token's `sub` names the URL the service delivered to. */
export function guardedDelivery(message: {
  messageId: string | undefined;
  url: string | undefined;
  signature?: { claims: { sub?: string } } | undefined;
}): GuardedDelivery {
  return { messageId: message.messageId, destination: message.signature?.claims.sub ?? message.url ?? '' };
}

/**
 * Runs `handle` at most once per message and destination. Synchronous when the store and the handler
 * are (a memory store, a sync handler): no promise is made that nothing waits for.
 */
export type IdempotencyGuard = (delivery: GuardedDelivery, handle: () => unknown) => unknown;

/** The guard for an endpoint's `idempotency` option, checked when the endpoint is declared. */
export function idempotencyGuard(option: IdempotencyOption | false | undefined, where = 'idempotency'): IdempotencyGuard | undefined {
  if (option === undefined || option === false) return undefined;
  const settings = readSettings(option, where);
  const leaseMs = (settings.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  const ttlMs = (settings.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const { store } = settings;
  // The handler failed: the retry must run it again, not wait for the lease.
  const failed = (key: string, owner: string, error: unknown): Promise<never> =>
    Promise.resolve()
      .then(() => store.release(key, owner))
      .catch(() => {})
      .then(() => Promise.reject(error));
  // If completing fails the delivery fails too, and the retry runs the handler again: at least once, never lost.
  const completed = (key: string, owner: string, result: unknown): unknown => {
    const marked = store.complete(key, owner, ttlMs);
    return marked instanceof Promise ? marked.then(() => result) : result;
  };
  const claimed = (claim: ClaimResult, messageId: string, key: string, owner: string, handle: () => unknown): unknown => {
    if (claim.state === 'done') return ALREADY_HANDLED;
    if (claim.state === 'busy') {
      // Not 2xx: the first delivery may still fail, and then this message must be delivered again.
      throw new RetryAfterError(
        Math.max(1, Math.ceil(claim.retryAfterMs / 1000)),
        `message ${messageId} is being handled by another delivery; the service retries it when that claim ends`,
        { status: 409 },
      );
    }
    let result: unknown;
    try {
      result = handle();
    } catch (error) {
      return failed(key, owner, error);
    }
    if (!isThenable(result)) return completed(key, owner, result);
    return Promise.resolve(result).then(
      (value) => completed(key, owner, value),
      (error: unknown) => failed(key, owner, error),
    );
  };
  return ({ messageId, destination }, handle) => {
    // Every delivery of the service names its message; a request without one has nothing to key on.
    if (messageId === undefined || messageId === '') return handle();
    const key = `${messageId} ${destination}`;
    const owner = globalThis.crypto.randomUUID();
    // Synchronous with a memory store: no promise nor closure that nothing waits for.
    const claim = store.claim(key, owner, leaseMs);
    if (claim instanceof Promise) return claim.then((found) => claimed(found, messageId, key, owner, handle));
    return claimed(claim, messageId, key, owner, handle);
  };
}

function readSettings(option: IdempotencyOption, where: string): IdempotencySettings {
  expectObject(option, where, 'an idempotency store, or { store, leaseSeconds?, ttlSeconds? }');
  const settings: IdempotencySettings = isStore(option) ? { store: option } : option;
  if (!isStore(settings.store)) {
    throw new ValidationError(
      `${where}.store`,
      'expected an idempotency store with claim, complete and release (createMemoryStore, createRedisStore or createPostgresStore from @mailroom/core/idempotency)',
    );
  }
  for (const name of ['leaseSeconds', 'ttlSeconds'] as const) {
    const value = settings[name];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)) {
      throw new ValidationError(`${where}.${name}`, `expected a number of seconds above 0, got ${String(value)}`);
    }
  }
  return settings;
}

const isStore = (value: unknown): value is IdempotencyStore =>
  typeof value === 'object' &&
  value !== null &&
  ['claim', 'complete', 'release'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
