/** Node cannot arm a timer for longer than this (about 24.8 days); longer waits are re-armed. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** One timer per key, at an absolute time of the dev server's clock. */
export interface Timers {
  /** Calls `fire` once `now() >= at`, replacing any timer already set for `key`. */
  at(key: string, at: number, fire: () => void): void;
  cancel(key: string): void;
  /** Cancels every timer (on close). */
  clear(): void;
}

/**
 * Timers against an injectable clock. Waits are computed from the clock when armed (and re-checked
 * when they fire), so a paid plan's year-long delay works despite Node's 24.8-day timer limit.
 *
 * What is already due (most messages: no delay) gets no timer of its own: it joins one batch that a
 * single `setImmediate` fires, in the order it was armed. A timer per message cost more than the
 * rest of scheduling it, and the batch still fires only after the current request was answered.
 * With `unref`, a waiting timer does not keep the process alive by itself.
 */
export function createTimers(now: () => number, unref = false): Timers {
  const handles = new Map<string, NodeJS.Timeout>();
  const soon = new Map<string, () => void>();
  let flush: NodeJS.Immediate | undefined;

  const fireSoon = (): void => {
    try {
      // Entries armed or cancelled while the batch fires are seen (or skipped) by this same loop.
      for (const [key, fire] of soon) {
        soon.delete(key);
        fire();
      }
    } finally {
      flush = soon.size > 0 ? setImmediate(fireSoon) : undefined;
    }
  };

  const arm = (key: string, at: number, fire: () => void): void => {
    const wait = Math.max(0, at - now());
    const handle = setTimeout(
      () => {
        handles.delete(key);
        // Node's timers run on a monotonic clock, `now` on the wall clock: the two drift apart by a
        // millisecond now and then. Never fire before `at` by the server's own clock, or a schedule's
        // message would be created before the firing time the server showed for it.
        if (now() < at) arm(key, at, fire);
        else fire();
      },
      Math.min(wait, MAX_TIMEOUT_MS),
    );
    if (unref) handle.unref();
    handles.set(key, handle);
  };

  const cancel = (key: string): void => {
    const handle = handles.get(key);
    if (handle) {
      clearTimeout(handle);
      handles.delete(key);
    }
    soon.delete(key);
  };

  return {
    at(key, at, fire) {
      cancel(key);
      if (at > now()) return arm(key, at, fire);
      soon.set(key, fire);
      flush ??= setImmediate(fireSoon);
    },
    cancel,
    clear() {
      for (const handle of handles.values()) clearTimeout(handle);
      handles.clear();
      soon.clear();
      if (flush) clearImmediate(flush);
      flush = undefined;
    },
  };
}
