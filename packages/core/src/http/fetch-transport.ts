import { NetworkError } from '../errors/network-error';
import type { HttpTransport, HttpTransportRequest, HttpTransportResponse } from './http-transport';

/**
 * The default transport: one `fetch` per attempt, the body read whole under a single timeout, so a
 * server that sends headers and then stalls is caught too. `getFetch` is asked on every attempt, so
 * a test tool that replaces `globalThis.fetch` after the client exists still sees the requests.
 *
 * @example const transport = createFetchTransport(() => globalThis.fetch)
 */
export function createFetchTransport(getFetch: () => typeof fetch): HttpTransport {
  return { send: (request) => sendWithFetch(request, getFetch()) };
}

async function sendWithFetch(request: HttpTransportRequest, fetchImpl: typeof fetch): Promise<HttpTransportResponse> {
  const caller = request.signal;
  caller?.throwIfAborted();
  // fetch can only be stopped through a signal, so each attempt needs a controller of its own.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
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
