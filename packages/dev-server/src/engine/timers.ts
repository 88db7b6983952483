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
 */
export function createTimers(now: () => number): Timers {
  const handles = new Map<string, NodeJS.Timeout>();
  const arm = (key: string, at: number, fire: () => void): void => {
    const wait = Math.max(0, at - now());
    const handle = setTimeout(() => {
      handles.delete(key);
      if (now() < at && wait >= MAX_TIMEOUT_MS) arm(key, at, fire);
      else fire();
    }, Math.min(wait, MAX_TIMEOUT_MS));
    handles.set(key, handle);
  };
  return {
    at(key, at, fire) {
      const existing = handles.get(key);
      if (existing) clearTimeout(existing);
      arm(key, at, fire);
    },
    cancel(key) {
      const handle = handles.get(key);
      if (handle) clearTimeout(handle);
      handles.delete(key);
    },
    clear() {
      for (const handle of handles.values()) clearTimeout(handle);
      handles.clear();
    },
  };
}
