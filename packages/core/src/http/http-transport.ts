import type { HttpMethod } from './transport-types';

/**
 * One attempt as the client hands it to an {@link HttpTransport}: validated, serialised and final.
 * Retries send the very same object again, so a transport must not change it.
 */
export interface HttpTransportRequest {
  method: HttpMethod;
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
