import { describeValue, expectObject, IdempotencyStoreError, RetryAfterError, SignatureError, ValidationError } from '../errors';
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
 * A store in memory may answer at once; one over the network answers with a promise (any thenable).
 */
export interface IdempotencyStore {
  /** Claims `key` for `owner` for `leaseMs`, unless it is held by another owner or done. */
  claim(key: string, owner: string, leaseMs: number): ClaimResult | PromiseLike<ClaimResult>;
  /** Extends `owner`'s claim on `key` to `leaseMs` from now, while its handler still runs (nothing if it lost it). */
  renew(key: string, owner: string, leaseMs: number): void | PromiseLike<void>;
  /** Marks `key` handled, for `ttlMs`, unless another owner took it over meanwhile. */
  complete(key: string, owner: string, ttlMs: number): void | PromiseLike<void>;
  /** Gives up `owner`'s claim (its handler failed), so the next delivery runs the handler again. */
  release(key: string, owner: string): void | PromiseLike<void>;
}

/** `idempotency` as an endpoint or `createMailroom` takes it: a store, or a store with its times. */
export type IdempotencyOption = IdempotencyStore | IdempotencySettings;

export interface IdempotencySettings {
  store: IdempotencyStore;
  /**
   * How long a delivery's claim lasts without renewal (default 15). It is renewed every third of that
   * while the handler runs, so only a crashed (or frozen) holder lets it lapse, and then a retry takes
   * the message over: at the default, well inside the free plan's retries (about a minute in all).
   */
  leaseSeconds?: number;
  /**
   * How long a handled message is remembered (default 16 days): longer than the service goes on
   * retrying one: 20 retries (the paid plan's most) take about 14.3 days at the default backoff, as
   * every retry from the seventh waits a day. Keep it above your messages' own retry horizon.
   */
  ttlSeconds?: number;
}

/** The answer to a delivery of a message already handled: 2xx, and a header that says why. */
export const ALREADY_HANDLED: unique symbol = Symbol('mailroom.alreadyHandled');

const DEFAULT_LEASE_SECONDS = 15;
const DEFAULT_TTL_SECONDS = 16 * 24 * 60 * 60;
// A token is remembered a minute past its expiry: the verifier's clock tolerance is below that.
const TOKEN_MARGIN_MS = 60_000;

/** A delivery as the guard needs it: which message, what its signature covers, and the token. */
export interface GuardedDelivery {
  messageId: string | undefined;
  /** The URL the service delivered to (the token's `sub`), else the request's. */
  destination: string;
  /** The signed SHA-256 of the body (the token's `body`): a claim binds what the signature covers. */
  bodyHash?: string | undefined;
  /** The token's `jti` and `exp` (Unix seconds): a token seen once is refused within its lifetime. */
  token?: { id: string; expiresAt: number } | undefined;
}

/** Which message, delivered where, with what: the token's `sub` and `body`, its `jti` and `exp`. */
export function guardedDelivery(message: {
  messageId: string | undefined;
  url: string | undefined;
  signature?: { claims: { sub?: string; body?: string; jti?: string; exp?: number } } | undefined;
}): GuardedDelivery {
  const claims = message.signature?.claims;
  return {
    messageId: message.messageId,
    destination: claims?.sub ?? message.url ?? '',
    bodyHash: claims?.body,
    token: claims?.jti !== undefined && claims.exp !== undefined ? { id: claims.jti, expiresAt: claims.exp } : undefined,
  };
}

/**
 * Runs `handle` at most once per message and destination. Synchronous when the store and the handler
 * are (a memory store, a sync handler): no promise is made that nothing waits for.
 */
export type IdempotencyGuard = (delivery: GuardedDelivery, handle: () => unknown) => unknown;

/**
 * The guard for an endpoint's `idempotency` option, checked when the endpoint is declared. `report`
 * hears what fails beside the answer (a release or renewal the store refused).
 */
export function idempotencyGuard(
  option: IdempotencyOption | false | undefined,
  where = 'idempotency',
  report: (error: unknown) => void = () => {},
  now: () => number = Date.now,
): IdempotencyGuard | undefined {
  if (option === undefined || option === false) return undefined;
  const settings = readSettings(option, where);
  const leaseMs = (settings.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  const ttlMs = (settings.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const store = guardedStore(settings.store);
  // The handler failed: the retry must run it again, not wait for the lease. A release the store
  // refused is reported, and the lease ends it soon enough.
  const failed = (key: string, owner: string, error: unknown): Promise<never> =>
    Promise.resolve()
      .then(() => store.release(key, owner))
      .catch(report)
      .then(() => Promise.reject(error));
  // If completing fails the delivery fails too, and the retry runs the handler again: at least once, never lost.
  const completed = (key: string, owner: string, result: unknown): unknown => {
    const marked = store.complete(key, owner, ttlMs);
    return isThenable(marked) ? Promise.resolve(marked).then(() => result) : result;
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
    // Renewed while the handler runs: a short lease that only a crash lets lapse.
    const renewal = setInterval(() => {
      Promise.resolve()
        .then(() => store.renew(key, owner, leaseMs))
        .catch(report);
    }, leaseMs / 3);
    (renewal as { unref?: () => void }).unref?.();
    return Promise.resolve(result).then(
      (value) => {
        clearInterval(renewal);
        return completed(key, owner, value);
      },
      (error: unknown) => {
        clearInterval(renewal);
        return failed(key, owner, error);
      },
    );
  };
  const claimMessage = (messageId: string, key: string, owner: string, handle: () => unknown): unknown => {
    const claim = store.claim(key, owner, leaseMs);
    return isThenable(claim)
      ? Promise.resolve(claim).then((found) => claimed(found, messageId, key, owner, handle))
      : claimed(claim, messageId, key, owner, handle);
  };
  return ({ messageId, destination, bodyHash, token }, handle) => {
    // Every delivery of the service names its message; a request without one has nothing to key on.
    if (messageId === undefined || messageId === '') return handle();
    // The message id is not signed: the claim binds it to what the signature covers, so a token
    // replayed under another message's id claims nothing of that message's.
    const key = `${messageId} ${destination} ${bodyHash ?? ''}`;
    const owner = globalThis.crypto.randomUUID();
    if (!token) return claimMessage(messageId, key, owner, handle);
    // A token is used once: seen again within its lifetime, it is a replay.
    const seen = store.claim(`token ${token.id}`, owner, Math.max(1, token.expiresAt * 1000 - now()) + TOKEN_MARGIN_MS);
    const fresh = (found: ClaimResult) => {
      if (found.state !== 'claimed')
        throw new SignatureError('replayed', `the token ${token.id} was already used: a replayed delivery is refused`);
      return claimMessage(messageId, key, owner, handle);
    };
    return isThenable(seen) ? Promise.resolve(seen).then(fresh) : fresh(seen);
  };
}

/**
 * The store as the guard calls it: every failure (a throw, a rejection, an answer it cannot read) an
 * `IdempotencyStoreError`, so it is answered and reported as the store's, never as the handler's.
 */
function guardedStore(store: IdempotencyStore): IdempotencyStore {
  const wrap = <T>(operation: string, call: () => T | PromiseLike<T>, check: (value: T) => T = (value) => value): T | PromiseLike<T> => {
    let answer: T | PromiseLike<T>;
    try {
      answer = call();
    } catch (error) {
      throw new IdempotencyStoreError(operation, error);
    }
    if (!isThenable(answer)) return check(answer);
    return Promise.resolve(answer).then(check, (error: unknown) => {
      throw new IdempotencyStoreError(operation, error);
    });
  };
  const known = (claim: ClaimResult): ClaimResult => {
    const state = (claim as { state?: unknown } | null)?.state;
    if (state === 'claimed' || state === 'done') return claim;
    if (state === 'busy' && Number.isFinite((claim as { retryAfterMs?: unknown }).retryAfterMs)) return claim;
    // Anything else fails closed: counting it as claimed could run a handler twice.
    throw new IdempotencyStoreError('claim', new Error(`the store answered a claim with ${describeValue(claim)}`));
  };
  return {
    claim: (key, owner, leaseMs) => wrap('claim', () => store.claim(key, owner, leaseMs), known),
    renew: (key, owner, leaseMs) => wrap('renew', () => store.renew(key, owner, leaseMs)),
    complete: (key, owner, ttlMs) => wrap('complete', () => store.complete(key, owner, ttlMs)),
    release: (key, owner) => wrap('release', () => store.release(key, owner)),
  };
}

function readSettings(option: IdempotencyOption, where: string): IdempotencySettings {
  expectObject(option, where, 'an idempotency store, or { store, leaseSeconds?, ttlSeconds? }');
  const settings: IdempotencySettings = isStore(option) ? { store: option } : option;
  if (!isStore(settings.store)) {
    throw new ValidationError(
      `${where}.store`,
      'expected an idempotency store with claim, renew, complete and release (createMemoryStore, createRedisStore or createPostgresStore from @mailroom/core/idempotency)',
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
  ['claim', 'renew', 'complete', 'release'].every((name) => typeof (value as Record<string, unknown>)[name] === 'function');
