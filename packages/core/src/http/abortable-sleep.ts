/**
 * The default `sleep`: a timer that is cleared when `signal` aborts, so an aborted request does not
 * keep the process alive until the backoff would have ended.
 *
 * @example await defaultSleep(250)
 */
export function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Runs `sleep` but settles as soon as `signal` aborts, rejecting with its reason. An injected sleep may
 * ignore the signal; the race makes sure the caller's abort is still prompt.
 */
export async function sleepUnlessAborted(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!signal) return sleep(ms);
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([sleep(ms, signal), aborted]);
    signal.throwIfAborted();
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
