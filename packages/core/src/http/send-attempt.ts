import { NetworkError } from '../errors/network-error';
import type { PreparedRequest } from './prepare-request';

/** What one attempt got back, whatever the status. */
export interface AttemptResult {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/**
 * Sends one attempt and reads the whole body under a single timeout, so a server that sends headers
 * and then stalls is caught too. Rejects with `NetworkError` (with `timedOut` for our timeout), or with
 * the caller's abort reason when the caller's signal fired.
 *
 * @example const result = await sendAttempt(prepared, globalThis.fetch, 30_000)
 */
export async function sendAttempt(request: PreparedRequest, fetchImpl: typeof fetch, timeoutMs: number): Promise<AttemptResult> {
  const caller = request.signal;
  caller?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort(caller?.reason);
  caller?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const response = await fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, statusText: response.statusText, headers: response.headers, text };
  } catch (cause) {
    // The caller's abort is a decision, not a failure: hand back their reason, as fetch itself does.
    if (caller?.aborted) throw caller.reason;
    throw new NetworkError({ method: request.method, url: request.url, timedOut, cause });
  } finally {
    // Both must go on every path, or a finished request keeps a timer (and the process) alive and
    // a long-lived caller signal collects one listener per request.
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  }
}
