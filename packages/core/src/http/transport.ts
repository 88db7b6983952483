import type { HttpMethod } from '../delivery-options';
import { NetworkError } from '../errors';

/** The methods the service's own interfaces use: a destination's, less HEAD and OPTIONS. */
export type ServiceMethod = Exclude<HttpMethod, 'HEAD' | 'OPTIONS'>;

/**
 * One attempt as the client hands it to an {@link HttpTransport}: validated, serialised and final.
 * Retries send the very same object again, so a transport must not change it.
 */
export interface HttpTransportRequest {
  method: ServiceMethod;
  /** Absolute http(s) URL, path and query included. */
  url: string;
  /** Every header to send, names in lower case, `authorization` included. */
  headers: Readonly<Record<string, string>>;
  body: string | Uint8Array | undefined;
  /** The caller's signal, if any. When it aborts, reject with `signal.reason`. */
  signal: AbortSignal | undefined;
  /** Deadline of the whole attempt in ms: connecting, sending and reading the entire body. */
  timeoutMs: number;
}

/** The whole answer of one attempt, whatever its status. */
export interface HttpTransportResponse {
  status: number;
  statusText: string;
  /**
   * Only read for answers the client has to interpret (errors, rate limits, `Retry-After`) or when a
   * caller asks, so a transport may build it lazily with a getter.
   */
  readonly headers: Headers;
  /** The body decoded as UTF-8; '' when there is none. */
  text: string;
}

/**
 * What sends one attempt for a client: the default is built on `fetch` (any runtime); Node can use
 * `createUndiciTransport()` from `@mailroom/core/undici`. The client keeps everything else (auth,
 * retries, error mapping, response validation), so a transport only moves bytes.
 *
 * `send` resolves with the answer whatever its status. It rejects with a `NetworkError` (with
 * `timedOut` when `timeoutMs` passed) or, after the caller's abort, with `signal.reason`; anything
 * else it throws is reported as a `NetworkError` caused by it. It must never send a request twice:
 * whether a retry is safe is the client's decision.
 *
 * @example
 * import { createUndiciTransport } from '@mailroom/core/undici';
 * const client = createMessagingClient({ transport: createUndiciTransport({ connections: 32 }) });
 */
export interface HttpTransport {
  send(request: HttpTransportRequest): Promise<HttpTransportResponse>;
}

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
