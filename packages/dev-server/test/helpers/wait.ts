/** Polls `check` until it is true, failing with `what` after `timeoutMs`: a bounded wait, never a fixed sleep. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs}ms waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
