// A step of the receiving pipeline answers at once when it can and with a promise when it had to
// wait; these carry a value through such steps without adding a microtask where none is needed.

/** A value now, or a promise of it when some step (a Web Crypto verify, an async schema) had to wait. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Calls `next` with the value, at once when there is one. The receiving pipeline is synchronous on
 * Node for the usual delivery (node:crypto verify, a zod schema, a sync handler); an `await` it does
 * not need would add a promise and a microtask to every delivery (docs/benchmarks.md).
 */
export function whenReady<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Anything `await` would wait for: native promises and other libraries' thenables alike. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Runs `work` and always answers with a promise: a synchronous throw becomes a rejection. */
export function toPromise<T>(work: () => MaybePromise<T>): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
